// envtest's timeouts come from KUBEBUILDER_CONTROLPLANE_START_TIMEOUT / _STOP_TIMEOUT as Go
// durations ("90s", "2m", "1m30s"); honouring them keeps a kubebuilder user's CI settings working.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function durationFromEnv(variable: string, fallbackMs: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallbackMs;
  const parts = [...raw.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== raw) {
    throw new Error(`envtest: ${variable}=${raw} is not a duration; write it like 90s, 2m or 1m30s`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_MS[p[2] ?? 's'] ?? 1000), 0);
}

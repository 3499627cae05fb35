/**
 * Retries `check` until it passes or `timeoutMs` runs out, then rethrows its last failure — the
 * `Eventually` of Gomega/komega, for assertions on state a controller or a watch reaches asynchronously.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 30_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

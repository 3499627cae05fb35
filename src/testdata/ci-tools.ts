// Test support (excluded from the build): the peers and binaries .ci/ provides (helm, controller-gen, the
// OLM checker, kube-apiserver and etcd, ...). `.ci/run` builds them first and exports their paths; a test
// run without it (`npx vitest run x.test.ts`) gets them from the same script, which builds the tool or
// finds it in the cache and prints its path.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const found = new Map<string, string>();

/** The path in env var `env` (set by .ci/run), else what `.ci/<script>` prints (minutes when the cache is cold). */
export function ciTool(env: string, script: string): string {
  let path = found.get(env) ?? process.env[env];
  if (!path) {
    const file = fileURLToPath(new URL(`../../.ci/${script}`, import.meta.url));
    path = execFileSync('bash', [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  }
  found.set(env, path);
  return path;
}

// Test support (excluded from the build): a scaffolded project beside a real kube-apiserver (envtest),
// for the tests of commands that act on a cluster (opgen debug, opgen doctor).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgenOk } from './cli.js';

export interface ProjectEnvOptions {
  /** Prefix of the temporary project folder. */
  prefix: string;
  /** `opgen init --project-name`. */
  projectName: string;
  /** opgen commands run after `create api` and before `generate`. */
  more?: string[][];
}

/**
 * Before the calling test file's tests: a project in a fresh temporary folder (`opgen init` with the
 * domain example.com, a Memcached cache/v1alpha1 API with its controller, `more`, `opgen generate`) and an
 * API server (envtest); `use` receives both. After the tests: the server stopped, the folder removed.
 */
export function useMemcachedProjectEnv({ prefix, projectName, more = [] }: ProjectEnvOptions, use: (started: { dir: string; env: TestEnv }) => void): void {
  let env: TestEnv | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    await opgenOk(dir, 'init', '--domain', 'example.com', '--project-name', projectName, '--skip-install');
    await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource', '--controller');
    for (const argv of more) await opgenOk(dir, ...argv);
    await opgenOk(dir, 'generate');
    env = await startTestEnv();
    use({ dir, env });
  }, 240_000);
  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}

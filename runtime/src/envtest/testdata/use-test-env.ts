// Test support (excluded from the build with the rest of testdata/).
import { afterAll, beforeAll } from 'vitest';
import { createClient, type Client } from '../../client/client.js';
import { startTestEnv, type TestEnv, type TestEnvOptions } from '../index.js';

/**
 * An API server (envtest) started with `options` before the tests of the calling file or describe block,
 * and stopped after them; `use` receives it and an admin client for it once it is up.
 */
export function useTestEnv(options: TestEnvOptions, use: (started: { env: TestEnv; client: Client }) => void): void {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    env = await startTestEnv(options);
    use({ env, client: createClient(env.kubeConfig) });
  });
  afterAll(async () => {
    await env?.stop();
  });
}

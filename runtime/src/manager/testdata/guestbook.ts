// The test kind matching testdata/guestbooks.yaml, declared the way scaffolded types modules are.
import { afterAll, beforeAll } from 'vitest';
import { groupVersion } from '../../api/kind.js';
import type { Condition, ObjectMeta } from '../../api/types.js';
import { createClient, type Client } from '../../client/client.js';
import { startTestEnv, type TestEnv } from '../../envtest/index.js';

export interface Guestbook {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { size?: number; message?: string; failTimes?: number };
  status?: { observedSize?: number; conditions?: Condition[] };
}

export const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind<Guestbook>('Guestbook');

export const guestbookCrd = new URL('./guestbooks.yaml', import.meta.url).pathname;

/** An API server (envtest) with the Guestbook CRD installed, and an admin client for it. */
export async function startGuestbookEnv(): Promise<{ env: TestEnv; client: Client }> {
  const env = await startTestEnv({ crdPaths: [guestbookCrd] });
  return { env, client: createClient(env.kubeConfig) };
}

/**
 * Starts a Guestbook API server (startGuestbookEnv) before the calling test file's tests and stops it
 * after them; `use` receives the env and its admin client once the server is up.
 */
export function useGuestbookEnv(use: (started: { env: TestEnv; client: Client }) => void): void {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    const started = await startGuestbookEnv();
    env = started.env;
    use(started);
  });
  afterAll(async () => {
    await env?.stop();
  });
}

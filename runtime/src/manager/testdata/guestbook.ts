// The test kind matching testdata/guestbooks.yaml, declared the way scaffolded types modules are.
import { groupVersion } from '../../api/kind.js';
import type { Condition, ObjectMeta } from '../../api/types.js';
import { createClient, type Client } from '../../client/client.js';
import { startTestEnv, type TestEnv } from '../../envtest/index.js';
import { useTestEnv } from '../../envtest/testdata/use-test-env.js';

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

/** useTestEnv with the Guestbook CRD installed: the server up for the calling test file's tests. */
export function useGuestbookEnv(use: (started: { env: TestEnv; client: Client }) => void): void {
  useTestEnv({ crdPaths: [guestbookCrd] }, use);
}

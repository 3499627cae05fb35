// The test kind matching testdata/guestbooks.yaml, declared the way scaffolded types modules are.
import { groupVersion } from '../../api/kind.js';
import type { Condition, ObjectMeta } from '../../api/types.js';

export interface Guestbook {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { size?: number; message?: string; failTimes?: number };
  status?: { observedSize?: number; conditions?: Condition[] };
}

export const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind<Guestbook>('Guestbook');

export const guestbookCrd = new URL('./guestbooks.yaml', import.meta.url).pathname;

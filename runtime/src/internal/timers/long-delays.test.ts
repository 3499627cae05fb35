// Delays beyond Node's timer limit (2^31 - 1 ms, ~24.8 days) against a real kube-apiserver (envtest):
// a requeueAfter or syncPeriod of 30 days used to fire after 1 ms, every time, so one object was
// reconciled thousands of times a second.
import { describe, expect, it } from 'vitest';
import { Namespace } from '../../api/builtins.js';
import type { Client } from '../../client/client.js';
import type { TestEnv } from '../../envtest/index.js';
import { silentLogger } from '../../log/index.js';
import { createManager } from '../../manager/index.js';
import { Guestbook, useGuestbookEnv } from '../../manager/testdata/guestbook.js';
import { waitFor } from '../../manager/testdata/wait.js';
import { Result } from '../../reconcile/index.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const thirtyDays = 30 * 24 * 60 * 60 * 1000;

describe('long delays', () => {
  it('requeueAfter and syncPeriod of 30 days: one reconcile in 10 s, not thousands', async () => {
    const ns = 'thirty-days';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Guestbook, { metadata: { namespace: ns, name: 'monthly' }, spec: { size: 1 } });
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], syncPeriodMs: thirtyDays });
    let reconciles = 0;
    mgr.controllerFor(Guestbook).complete({
      reconcile: async () => {
        reconciles++;
        return Result.requeueAfter(thirtyDays);
      },
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await waitFor(() => reconciles > 0, 30_000, 'the first reconcile');
      await new Promise((r) => globalThis.setTimeout(r, 10_000));
      expect(reconciles).toBe(1);
    } finally {
      stop.abort();
      await done;
    }
  });
});

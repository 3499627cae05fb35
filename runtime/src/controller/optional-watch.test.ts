// Watches added and removed at run time: an optional watch of a kind whose CRD is not installed does
// not hold up the controller, starts when the CRD appears and stops (informer gone, no request left
// open) when it goes. And a controller watching a dozen kinds adds one 'abort' listener to the
// manager's signal, not one per kind or request.
import { describe, expect, it } from 'vitest';
import { ConfigMap, Deployment } from '../api/builtins.js';
import { groupVersion } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import type { Client } from '../client/client.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { createLogger } from '../log/index.js';
import { createManager } from '../manager/manager.js';
import type { Request } from '../reconcile/index.js';

let env: TestEnv;
let client: Client;

useTestEnv({}, (started) => ({ env, client } = started));

const CustomResourceDefinition = groupVersion('apiextensions.k8s.io', 'v1').kind<KubeObject>('CustomResourceDefinition', { namespaced: false });
const Gadget = groupVersion('optional.example.com', 'v1').kind<KubeObject>('Gadget', { plural: 'gadgets' });
const gadgetCrd = {
  metadata: { name: 'gadgets.optional.example.com' },
  spec: {
    group: 'optional.example.com', scope: 'Namespaced', names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
/** Gadget `x` asks for a reconcile of ConfigMap `x`. */
const sameName = (o: KubeObject): Request[] => [{ namespace: o.metadata!.namespace, name: o.metadata!.name! }];

describe('optional watches', () => {
  it('a kind not served: the controller runs; its CRD installed: watched; removed: the informer stops', async () => {
    const logs: string[] = [];
    const reconciled: string[] = [];
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: createLogger({ level: 'info', write: (l) => logs.push(l) }), tracer: null, servedKindsPollMs: 200, controller: { cacheSyncTimeoutMs: 3_000 } });
    mgr.controllerFor(ConfigMap).named('gadget-watcher')
      .watches(Gadget, sameName, { optional: true })
      .complete({ reconcile: async (req) => { reconciled.push(req.name); return {}; } });
    const ctl = new AbortController();
    let exited: unknown;
    const done = mgr.start(ctl.signal).then(() => { exited = 'resolved'; }, (e: unknown) => { exited = e; });
    try {
      await client.create(ConfigMap, { metadata: { name: 'plain', namespace: 'default' } });
      await eventually(() => expect(reconciled).toContain('plain'));
      expect(logs.filter((l) => l.includes('not watching Gadget (optional.example.com/v1) yet'))).toHaveLength(1);
      // Past the cache-sync timeout: still running.
      await new Promise((r) => setTimeout(r, 3_500));
      expect(exited).toBeUndefined();
      expect(mgr.cache.has(Gadget)).toBe(false);

      await client.create(CustomResourceDefinition, gadgetCrd);
      await eventually(() => expect(logs.some((l) => l.includes('optional watch started'))).toBe(true), { timeoutMs: 15_000 });
      await eventually(async () => {
        await client.create(Gadget, { metadata: { name: 'from-gadget', namespace: 'default' } }).catch((e: Error) => { if (!/already exists/.test(e.message)) throw e; });
      }, { timeoutMs: 15_000 });
      await eventually(() => expect(reconciled).toContain('from-gadget'), { timeoutMs: 15_000 });
      expect(mgr.cache.has(Gadget)).toBe(true);

      await client.delete(CustomResourceDefinition, { name: gadgetCrd.metadata.name });
      await eventually(() => expect(logs.some((l) => l.includes('optional watch stopped'))).toBe(true), { timeoutMs: 30_000 });
      expect(mgr.cache.has(Gadget)).toBe(false);
      // The stopped informer lists no more: no 404 retry loop in the log afterwards.
      const errorsBefore = logs.filter((l) => /list\/watch failed/.test(l)).length;
      await new Promise((r) => setTimeout(r, 2_000));
      expect(logs.filter((l) => /list\/watch failed/.test(l)).length).toBe(errorsBefore);
      expect(exited).toBeUndefined();
    } finally {
      ctl.abort();
      await done;
    }
    expect(exited).toBe('resolved');
  }, 90_000);

  it('twelve watched kinds add no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const kinds = [...['Secret', 'Service', 'ServiceAccount', 'PersistentVolumeClaim', 'Pod', 'ReplicationController', 'ResourceQuota', 'LimitRange', 'PodTemplate', 'Event']
      .map((k) => groupVersion('', 'v1').kind<KubeObject>(k)), Deployment as never];
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: createLogger({ level: 'silent' }), tracer: null });
    let b = mgr.controllerFor(ConfigMap).named('many-kinds');
    for (const k of kinds) b = b.watches(k, () => []);
    b.watches(Gadget, () => [], { optional: true }).complete({ reconcile: async () => ({}) });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    try {
      await eventually(() => expect(mgr.cache.hasSynced()).toBe(true));
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      ctl.abort();
      await done;
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
  }, 60_000);
});

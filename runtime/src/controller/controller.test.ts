// A controller attaches its sources to shared informers when it starts and detaches them when it
// stops: the informers outlive it (other controllers, the cache's readers), and a stopped controller
// must not keep mapping their events into a queue nobody reads.
import { describe, expect, it } from 'vitest';
import { ConfigMap } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { Cache } from '../cache/cache.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { silentLogger } from '../log/index.js';
import { Result } from '../reconcile/index.js';
import { Transport } from '../transport/index.js';
import { Controller } from './controller.js';

let env: TestEnv;
let client: Client;

useTestEnv({}, (started) => ({ env, client } = started));

describe('Controller', () => {
  it('removes its event handlers from the shared informer when it stops', async () => {
    const cacheStop = new AbortController();
    const cache = new Cache(new Transport(env.kubeConfig), { namespaces: ['default'], log: silentLogger() });
    const informer = cache.informerFor(ConfigMap);
    // Another user of the same informer, which keeps running: it tells when an event has been dispatched.
    const seenByOther = new Set<string>();
    informer.addEventHandler({ onAdd: (o) => seenByOther.add(o.metadata!.name!) });
    const mapped: string[] = [];
    const controllerStop = new AbortController();
    const controller = new Controller({
      name: 'detaching',
      reconciler: { reconcile: async () => Result.done() },
      sources: [{ informer, handlers: { onAdd: (o) => void mapped.push(o.metadata!.name!) } }],
      log: silentLogger(),
    });
    const cacheRunning = cache.start(cacheStop.signal);
    const running = controller.start(controllerStop.signal);
    try {
      await client.create(ConfigMap, { metadata: { name: 'while-running', namespace: 'default' } });
      await eventually(() => expect(mapped).toContain('while-running'));

      controllerStop.abort();
      await running;
      await client.create(ConfigMap, { metadata: { name: 'after-stop', namespace: 'default' } });
      await eventually(() => expect(seenByOther.has('after-stop')).toBe(true));
      expect(mapped).not.toContain('after-stop');
    } finally {
      controllerStop.abort();
      cacheStop.abort();
      await cacheRunning;
    }
  });
});

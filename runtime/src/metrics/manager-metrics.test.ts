// /metrics and the probes served by a running manager whose controller reconciles real Guestbooks
// on a real kube-apiserver (envtest).
import { describe, expect, it } from 'vitest';
import { Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { type TestEnv, eventually } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/index.js';
import { Result } from '../reconcile/index.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { sample } from './testdata/sample.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));


describe('a running manager', () => {
  it('serves controller-runtime metrics for its controller, and /healthz and /readyz', async () => {
    const ns = 'metrics-probes';
    await client.create(Namespace, { metadata: { name: ns } });
    const mgr = await createManager({
      kubeConfig: env.kubeConfig,
      logger: silentLogger(),
      namespaces: [ns],
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
    });
    let failedOnce = false;
    mgr.controllerFor(Guestbook).named('guestbook').complete({
      reconcile: async (req) => {
        if (req.name === 'flaky' && !failedOnce) {
          failedOnce = true;
          throw new Error('first attempt fails');
        }
        return req.name === 'later' ? Result.requeueAfter(60_000) : Result.done();
      },
    });
    mgr.addHealthzCheck('ping', () => {});
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await eventually(async () => {
        expect((await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/readyz`)).status).toBe(200);
      });
      for (const name of ['steady', 'flaky', 'later']) {
        await client.create(Guestbook, { apiVersion: 'runtime.opgen.dev/v1', kind: 'Guestbook', metadata: { name, namespace: ns }, spec: { size: 1 } });
      }

      const metricsUrl = `http://127.0.0.1:${mgr.ports.metrics}/metrics`;
      let text = '';
      await eventually(async () => {
        text = await (await fetch(metricsUrl)).text();
        // steady and flaky's retry succeed; flaky's first attempt fails; later asks to come back.
        expect(sample(text, 'controller_runtime_reconcile_total{controller="guestbook",result="success"}')).toBe(2);
        expect(sample(text, 'controller_runtime_reconcile_total{controller="guestbook",result="error"}')).toBe(1);
        expect(sample(text, 'controller_runtime_reconcile_total{controller="guestbook",result="requeue_after"}')).toBe(1);
      });
      expect(sample(text, 'controller_runtime_reconcile_errors_total{controller="guestbook"}')).toBe(1);
      expect(sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="guestbook"}')).toBe(4);
      expect(sample(text, 'workqueue_adds_total{name="guestbook",controller="guestbook"}')).toBeGreaterThanOrEqual(3);
      expect(sample(text, 'workqueue_retries_total{name="guestbook",controller="guestbook"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'workqueue_depth{name="guestbook",controller="guestbook",priority=""}')).toBe(0);
      expect(sample(text, 'workqueue_work_duration_seconds_count{name="guestbook",controller="guestbook"}')).toBe(4);
      expect(sample(text, 'workqueue_queue_duration_seconds_count{name="guestbook",controller="guestbook"}')).toBeGreaterThanOrEqual(4);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

      const healthz = await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/healthz?verbose`);
      expect(healthz.status).toBe(200);
      expect(await healthz.text()).toBe('[+]ping ok\nhealthz check passed\n');
      mgr.addReadyzCheck('downstream', () => {
        throw new Error('downstream unavailable');
      });
      const readyz = await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/readyz`);
      expect(readyz.status).toBe(500);
      expect(await readyz.text()).toContain('[-]downstream failed: reason withheld\n');
    } finally {
      stop.abort();
      await done;
    }
    await expect(fetch(`http://127.0.0.1:${mgr.ports.metrics}/metrics`)).rejects.toThrow();
  });

  it("counts the Lease's requests in rest_client_requests_total, as client-go counts leader election's", async () => {
    const ns = 'metrics-lease';
    await client.create(Namespace, { metadata: { name: ns } });
    // No controller and no cache reads: every PUT it sends is a lease renewal.
    const mgr = await createManager({
      kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], tracer: null,
      leaderElection: true, leaderElectionID: 'lease-counted', leaderElectionNamespace: ns, retryPeriodMs: 100,
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await eventually(async () => {
        const text = await mgr.metrics.registry.getSingleMetricAsString('rest_client_requests_total');
        expect(text).toMatch(/rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} 1\n/);
        expect(Number(/rest_client_requests_total\{code="200",method="PUT",host="[^"]+"\} (\d+)/.exec(text)?.[1] ?? 0)).toBeGreaterThanOrEqual(2);
      });
    } finally {
      stop.abort();
      await done;
    }
  });
});


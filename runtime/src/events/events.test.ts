// The event recorder against a real kube-apiserver: events.k8s.io/v1 objects, repeats folded into a series.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { ConfigMap } from '../api/builtins.js';
import { createClient, type Client } from '../client/client.js';
import { silentLogger } from '../log/index.js';
import { createEventRecorder, EventsV1Event } from './index.js';

let env: TestEnv;
let client: Client;

beforeAll(async () => {
  env = await startTestEnv();
  client = createClient(env.kubeConfig);
});

afterAll(async () => {
  await env?.stop();
});

it('records events about an object and folds repeats into a series', async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'subject', namespace: 'default' } });
  const writes: Promise<unknown>[] = [];
  const recorder = createEventRecorder({ name: 'test-controller', writer: client, log: silentLogger(), track: (p) => writes.push(p) });
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Warning', 'Failed', 'x'.repeat(2000), 'Reconcile');
  await Promise.all(writes);

  const events = (await client.list(EventsV1Event, { namespace: 'default' })).items.filter((e) => e.regarding?.uid === cm.metadata?.uid);
  expect(events).toHaveLength(2);
  const synced = events.find((e) => e.reason === 'Synced')!;
  expect(synced).toMatchObject({
    type: 'Normal',
    action: 'Synced',
    note: 'all good',
    reportingController: 'test-controller',
    regarding: { kind: 'ConfigMap', name: 'subject', namespace: 'default' },
    series: { count: 3 },
  });
  const failed = events.find((e) => e.reason === 'Failed')!;
  expect(failed.action).toBe('Reconcile');
  expect(Buffer.byteLength(failed.note ?? '')).toBeLessThanOrEqual(1024);
  expect(failed.series).toBeUndefined();
});

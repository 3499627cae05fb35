// The event recorder against a real kube-apiserver: events.k8s.io/v1 objects, repeats folded into a
// series whose count reaches the server in a bounded number of writes, client-go's aggregation of
// similar events and its spam filter.
import { expect, it } from 'vitest';
import type { TestEnv } from '../envtest/index.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { ConfigMap } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { silentLogger } from '../log/index.js';
import type { Writer } from '../client/client.js';
import { createEventRecorder, EventsV1Event } from './index.js';

/** The client, counting the writes that reach the API server. */
function counting(inner: Client): { writer: Writer; writes: { create: number; patch: number } } {
  const writes = { create: 0, patch: 0 };
  const writer: Writer = {
    create: (kind, obj, o) => (writes.create++, inner.create(kind, obj, o)),
    patch: (kind, key, patch, o) => (writes.patch++, inner.patch(kind, key, patch, o)),
    update: (kind, obj, o) => inner.update(kind, obj, o),
    apply: (kind, obj, o) => inner.apply(kind, obj, o),
    delete: (kind, key, o) => inner.delete(kind, key, o),
  };
  return { writer, writes };
}

const eventsAbout = async (uid: string | undefined) =>
  (await client.list(EventsV1Event, { namespace: 'default' })).items.filter((e) => e.regarding?.uid === uid);

let env: TestEnv;
let client: Client;

useTestEnv({}, (started) => ({ env, client } = started));

it('records events about an object and folds repeats into a series', async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'subject', namespace: 'default' } });
  const writes: Promise<unknown>[] = [];
  const recorder = createEventRecorder({ name: 'test-controller', writer: client, log: silentLogger(), track: (p) => writes.push(p) });
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Normal', 'Synced', 'all good');
  recorder.event(cm, 'Warning', 'Failed', 'x'.repeat(2000), 'Reconcile');
  await recorder.flush();
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

it('1,000 identical events in a minute are 3 API writes, and the series count reaches 1,000', async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'error-loop', namespace: 'default' } });
  const { writer, writes } = counting(client);
  const recorder = createEventRecorder({ name: 'loop-controller', writer, log: silentLogger() });
  for (let i = 0; i < 1000; i++) recorder.event(cm, 'Warning', 'ReconcileError', 'cannot reach the backend');
  // The Event and its series (count 2) are written at once; the rest is counted in memory...
  await recorder.flush();
  // ...and written once, when the series ends, is refreshed, or the recorder flushes (the manager's shutdown).
  expect(writes).toEqual({ create: 1, patch: 2 });
  const [event, ...more] = await eventsAbout(cm.metadata?.uid);
  expect(more).toEqual([]);
  expect(event).toMatchObject({ reason: 'ReconcileError', note: 'cannot reach the backend', series: { count: 1000 } });
});

it('a series that goes quiet is written and ended; a repeat after that starts a new Event', async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'quiet-series', namespace: 'default' } });
  const { writer, writes } = counting(client);
  const recorder = createEventRecorder({ name: 'quiet-controller', writer, log: silentLogger(), series: { finishMs: 300, refreshMs: 60_000 } });
  for (let i = 0; i < 5; i++) recorder.event(cm, 'Normal', 'Synced', 'in sync');
  await expect.poll(async () => (await eventsAbout(cm.metadata?.uid))[0]?.series?.count, { timeout: 5000 }).toBe(5);
  expect(writes).toEqual({ create: 1, patch: 2 });
  recorder.event(cm, 'Normal', 'Synced', 'in sync');
  await recorder.flush();
  expect(writes.create).toBe(2);
});

it("events that differ only by note are combined from the 10th on (client-go's aggregator)", async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'similar', namespace: 'default' } });
  const recorder = createEventRecorder({ name: 'similar-controller', writer: client, log: silentLogger() });
  for (let i = 0; i < 30; i++) recorder.event(cm, 'Warning', 'BackOff', `attempt ${i} failed`);
  await recorder.flush();
  const events = await eventsAbout(cm.metadata?.uid);
  const combined = events.filter((e) => e.note?.startsWith('(combined from similar events): '));
  expect(events).toHaveLength(10);
  expect(combined).toHaveLength(1);
  expect(combined[0]!.series?.count).toBe(21);
});

it("new events about one object pass client-go's spam filter: a burst of 25, then one per 5 minutes", async () => {
  const cm = await client.create(ConfigMap, { metadata: { name: 'spammed', namespace: 'default' } });
  const { writer, writes } = counting(client);
  let now = Date.now();
  const recorder = createEventRecorder({ name: 'spam-controller', writer, log: silentLogger(), series: { clock: () => now } });
  for (let i = 0; i < 40; i++) recorder.event(cm, 'Warning', `Reason${i}`, 'distinct reasons are distinct events');
  await recorder.flush();
  expect(writes.create).toBe(25);
  // Another object has a bucket of its own; this one earns a token back after 5 minutes.
  const other = await client.create(ConfigMap, { metadata: { name: 'spammed-too', namespace: 'default' } });
  recorder.event(other, 'Warning', 'Reason0', 'x');
  now += 299_000;
  recorder.event(cm, 'Warning', 'TooSoon', 'no token yet');
  now += 1_000;
  recorder.event(cm, 'Warning', 'Late', 'after the refill');
  recorder.event(cm, 'Warning', 'TooSoonAgain', 'no token left');
  await recorder.flush();
  expect(writes.create).toBe(27);
  const reasons = (await eventsAbout(cm.metadata?.uid)).map((e) => e.reason);
  expect(reasons).toContain('Late');
  expect(reasons).not.toContain('TooSoon');
});

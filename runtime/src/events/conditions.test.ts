// Condition transitions observed from what the API server stored: one Event and one count per
// transition, none for writes that leave lastTransitionTime alone (retries, a second writer), none
// from a standby replica; the per-state gauge, the dwell gauge, the reason bound.
import { describe, expect, it } from 'vitest';
import { Namespace } from '../api/builtins.js';
import type { Condition } from '../api/types.js';
import type { Client } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { setConditions } from '../helpers/conditions.js';
import { silentLogger } from '../log/index.js';
import { createManager, type Manager } from '../manager/manager.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { MetricsRegistry } from '../metrics/registry.js';
import { Result } from '../reconcile/index.js';
import { Tracer, type FinishedSpan } from '../tracing/tracer.js';
import { ConditionMetrics, conditionTransitions, maxReasonsPerType, otherReason, transitionNote } from './conditions.js';
import { EventsV1Event } from './index.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const ready = (status: Condition['status'], reason: string, lastTransitionTime = '2026-01-01T00:00:00Z', message = ''): Condition =>
  ({ type: 'Ready', status, reason, message, lastTransitionTime });

describe('which changes are transitions', () => {
  it('a new condition, a new status or a new lastTransitionTime; not reason, message or generation alone', () => {
    expect(conditionTransitions('K', [], [ready('True', 'A')])).toHaveLength(1);
    expect(conditionTransitions('K', [ready('True', 'A')], [ready('False', 'B', '2026-01-01T00:01:00Z')])).toHaveLength(1);
    expect(conditionTransitions('K', [ready('True', 'A')], [ready('True', 'A', '2026-01-01T00:01:00Z')])).toHaveLength(1);
    expect(conditionTransitions('K', [ready('True', 'A')], [{ ...ready('True', 'B', undefined, 'other words'), observedGeneration: 4 }])).toEqual([]);
    expect(conditionTransitions('K', [ready('True', 'A')], [])).toEqual([]);
  });

  it('notes say old → new status with both messages', () => {
    const [t] = conditionTransitions('K', [ready('False', 'Pending', undefined, '1 of 3 up')], [ready('True', 'AllUp', '2026-01-02T00:00:00Z', '3 of 3 up')]);
    expect(transitionNote(t!)).toBe('Ready: False → True: 3 of 3 up (was Pending: 1 of 3 up)');
    expect(transitionNote(conditionTransitions('K', [], [ready('True', 'AllUp')])[0]!)).toBe('Ready: absent → True');
  });

  it(`keeps at most ${maxReasonsPerType} reasons per kind and type as label values`, () => {
    const m = new ConditionMetrics(new MetricsRegistry());
    for (let i = 0; i < maxReasonsPerType; i++) expect(m.reasonLabel('K', 'Ready', `R${i}`)).toBe(`R${i}`);
    expect(m.reasonLabel('K', 'Ready', 'OneTooMany')).toBe(otherReason);
    expect(m.reasonLabel('K', 'Ready', 'R3')).toBe('R3');
    expect(m.reasonLabel('K', 'Available', 'OneTooMany')).toBe('OneTooMany');
  });
});

/** A manager whose Guestbook controller sets Ready from spec.size (True when > 0). */
async function guestbookManager(ns: string, leaderElection: boolean, tracer: Tracer | null = null): Promise<{ mgr: Manager; stop: () => Promise<void> }> {
  const mgr = await createManager({
    kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], tracer,
    ...(leaderElection ? { leaderElection: true, leaderElectionID: `${ns}-lease`, leaderElectionNamespace: ns } : {}),
  });
  mgr.controllerFor(Guestbook).complete({
    async reconcile(req) {
      const gb = await mgr.client.get(Guestbook, req);
      const size = gb.spec?.size ?? 0;
      const changed = setConditions(gb, size > 0
        ? { type: 'Ready', status: 'True', reason: 'Scaled', message: `${size} replicas` }
        : { type: 'Ready', status: 'False', reason: 'NoReplicas', message: 'size is 0' });
      if (changed) await mgr.client.status().update(Guestbook, gb);
      return Result.done();
    },
  });
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  return { mgr, stop: async () => { ctl.abort(); await done; } };
}

const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));

it('records each stored transition once: one Event and one count, on the leader only', async () => {
  const ns = 'conditions';
  await client.create(Namespace, { metadata: { name: ns } });
  const leader = await guestbookManager(ns, true);
  await eventually(async () => expect(await leader.mgr.metrics.registry.getSingleMetricAsString('leader_election_master_status')).toContain(`leader_election_master_status{name="${ns}-lease"} 1`));
  // A second replica: same controller, same lease; it waits as a standby.
  const standby = await guestbookManager(ns, true);
  try {
    await client.create(Guestbook, { metadata: { name: 'gb', namespace: ns }, spec: { size: 1 } });
    await eventually(async () => expect((await client.get(Guestbook, { namespace: ns, name: 'gb' })).status?.conditions?.[0]?.status).toBe('True'));
    await client.patch(Guestbook, { namespace: ns, name: 'gb' }, { type: 'merge', body: { spec: { size: 0 } } });
    await eventually(async () => expect((await client.get(Guestbook, { namespace: ns, name: 'gb' })).status?.conditions?.[0]?.status).toBe('False'));

    // Writes that keep lastTransitionTime — a retry, another replica, a reason or message refresh — are no transitions.
    const stored = await client.get(Guestbook, { namespace: ns, name: 'gb' });
    const falseSince = stored.status!.conditions![0]!.lastTransitionTime;
    for (const message of ['size is still 0', 'size is 0']) {
      for (;;) {
        const gb = await client.get(Guestbook, { namespace: ns, name: 'gb' });
        gb.status!.conditions = [{ ...gb.status!.conditions![0]!, reason: 'NoReplicasWanted', message }];
        try {
          await client.status().update(Guestbook, gb);
          break;
        } catch (err) {
          if (!isConflict(err)) throw err; // the controller wrote in between
        }
      }
    }

    // The controller puts its own reason back (still no transition: same status, same lastTransitionTime).
    await eventually(async () => expect((await client.get(Guestbook, { namespace: ns, name: 'gb' })).status?.conditions?.[0]?.reason).toBe('NoReplicas'));
    const events = async () => (await client.list(EventsV1Event, { namespace: ns })).items.filter((e) => e.reportingController === 'guestbook-conditions');
    await eventually(async () => expect(await events()).toHaveLength(2));
    await new Promise((r) => setTimeout(r, 500));
    const [up, down] = (await events()).sort((a, b) => a.eventTime.localeCompare(b.eventTime));
    expect(up).toMatchObject({ type: 'Normal', reason: 'Scaled', note: 'Ready: absent → True: 1 replicas', regarding: { kind: 'Guestbook', name: 'gb' } });
    expect(down).toMatchObject({ type: 'Warning', reason: 'NoReplicas', note: 'Ready: True → False: size is 0 (was Scaled: 1 replicas)' });
    expect(up!.series).toBeUndefined();
    expect(down!.series).toBeUndefined();

    const text = await leader.mgr.metrics.registry.metrics();
    expect(series(text, 'operator_condition_transitions_total')).toEqual([
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="True",reason="Scaled"} 1',
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="False",reason="NoReplicas"} 1',
    ]);
    expect(series(text, 'operator_condition_objects')).toEqual([
      'operator_condition_objects{kind="Guestbook",type="Ready",status="True",reason="Scaled"} 0',
      'operator_condition_objects{kind="Guestbook",type="Ready",status="False",reason="NoReplicas"} 1',
      'operator_condition_objects{kind="Guestbook",type="Ready",status="False",reason="NoReplicasWanted"} 0',
    ]);
    expect(series(text, 'operator_condition_last_transition_time_seconds')).toEqual([
      `operator_condition_last_transition_time_seconds{kind="Guestbook",namespace="${ns}",name="gb",type="Ready",status="False",reason="NoReplicas"} ${Date.parse(falseSince) / 1000}`,
    ]);
    // The standby saw the same objects and counted nothing.
    expect(series(await standby.mgr.metrics.registry.metrics(), 'operator_condition_transitions_total')).toEqual([]);

    await client.delete(Guestbook, { namespace: ns, name: 'gb' });
    await eventually(async () => {
      const after = await leader.mgr.metrics.registry.metrics();
      expect(series(after, 'operator_condition_last_transition_time_seconds')).toEqual([]);
      expect(series(after, 'operator_condition_objects').every((l) => l.endsWith(' 0'))).toBe(true);
    });
  } finally {
    await standby.stop();
    await leader.stop();
  }
});

it("puts k8s.condition.transition on the span of the reconcile that moved the condition", async () => {
  const ns = 'conditions-traced';
  await client.create(Namespace, { metadata: { name: ns } });
  const spans: FinishedSpan[] = [];
  const tracer = new Tracer({ export: (s) => void spans.push(s), flush: async () => {}, shutdown: async () => {} });
  const { stop } = await guestbookManager(ns, false, tracer);
  try {
    await client.create(Guestbook, { metadata: { name: 'gb', namespace: ns }, spec: { size: 2 } });
    await eventually(() => expect(spans.some((s) => s.events.length > 0)).toBe(true));
  } finally {
    await stop();
  }
  const reconcile = spans.find((s) => s.name === 'reconcile' && s.events.length > 0)!;
  expect(reconcile.events).toEqual([{
    name: 'k8s.condition.transition',
    timeNs: expect.any(BigInt),
    attributes: {
      'k8s.condition.type': 'Ready', 'k8s.condition.status': 'True', 'k8s.condition.previous_status': 'absent',
      'k8s.condition.reason': 'Scaled', 'k8s.condition.message': '2 replicas',
    },
  }]);
  expect(reconcile.attributes).toMatchObject({ 'k8s.resource.kind': 'Guestbook', 'k8s.namespace.name': ns, 'k8s.object.name': 'gb', 'reconcile.result': 'success' });
  // Its client calls are its children: the GET (from the cache, so no request) is not there, the status PUT is.
  const children = spans.filter((s) => s.parentSpanId === reconcile.context.spanId);
  expect(children.map((s) => s.name)).toEqual(['PUT']);
  expect(children[0]!.context.traceId).toBe(reconcile.context.traceId);
});

it('conditionEvents: false keeps the metrics and records no Events', async () => {
  const ns = 'conditions-quiet';
  await client.create(Namespace, { metadata: { name: ns } });
  const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], tracer: null, conditionEvents: false });
  mgr.controllerFor(Guestbook).complete({
    async reconcile(req) {
      const gb = await mgr.client.get(Guestbook, req);
      if (setConditions(gb, { type: 'Ready', status: 'True', reason: 'Scaled', message: '' })) await mgr.client.status().update(Guestbook, gb);
      return Result.done();
    },
  });
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  try {
    await client.create(Guestbook, { metadata: { name: 'gb', namespace: ns }, spec: { size: 1 } });
    await eventually(async () => expect(series(await mgr.metrics.registry.metrics(), 'operator_condition_transitions_total')).toEqual([
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="True",reason="Scaled"} 1',
    ]));
    await new Promise((r) => setTimeout(r, 500));
    expect((await client.list(EventsV1Event, { namespace: ns })).items).toEqual([]);
  } finally {
    ctl.abort();
    await done;
  }
});

// Condition transitions observed from what the API server stored: one Event and one count per
// transition, none for writes that leave lastTransitionTime alone (retries, a second writer), none
// from a standby replica; the per-state gauge, the dwell gauge, the reason bound.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Namespace } from '../api/builtins.js';
import type { Condition } from '../api/types.js';
import type { Client } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { groupVersion } from '../api/kind.js';
import { conditionPolarity, isAbnormalStatus, setConditions } from '../helpers/conditions.js';
import { silentLogger } from '../log/index.js';
import { createManager, type Manager } from '../manager/manager.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { MetricsRegistry } from '../metrics/registry.js';
import { Result } from '../reconcile/index.js';
import { Tracer, type FinishedSpan } from '../tracing/tracer.js';
import { ConditionMetrics, conditionTransitions, formatDuration, maxReasonsPerType, otherReason, transitionNote } from './conditions.js';
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

  it('notes say old → new status, how long the old one lasted, and both messages', () => {
    const [t] = conditionTransitions('K', [ready('False', 'Pending', undefined, '1 of 3 up')], [ready('True', 'AllUp', '2026-01-02T01:02:03Z', '3 of 3 up')]);
    expect(transitionNote(t!)).toBe('Ready: False → True after 25h2m3s: 3 of 3 up (was Pending: 1 of 3 up)');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(125)).toBe('2m5s');
    expect(transitionNote(conditionTransitions('K', [], [ready('True', 'AllUp')])[0]!)).toBe('Ready: absent → True');
  });

  it('reads polarity from the kind, then the well-known types, else True is healthy', () => {
    expect(Object.fromEntries(['Ready', 'Available', 'Progressing', 'Degraded', 'Stalled', 'Reconciling', 'BackupDone'].map((t) => [t, conditionPolarity(Guestbook, t)]))).toEqual({
      Ready: 'normal-true', Available: 'normal-true', Progressing: 'neutral', Degraded: 'abnormal-true', Stalled: 'abnormal-true', Reconciling: 'abnormal-true', BackupDone: 'normal-true',
    });
    const Backup = groupVersion('ex.com', 'v1').kind('Backup', { conditionPolarity: { Progressing: 'abnormal-true', BackupFailed: 'abnormal-true' } });
    expect([conditionPolarity(Backup, 'Progressing'), conditionPolarity(Backup, 'BackupFailed'), conditionPolarity(Backup, 'Degraded')]).toEqual(['abnormal-true', 'abnormal-true', 'abnormal-true']);
    expect(['True', 'False', 'Unknown'].map((s) => isAbnormalStatus('normal-true', s))).toEqual([false, true, false]);
    expect(['True', 'False', 'Unknown'].map((s) => isAbnormalStatus('abnormal-true', s))).toEqual([true, false, false]);
    expect(['True', 'False', 'Unknown'].map((s) => isAbnormalStatus('neutral', s))).toEqual([false, false, false]);
  });

  it(`keeps at most ${maxReasonsPerType} reasons per kind and type as label values`, () => {
    const m = new ConditionMetrics(new MetricsRegistry());
    for (let i = 0; i < maxReasonsPerType; i++) expect(m.reasonLabel('K', 'Ready', `R${i}`)).toBe(`R${i}`);
    expect(m.reasonLabel('K', 'Ready', 'OneTooMany')).toBe(otherReason);
    expect(m.reasonLabel('K', 'Ready', 'R3')).toBe('R3');
    expect(m.reasonLabel('K', 'Available', 'OneTooMany')).toBe('OneTooMany');
  });
});

/**
 * A manager whose Guestbook controller sets Ready (True when spec.size > 0) and Degraded (True when it
 * is 0): size 0 is the outage, size > 0 again the recovery.
 */
async function guestbookManager(ns: string, leaderElection: boolean, tracer: Tracer | null = null): Promise<{ mgr: Manager; stop: () => Promise<void> }> {
  const mgr = await createManager({
    kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], tracer,
    ...(leaderElection ? { leaderElection: true, leaderElectionID: `${ns}-lease`, leaderElectionNamespace: ns } : {}),
  });
  mgr.controllerFor(Guestbook).complete({
    async reconcile(req) {
      const gb = await mgr.client.get(Guestbook, req);
      const size = gb.spec?.size ?? 0;
      const changed = setConditions(gb, ...(size > 0
        ? [{ type: 'Ready', status: 'True', reason: 'Scaled', message: `${size} replicas` }, { type: 'Degraded', status: 'False', reason: 'Scaled', message: `${size} replicas` }] as const
        : [{ type: 'Ready', status: 'False', reason: 'NoReplicas', message: 'size is 0' }, { type: 'Degraded', status: 'True', reason: 'NoReplicas', message: 'size is 0' }] as const));
      if (changed) await mgr.client.status().update(Guestbook, gb);
      return Result.done();
    },
  });
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  return { mgr, stop: async () => { ctl.abort(); await done; } };
}

const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));
const condition = async (ns: string, type: string) => (await client.get(Guestbook, { namespace: ns, name: 'gb' })).status?.conditions?.find((c) => c.type === type);

it('records each stored transition once: one Event (Warning into the abnormal status of the type\'s polarity) and one count, on the leader only', async () => {
  const ns = 'conditions';
  await client.create(Namespace, { metadata: { name: ns } });
  const leader = await guestbookManager(ns, true);
  await eventually(async () => expect(await leader.mgr.metrics.registry.getSingleMetricAsString('leader_election_master_status')).toContain(`leader_election_master_status{name="${ns}-lease"} 1`));
  // A second replica: same controller, same lease; it waits as a standby.
  const standby = await guestbookManager(ns, true);
  try {
    await client.create(Guestbook, { metadata: { name: 'gb', namespace: ns }, spec: { size: 1 } });
    await eventually(async () => expect((await condition(ns, 'Ready'))?.status).toBe('True'));
    await new Promise((r) => setTimeout(r, 1100)); // the outage lasts a second or more, so "after" reads as one
    await client.patch(Guestbook, { namespace: ns, name: 'gb' }, { type: 'merge', body: { spec: { size: 0 } } });
    await eventually(async () => expect((await condition(ns, 'Ready'))?.status).toBe('False'));

    // Writes that keep lastTransitionTime — a retry, another replica, a reason or message refresh — are no transitions.
    const falseSince = (await condition(ns, 'Ready'))!.lastTransitionTime;
    for (const message of ['size is still 0', 'size is 0']) {
      for (;;) {
        const gb = await client.get(Guestbook, { namespace: ns, name: 'gb' });
        gb.status!.conditions = gb.status!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, reason: 'NoReplicasWanted', message } : c));
        try {
          await client.status().update(Guestbook, gb);
          break;
        } catch (err) {
          if (!isConflict(err)) throw err; // the controller wrote in between
        }
      }
    }
    // The controller puts its own reason back (still no transition: same status, same lastTransitionTime).
    await eventually(async () => expect((await condition(ns, 'Ready'))?.reason).toBe('NoReplicas'));
    const metricsWhileDown = await leader.mgr.metrics.registry.metrics();

    // The recovery.
    await new Promise((r) => setTimeout(r, 1100));
    await client.patch(Guestbook, { namespace: ns, name: 'gb' }, { type: 'merge', body: { spec: { size: 2 } } });
    await eventually(async () => expect((await condition(ns, 'Degraded'))?.status).toBe('False'));

    const events = async () => (await client.list(EventsV1Event, { namespace: ns })).items.filter((e) => e.reportingController === 'guestbook-conditions');
    await eventually(async () => expect(await events()).toHaveLength(6));
    await new Promise((r) => setTimeout(r, 500));
    const after = String.raw`after [1-9]\d*s`;
    expect((await events()).map((e) => `${e.type} ${e.reason} ${e.note}`).sort()).toEqual([
      expect.stringMatching(new RegExp(`^Normal Scaled Degraded: True → False ${after}: 2 replicas \\(was NoReplicas: size is 0\\)$`)),
      'Normal Scaled Degraded: absent → False: 1 replicas',
      expect.stringMatching(new RegExp(`^Normal Scaled Ready: False → True ${after}: 2 replicas \\(was NoReplicas: size is 0\\)$`)),
      'Normal Scaled Ready: absent → True: 1 replicas',
      expect.stringMatching(new RegExp(`^Warning NoReplicas Degraded: False → True ${after}: size is 0 \\(was Scaled: 1 replicas\\)$`)),
      expect.stringMatching(new RegExp(`^Warning NoReplicas Ready: True → False ${after}: size is 0 \\(was Scaled: 1 replicas\\)$`)),
    ]);
    for (const e of await events()) expect(e.series).toBeUndefined();
    // What `kubectl get events --field-selector type=...` shows (the API server's own field selector, core/v1 view):
    // the outage under Warning, the recovery under Normal.
    const kubectlEvents = (type: string) => {
      const r = spawnSync('kubectl', ['get', 'events', '-n', ns, '--field-selector', `type=${type}`, '-o', 'json'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { items: { message: string }[] }).items.map((e) => e.message.replace(/ after \d+s/, '')).sort();
    };
    expect(kubectlEvents('Warning')).toEqual(['Degraded: False → True: size is 0 (was Scaled: 1 replicas)', 'Ready: True → False: size is 0 (was Scaled: 1 replicas)']);
    expect(kubectlEvents('Normal')).toEqual([
      'Degraded: True → False: 2 replicas (was NoReplicas: size is 0)', 'Degraded: absent → False: 1 replicas',
      'Ready: False → True: 2 replicas (was NoReplicas: size is 0)', 'Ready: absent → True: 1 replicas',
    ]);

    expect(series(metricsWhileDown, 'operator_condition_last_transition_time_seconds')).toContain(
      `operator_condition_last_transition_time_seconds{kind="Guestbook",namespace="${ns}",name="gb",type="Ready",status="False",reason="NoReplicas",abnormal="true"} ${Date.parse(falseSince) / 1000}`,
    );
    const text = await leader.mgr.metrics.registry.metrics();
    expect(series(text, 'operator_condition_transitions_total')).toEqual([
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="True",reason="Scaled",abnormal="false"} 2',
      'operator_condition_transitions_total{kind="Guestbook",type="Degraded",status="False",reason="Scaled",abnormal="false"} 2',
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="False",reason="NoReplicas",abnormal="true"} 1',
      'operator_condition_transitions_total{kind="Guestbook",type="Degraded",status="True",reason="NoReplicas",abnormal="true"} 1',
      // Seen on the object, never transitioned into: there at 0.
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="False",reason="NoReplicasWanted",abnormal="true"} 0',
    ]);
    expect(series(text, 'operator_condition_objects')).toEqual([
      'operator_condition_objects{kind="Guestbook",type="Ready",status="True",reason="Scaled",abnormal="false"} 1',
      'operator_condition_objects{kind="Guestbook",type="Degraded",status="False",reason="Scaled",abnormal="false"} 1',
      'operator_condition_objects{kind="Guestbook",type="Ready",status="False",reason="NoReplicas",abnormal="true"} 0',
      'operator_condition_objects{kind="Guestbook",type="Degraded",status="True",reason="NoReplicas",abnormal="true"} 0',
      'operator_condition_objects{kind="Guestbook",type="Ready",status="False",reason="NoReplicasWanted",abnormal="true"} 0',
    ]);
    // Time spent in each state a transition left: True/False (healthy) once each, the outage once each.
    const durations = series(text, 'operator_condition_state_duration_seconds_count').sort();
    expect(durations).toEqual([
      'operator_condition_state_duration_seconds_count{kind="Guestbook",type="Degraded",status="False",abnormal="false"} 1',
      'operator_condition_state_duration_seconds_count{kind="Guestbook",type="Degraded",status="True",abnormal="true"} 1',
      'operator_condition_state_duration_seconds_count{kind="Guestbook",type="Ready",status="False",abnormal="true"} 1',
      'operator_condition_state_duration_seconds_count{kind="Guestbook",type="Ready",status="True",abnormal="false"} 1',
    ]);
    // The outage lasted a second or two (lastTransitionTime has whole seconds).
    const outage = series(text, 'operator_condition_state_duration_seconds_sum').find((l) => l.includes('type="Degraded",status="True"'))!;
    expect(Number(outage.split(' ').at(-1))).toBeGreaterThanOrEqual(1);
    // The standby saw the same objects and counted nothing.
    expect(series(await standby.mgr.metrics.registry.metrics(), 'operator_condition_transitions_total')).toEqual([]);

    await client.delete(Guestbook, { namespace: ns, name: 'gb' });
    await eventually(async () => {
      const gone = await leader.mgr.metrics.registry.metrics();
      expect(series(gone, 'operator_condition_last_transition_time_seconds')).toEqual([]);
      expect(series(gone, 'operator_condition_objects').every((l) => l.endsWith(' 0'))).toBe(true);
    });
  } finally {
    await standby.stop();
    await leader.stop();
  }
});

it("puts k8s.condition.transition on the span of the reconcile that moved the condition, with how long the old status lasted", async () => {
  const ns = 'conditions-traced';
  await client.create(Namespace, { metadata: { name: ns } });
  const spans: FinishedSpan[] = [];
  const tracer = new Tracer({ export: (s) => void spans.push(s), flush: async () => {}, shutdown: async () => {} });
  const { stop } = await guestbookManager(ns, false, tracer);
  const moved = (previous: string) => spans.find((s) => s.name === 'reconcile' && s.events.some((e) => e.attributes['k8s.condition.previous_status'] === previous));
  try {
    await client.create(Guestbook, { metadata: { name: 'gb', namespace: ns }, spec: { size: 2 } });
    await eventually(() => expect(moved('absent')).toBeDefined());
    await new Promise((r) => setTimeout(r, 1100));
    await client.patch(Guestbook, { namespace: ns, name: 'gb' }, { type: 'merge', body: { spec: { size: 0 } } });
    await eventually(() => expect(moved('True')).toBeDefined());
  } finally {
    await stop();
  }
  const reconcile = moved('absent')!;
  expect(reconcile.events).toEqual(['Ready', 'Degraded'].map((type) => ({
    name: 'k8s.condition.transition',
    timeNs: expect.any(BigInt),
    attributes: {
      'k8s.condition.type': type, 'k8s.condition.status': type === 'Ready' ? 'True' : 'False', 'k8s.condition.previous_status': 'absent',
      'k8s.condition.reason': 'Scaled', 'k8s.condition.message': '2 replicas',
    },
  })));
  expect(moved('True')!.events.map((e) => e.attributes)).toContainEqual({
    'k8s.condition.type': 'Ready', 'k8s.condition.status': 'False', 'k8s.condition.previous_status': 'True',
    'k8s.condition.previous_status_duration_seconds': expect.any(Number), 'k8s.condition.reason': 'NoReplicas', 'k8s.condition.message': 'size is 0',
  });
  expect(moved('True')!.events[0]!.attributes['k8s.condition.previous_status_duration_seconds']).toBeGreaterThanOrEqual(1);
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
      'operator_condition_transitions_total{kind="Guestbook",type="Ready",status="True",reason="Scaled",abnormal="false"} 1',
    ]));
    await new Promise((r) => setTimeout(r, 500));
    expect((await client.list(EventsV1Event, { namespace: ns })).items).toEqual([]);
  } finally {
    ctl.abort();
    await done;
  }
});

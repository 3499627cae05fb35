// createOrUpdate / createOrPatch, in-place conditions, status apply and the event recorder's RBAC
// handling, all against a real kube-apiserver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, Event as CoreEvent } from '../api/builtins.js';
import { groupVersion } from '../api/kind.js';
import type { Condition, KubeObject } from '../api/types.js';
import { createClient, type Client } from '../client/client.js';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { createEventRecorder, EVENTS_RBAC_MARKER, EventsV1Event } from '../events/index.js';
import { createLogger } from '../log/index.js';
import { setConditions, removeConditions } from './conditions.js';
import { createOrPatch, createOrUpdate, mergePatchFrom, MutateChangedKeyError } from './create-or-update.js';

interface Gizmo extends KubeObject {
  spec?: { size?: number; labels?: string[] };
  status?: { phase?: string; conditions?: Condition[] };
}
// The CRD below spells its plural 'gizmos'; kind()'s default pluraliser (flect's rules) says 'gizmoes'.
const Gizmo = groupVersion('helpers.opgen.dev', 'v1').kind<Gizmo>('Gizmo', { plural: 'gizmos' });
const rbac = groupVersion('rbac.authorization.k8s.io', 'v1');
const ClusterRole = rbac.kind<KubeObject & { rules: object[] }>('ClusterRole', { namespaced: false });
const ClusterRoleBinding = rbac.kind<KubeObject & { roleRef: object; subjects: object[] }>('ClusterRoleBinding', { namespaced: false });

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gizmos.helpers.opgen.dev }
spec:
  group: helpers.opgen.dev
  names: { kind: Gizmo, listKind: GizmoList, plural: gizmos, singular: gizmo }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

let env: TestEnv;
let client: Client;
const scratch = mkdtempSync(join(tmpdir(), 'opgen-helpers-'));

beforeAll(async () => {
  writeFileSync(join(scratch, 'crd.yaml'), crd);
  env = await startTestEnv({ crdPaths: [join(scratch, 'crd.yaml')] });
  client = createClient(env.kubeConfig);
});
afterAll(async () => {
  await env?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('createOrUpdate', () => {
  it('creates, then leaves an unchanged object alone, then updates; the object ends as the server has it', async () => {
    const want = (data: Record<string, string>) => (cm: ConfigMap) => { cm.data = { ...cm.data, ...data }; };
    const cm: ConfigMap = { metadata: { name: 'cou', namespace: 'default' } };
    expect(await createOrUpdate(client, ConfigMap, cm, want({ a: '1' }))).toBe('created');
    expect(cm.metadata?.uid).toBeTruthy();
    const created = cm.metadata?.resourceVersion;

    const again: ConfigMap = { metadata: { name: 'cou', namespace: 'default' } };
    expect(await createOrUpdate(client, ConfigMap, again, want({ a: '1' }))).toBe('unchanged');
    expect(again.metadata?.resourceVersion).toBe(created);
    expect(again.data).toEqual({ a: '1' });

    expect(await createOrUpdate(client, ConfigMap, again, want({ b: '2' }))).toBe('updated');
    expect(again.metadata?.resourceVersion).not.toBe(created);
    expect((await client.get(ConfigMap, { name: 'cou', namespace: 'default' })).data).toEqual({ a: '1', b: '2' });
  });

  it('refuses a mutate that renames the object, writing nothing', async () => {
    const cm: ConfigMap = { metadata: { name: 'renamed', namespace: 'default' } };
    await expect(createOrUpdate(client, ConfigMap, cm, (o) => { o.metadata = { ...o.metadata, name: 'other' }; }))
      .rejects.toThrow(MutateChangedKeyError);
    await expect(client.get(ConfigMap, { name: 'other', namespace: 'default' })).rejects.toThrow();
    await expect(client.get(ConfigMap, { name: 'renamed', namespace: 'default' })).rejects.toThrow();
  });
});

describe('createOrPatch', () => {
  it('creates with status, patches only what mutate changed (spec and status separately), and reports unchanged', async () => {
    const g: Gizmo = { apiVersion: Gizmo.apiVersion, kind: 'Gizmo', metadata: { name: 'cop', namespace: 'default' } };
    expect(await createOrPatch(client, Gizmo, g, (o) => { o.spec = { size: 1, labels: ['a'] }; o.status = { phase: 'New' }; })).toBe('created');
    expect((await client.get(Gizmo, { name: 'cop', namespace: 'default' })).status).toEqual({ phase: 'New' });

    // A concurrent writer's field survives: a merge patch carries only what mutate changed.
    await client.patch(Gizmo, { name: 'cop', namespace: 'default' }, { type: 'merge', body: { metadata: { labels: { other: 'writer' } } } });
    const stale: Gizmo = { metadata: { name: 'cop', namespace: 'default' } };
    expect(await createOrPatch(client, Gizmo, stale, (o) => { o.spec = { ...o.spec, size: 2 }; o.status = { phase: 'Ready' }; })).toBe('updated');
    const stored = await client.get(Gizmo, { name: 'cop', namespace: 'default' });
    expect(stored.spec).toEqual({ size: 2, labels: ['a'] });
    expect(stored.status).toEqual({ phase: 'Ready' });
    expect(stored.metadata?.labels).toEqual({ other: 'writer' });
    expect(await createOrPatch(client, Gizmo, { metadata: { name: 'cop', namespace: 'default' } }, (o) => { o.spec = { ...o.spec, size: 2 }; })).toBe('unchanged');
  });

  it('computes RFC 7386 merge patches', () => {
    expect(mergePatchFrom({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { a: 1, b: { c: 2 }, e: [1, 2], f: 'x' })).toEqual({ b: { c: 2, d: null }, e: [1, 2], f: 'x' });
    expect(mergePatchFrom({ a: { b: 1 } }, { a: { b: 1 } })).toEqual({});
  });
});

describe('conditions in place', () => {
  it('sets several conditions at once with observedGeneration from metadata.generation, and writes status by server-side apply', async () => {
    const g = await client.create(Gizmo, { apiVersion: Gizmo.apiVersion, kind: 'Gizmo', metadata: { name: 'cond', namespace: 'default' }, spec: { size: 1 } });
    const changed = setConditions(g,
      { type: 'Available', status: 'True', reason: 'Ready', message: 'all up' },
      { type: 'Progressing', status: 'False', reason: 'Done', message: '' },
      { type: 'Degraded', status: 'False', reason: 'Ready', message: '', observedGeneration: 7 });
    expect(changed).toBe(true);
    expect(g.status?.conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([['Available', 1], ['Progressing', 1], ['Degraded', 7]]);
    expect(setConditions(g, { type: 'Available', status: 'True', reason: 'Ready', message: 'all up' })).toBe(false);

    // Server-side apply of the status subresource, as a field manager that owns only the conditions.
    await client.status().apply(Gizmo, { apiVersion: Gizmo.apiVersion, kind: 'Gizmo', metadata: { name: 'cond', namespace: 'default' }, status: { conditions: g.status?.conditions } }, { fieldManager: 'helpers-test', force: true });
    const stored = await client.get(Gizmo, { name: 'cond', namespace: 'default' });
    expect(stored.status?.conditions?.map((c) => c.type)).toEqual(['Available', 'Progressing', 'Degraded']);
    expect(stored.status?.conditions?.[0]?.observedGeneration).toBe(stored.metadata?.generation);

    expect(removeConditions(stored, 'Progressing', 'Missing')).toBe(true);
    expect(stored.status?.conditions?.map((c) => c.type)).toEqual(['Available', 'Degraded']);
    expect(removeConditions(stored, 'Missing')).toBe(false);
  });
});

describe('event recorder', () => {
  async function userWith(name: string, rules: object[]): Promise<Client> {
    await client.create(ClusterRole, { metadata: { name }, rules });
    await client.create(ClusterRoleBinding, {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
    });
    return createClient(env.addUser({ name }));
  }
  const record = async (writer: Client, lines: string[], count: number, subject: KubeObject) => {
    const writes: Promise<unknown>[] = [];
    const recorder = createEventRecorder({ name: 'helpers-test', writer, log: createLogger({ level: 'debug', write: (l) => lines.push(l) }), track: (p) => writes.push(p) });
    for (let i = 0; i < count; i++) recorder.eventf(subject, 'Warning', 'ScaleFailed', 'cannot scale %s to %d replicas (%j)', 'web', i, { try: i });
    await Promise.all(writes);
  };

  it('formats notes printf-style and writes events.k8s.io/v1 with the scaffold\'s marker', async () => {
    const cm = await client.create(ConfigMap, { metadata: { name: 'ev-subject', namespace: 'default' } });
    const writer = await userWith('events-v1-writer', [{ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] }]);
    const lines: string[] = [];
    await record(writer, lines, 1, cm);
    const events = (await client.list(EventsV1Event, { namespace: 'default' })).items.filter((e) => e.regarding?.uid === cm.metadata?.uid);
    expect(events.map((e) => e.note)).toEqual(['cannot scale web to 0 replicas ({"try":0})']);
    expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it('falls back to core/v1 events when only those are allowed (kubebuilder\'s groups=core marker), saying so once', async () => {
    const cm = await client.create(ConfigMap, { metadata: { name: 'ev-core', namespace: 'default' } });
    const writer = await userWith('core-events-writer', [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }]);
    const lines: string[] = [];
    await record(writer, lines, 2, cm);
    const events = (await client.list(CoreEvent, { namespace: 'default' })).items.filter((e) => e.involvedObject.uid === cm.metadata?.uid);
    expect(events.map((e) => e.message).sort()).toEqual(['cannot scale web to 0 replicas ({"try":0})', 'cannot scale web to 1 replicas ({"try":1})']);
    expect(events[0]?.source?.component).toBe('helpers-test');
    const notices = lines.filter((l) => l.includes('recording core/v1 events'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(EVENTS_RBAC_MARKER);
  });

  it('reports a manager that may write no events once, with the marker that fixes it', async () => {
    const cm = await client.create(ConfigMap, { metadata: { name: 'ev-denied', namespace: 'default' } });
    const writer = await userWith('no-events', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    const lines: string[] = [];
    await record(writer, lines, 3, cm);
    const errors = lines.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('events are not being recorded: the manager may not create events');
    expect(errors[0]).toContain(`// ${EVENTS_RBAC_MARKER}`);
    expect(lines.filter((l) => l.includes('event not recorded: forbidden'))).toHaveLength(2);
  });
});

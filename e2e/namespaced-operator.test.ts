// A namespace-scoped operator on a real API server, as its own service account with only the RBAC its
// config/ renders: `opgen init --namespaced`, a controller that writes ConfigMaps, `opgen generate`,
// `kubectl kustomize config/default`; the RBAC objects are applied, the compiled src/main.ts runs with
// the service account's token and WATCH_NAMESPACE. The API server's audit log is the witness for what
// the operator asked for (every list and watch must name its namespace).
// Needs `npm run build` (the scaffolded project links this repository's node_modules, whose
// @opgen/runtime is the built workspace package).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createClient, groupVersion, isNotFound, type Client, type KubeObject } from '@opgen/runtime';
import { coordinationv1, corev1, rbacv1 } from '@opgen/runtime/kubernetes';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { renderKustomize } from '../src/kustomize/render.js';
import { opgen as opgenIn } from '../src/testdata/cli.js';
import { freePort, repoRoot, waitFor } from './helpers.js';
import { writeServiceAccountKubeconfig } from '../src/testdata/service-account.js';

const PROJECT = 'memcached-operator';
const NS = `${PROJECT}-system`;
const OTHER = 'team-b';
const SA_USER = `system:serviceaccount:${NS}:${PROJECT}-controller-manager`;
const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind<KubeObject & { spec?: { targetNamespace?: string } }>('Memcached', { plural: 'memcacheds' });

// What a user writes: the ConfigMap goes to spec.targetNamespace (default: the Memcached's own). The
// markers carry namespace=, as `opgen create api` scaffolds them in a namespaced project.
const CONTROLLER = `import { type Client, type Manager, type ReconcileContext, type Reconciler, type Request, Result, ignoreNotFound, setControllerReference } from '@opgen/runtime';
import { corev1 } from '@opgen/runtime/kubernetes';
import { Memcached } from '../api/v1alpha1/memcached-types.js';

// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete,namespace=${NS}
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch,namespace=${NS}
// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get;list;watch;create;update;patch;delete,namespace=${NS}

export class MemcachedReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    let memcached: Memcached;
    try {
      memcached = await this.client.get(Memcached, req, { signal: ctx.signal });
    } catch (err) {
      ignoreNotFound(err);
      return Result.done();
    }
    const namespace = memcached.spec?.targetNamespace ?? req.namespace;
    ctx.log.info('reconciling', { targetNamespace: namespace });
    const cm: corev1.ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: req.name + '-config', namespace }, data: { owner: req.name } };
    if (namespace === req.namespace) setControllerReference(memcached, cm, Memcached);
    await this.client.apply(corev1.ConfigMap, cm, { fieldManager: '${PROJECT}', force: true, signal: ctx.signal });
    return Result.done();
  }

  setupWithManager(mgr: Manager): void {
    mgr.controllerFor(Memcached).owns(corev1.ConfigMap).named('memcached').complete(this);
  }
}
`;

interface LogLine {
  level: string;
  msg: string;
  namespace?: string;
  error?: string;
  [key: string]: unknown;
}

interface AuditEvent {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; apiGroup?: string };
  responseStatus?: { code?: number };
  stage: string;
}

describe('a namespace-scoped operator on a real API server, as its service account', () => {
  let work: string;
  let project: string;
  let env: TestEnv;
  let admin: Client;
  let auditLog: string;
  let saKubeconfig: string;

  const opgen = async (...argv: string[]) => {
    const r = await opgenIn(project, ...argv);
    expect(r.code, `opgen ${argv.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
  };

  const startManager = (watch: string, port: number): { proc: ResultPromise; log: () => LogLine[]; text: () => string } => {
    let text = '';
    const proc = execa(process.execPath, ['dist/main.js', '--leader-elect', `--leader-election-namespace=${NS}`, `--health-probe-bind-address=127.0.0.1:${port}`], {
      cwd: project,
      reject: false,
      all: true,
      env: { ...process.env, KUBECONFIG: saKubeconfig, WATCH_NAMESPACE: watch, OPGEN_LOG_LEVEL: 'debug' },
    });
    proc.all?.on('data', (chunk: Buffer) => void (text += chunk.toString()));
    const log = () => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
    return { proc, log, text: () => text };
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-namespaced-'));
    project = join(work, PROJECT);
    mkdirSync(project);
    await opgen('init', '--domain', 'example.com', '--namespaced', '--skip-install');
    await opgen('create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    const typesFile = join(project, 'src/api/v1alpha1/memcached-types.ts');
    writeFileSync(typesFile, readFileSync(typesFile, 'utf8').replace('  foo?: string;', '  targetNamespace?: string;'));
    writeFileSync(join(project, 'src/controller/memcached-controller.ts'), CONTROLLER);
    await opgen('generate');
    symlinkSync(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir');
    const tsc = await execa(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: project, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);

    // Metadata of every request, to see what the operator asked for.
    const policy = join(work, 'audit-policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    auditLog = join(work, 'audit.log');
    env = await startTestEnv({ crdPaths: [join(project, 'config/crd/bases')], apiServerFlags: { 'audit-policy-file': policy, 'audit-log-path': auditLog } });
    admin = createClient(env.kubeConfig);

    // The operator's namespace, service account and RBAC exactly as config/default renders them.
    const objects = await renderKustomize({ cwd: project, dir: 'config/default' });
    const rbac = objects.filter((o) => ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind ?? ''));
    const rbacFile = join(work, 'rbac.yaml');
    writeFileSync(rbacFile, rbac.map((o) => `---\n${stringify(o)}`).join(''));
    const applied = await execa('kubectl', ['apply', '--server-side', '-f', rbacFile, '--kubeconfig', env.kubeconfigPath], { reject: false, all: true });
    expect(applied.exitCode, applied.all).toBe(0);
    await admin.create(corev1.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER } });

    saKubeconfig = await writeServiceAccountKubeconfig(env, NS, `${PROJECT}-controller-manager`, work);
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    if (work && process.env.OPGEN_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  });

  it('renders only Roles for the manager, bound in its namespace', async () => {
    const objects = await renderKustomize({ cwd: project, dir: 'config/default' });
    const role = objects.find((o) => o.metadata?.name === `${PROJECT}-manager-role`);
    expect(role?.kind).toBe('Role');
    expect(role?.metadata?.namespace).toBe(NS);
    expect(objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata?.name).sort()).toEqual([`${PROJECT}-metrics-auth-role`, `${PROJECT}-metrics-reader`]);
  });

  it('reconciles in its namespace, is denied outside it and says so once, never lists cluster-wide', async () => {
    const port = await freePort();
    const manager = startManager(NS, port);
    try {
      // Created first, so a cluster-wide watch would have seen it by the time the others are done.
      await admin.create(Memcached, { apiVersion: Memcached.apiVersion, kind: 'Memcached', metadata: { name: 'outsider', namespace: OTHER } });
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true, manager.text);
      expect(manager.log().find((l) => l.msg === 'watching namespaces')?.namespaces).toBe(NS);

      // In its namespace, with only the generated Role: the owned ConfigMap appears.
      await admin.create(Memcached, { apiVersion: Memcached.apiVersion, kind: 'Memcached', metadata: { name: 'inside', namespace: NS } });
      await waitFor(async () => (await admin.get(corev1.ConfigMap, { namespace: NS, name: 'inside-config' }).catch(() => undefined)) !== undefined, manager.text);
      const cm = await admin.get(corev1.ConfigMap, { namespace: NS, name: 'inside-config' });
      expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Memcached', name: 'inside', controller: true });
      expect(cm.metadata?.managedFields?.map((f) => f.manager)).toContain(PROJECT);

      // Leader election stayed in the operator's namespace.
      const leases = await admin.list(coordinationv1.Lease, { namespace: NS });
      expect(leases.items.map((l) => l.spec?.holderIdentity ?? '')).toEqual([expect.any(String)]);

      // Asked to write outside its namespace: the API server refuses; the log says so once, while the
      // controller keeps retrying with backoff (the debug lines count the repeats).
      await admin.create(Memcached, { apiVersion: Memcached.apiVersion, kind: 'Memcached', metadata: { name: 'reach-out', namespace: NS }, spec: { targetNamespace: OTHER } });
      const denials = () => manager.log().filter((l) => l.msg.startsWith('Reconciler error: access denied') && l.name === 'reach-out');
      await waitFor(async () => denials().length >= 4, manager.text);
      const [first, ...repeats] = denials();
      expect(first!.level).toBe('error');
      expect(first!.error).toMatch(new RegExp(`configmaps "reach-out-config" is forbidden: User "${SA_USER}" cannot patch resource "configmaps" in API group "" in the namespace "${OTHER}"`));
      expect(first!.hint).toMatch(new RegExp(`watches namespaces ${NS} \\(WATCH_NAMESPACE\\)`));
      expect(repeats.map((l) => l.level)).toEqual(repeats.map(() => 'debug'));
      expect(manager.log().filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['Reconciler error: access denied (reported once; retried with backoff)']);
      await expect(admin.get(corev1.ConfigMap, { namespace: OTHER, name: 'reach-out-config' })).rejects.toSatisfy(isNotFound);

      // The Memcached in the other namespace was never seen.
      expect(manager.log().filter((l) => l.namespace === OTHER)).toEqual([]);
      await expect(admin.get(corev1.ConfigMap, { namespace: OTHER, name: 'outsider-config' })).rejects.toSatisfy(isNotFound);

      // A Role bound there ends the refusal; refused again after it is removed, the log says so again
      // (once per episode, not once per process).
      let bump = 0;
      const touch = async () => {
        const m = await admin.get(Memcached, { namespace: NS, name: 'reach-out' });
        await admin.update(Memcached, { ...m, metadata: { ...m.metadata, labels: { bump: String(++bump) } } });
      };
      const grant = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'reach-out-grant', namespace: OTHER } };
      await admin.create(rbacv1.Role, { ...grant, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch', 'create'] }] });
      await admin.create(rbacv1.RoleBinding, { ...grant, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reach-out-grant' }, subjects: [{ kind: 'ServiceAccount', name: `${PROJECT}-controller-manager`, namespace: NS }] });
      await waitFor(async () => {
        await touch();
        return (await admin.get(corev1.ConfigMap, { namespace: OTHER, name: 'reach-out-config' }).catch(() => undefined)) !== undefined;
      }, manager.text);
      await admin.delete(rbacv1.RoleBinding, { namespace: OTHER, name: 'reach-out-grant' });
      await waitFor(async () => {
        await touch();
        return denials().filter((l) => l.level === 'error').length === 2;
      }, manager.text);
      await admin.delete(rbacv1.Role, { namespace: OTHER, name: 'reach-out-grant' });
      await admin.delete(corev1.ConfigMap, { namespace: OTHER, name: 'reach-out-config' });
    } finally {
      manager.proc.kill('SIGTERM');
    }
    const exit = await manager.proc;
    expect(exit.exitCode, manager.text()).toBe(0);

    // The API server's record of the service account's requests.
    const events = readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent)
      .filter((e) => e.user.username === SA_USER);
    const reads = events.filter((e) => e.verb === 'list' || e.verb === 'watch');
    expect(new Set(reads.map((e) => `${e.verb} ${e.objectRef?.resource}`))).toEqual(new Set(['list memcacheds', 'watch memcacheds', 'list configmaps', 'watch configmaps']));
    expect(reads.filter((e) => e.objectRef?.namespace !== NS)).toEqual([]);
    expect(events.filter((e) => e.objectRef?.resource === 'leases').map((e) => e.objectRef?.namespace)).toEqual(expect.arrayContaining([NS]));
    expect(events.filter((e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace !== NS)).toEqual([]);
    expect(manager.log().filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(Array(2).fill('Reconciler error: access denied (reported once; retried with backoff)'));
    const refused = events.filter((e) => e.responseStatus?.code === 403);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused.filter((e) => !(e.objectRef?.resource === 'configmaps' && e.objectRef.namespace === OTHER))).toEqual([]);
  }, 180_000);

  it('told to watch a namespace its Role does not cover: one clear line per kind, quiet retries, then works once the Role is bound there', async () => {
    const port = await freePort();
    const manager = startManager(`${NS},${OTHER}`, port);
    const forbidden = () => manager.log().filter((l) => l.msg.startsWith('forbidden to list/watch') || l.msg === 'list/watch still forbidden');
    try {
      // Each informer retries after 0.8, 1.6, 3.2 s...: wait for a repeat of both kinds.
      await waitFor(async () => forbidden().filter((l) => l.level === 'debug').length >= 2 && forbidden().filter((l) => l.level === 'error').length >= 2, manager.text);
      const errors = forbidden().filter((l) => l.level === 'error');
      expect(errors.map((l) => l.msg).sort()).toEqual([
        `forbidden to list/watch configmaps in namespace "${OTHER}": bind the operator's Role there (config/rbac) or drop the namespace from WATCH_NAMESPACE; retrying quietly`,
        `forbidden to list/watch memcacheds.cache.example.com in namespace "${OTHER}": bind the operator's Role there (config/rbac) or drop the namespace from WATCH_NAMESPACE; retrying quietly`,
      ]);
      expect(errors.every((l) => l.namespace === OTHER && /is forbidden: User "system:serviceaccount:/.test(l.error ?? ''))).toBe(true);

      // docs/multi-tenancy.md: a copy of the generated Role and its binding in the other namespace.
      const objects = await renderKustomize({ cwd: project, dir: 'config/default' });
      const role = objects.find((o) => o.kind === 'Role' && o.metadata?.name === `${PROJECT}-manager-role`)!;
      const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata?.name === `${PROJECT}-manager-rolebinding`)!;
      const copies = join(work, 'team-b-rbac.yaml');
      writeFileSync(copies, [role, binding].map((o) => `---\n${stringify({ ...o, metadata: { ...o.metadata, namespace: OTHER } })}`).join(''));
      const applied = await execa('kubectl', ['apply', '--server-side', '-f', copies, '--kubeconfig', env.kubeconfigPath], { reject: false, all: true });
      expect(applied.exitCode, applied.all).toBe(0);

      await waitFor(async () => manager.log().filter((l) => l.msg === 'list/watch allowed again' && l.namespace === OTHER).length === 2, manager.text);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true, manager.text);
      // Both the Memcached in team-b and the one writing there from its own namespace now succeed.
      for (const name of ['outsider-config', 'reach-out-config']) {
        await waitFor(async () => (await admin.get(corev1.ConfigMap, { namespace: OTHER, name }).catch(() => undefined)) !== undefined, manager.text);
      }
    } finally {
      manager.proc.kill('SIGTERM');
      await manager.proc;
    }
    expect(forbidden().filter((l) => l.level === 'error')).toHaveLength(2);
  }, 120_000);
});

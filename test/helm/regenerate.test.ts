// Regenerating a chart the user has edited: `opgen generate helm` three-way merges (base: the last
// generated file under dist/chart/.opgen/) so the user's edits to values.yaml, a template and NOTES.txt
// survive a regeneration that brings generated changes to the same files; a conflicting edit is reported
// with file:line and left between markers; --force takes the generated files; a folder that is not
// opgen's chart is refused. helm lint judges the merged chart. One project, steps in order.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { snapshot } from '../../src/testdata/files.js';
import { helm, helmBinary, opgen, opgenOk } from './helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let work: string;
let project: string;
const chartFile = (p: string): string => join(project, 'dist/chart', p);
const read = (p: string): string => readFileSync(join(project, p), 'utf8');
const write = (p: string, text: string): void => writeFileSync(join(project, p), text);
function edit(p: string, from: string | RegExp, to: string): void {
  const text = read(p);
  expect(text, p).toMatch(from);
  write(p, text.replace(from, to));
}

async function rendered(...set: string[]): Promise<Obj[]> {
  const r = await helm(project, 'template', 'memcached-operator', 'dist/chart', '--namespace', 'memcached-operator-system', ...set.flatMap((s) => ['--set', s]));
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

async function lint(): Promise<void> {
  const r = await helm(project, 'lint', '--strict', 'dist/chart');
  expect(r.exitCode, r.stdout + r.stderr).toBe(0);
}

beforeAll(async () => {
  helmBinary();
  work = mkdtempSync(join(tmpdir(), 'opgen-helm-regenerate-'));
  project = join(work, 'memcached-operator');
  mkdirSync(project);
  await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
  await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
  await opgenOk(project, 'generate');
  await opgenOk(project, 'generate', 'helm');
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('opgen generate helm on a chart the user edited', () => {
  it('(a project without webhooks) lints with each toggle, has no webhook values, and helm package leaves .opgen/ out', async () => {
    const values = parse(read('dist/chart/values.yaml'));
    expect(values).not.toHaveProperty('webhook');
    expect(values.certManager).toEqual({ enabled: false });
    const toggles = [[], ['certManager.enabled=true'], ['rbac.namespaced=true'], ['prometheus.enabled=true'], ['networkPolicy.enabled=true'], ['metrics.enabled=false'], ['metrics.secure=false', 'certManager.enabled=true']];
    const results = await Promise.all(toggles.map((set) => helm(project, 'lint', '--strict', 'dist/chart', ...set.flatMap((x) => ['--set', x]))));
    results.forEach((r, i) => expect(r.exitCode, `${toggles[i]!.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0));
    const certs = await rendered('certManager.enabled=true');
    expect(certs.filter((o) => o.apiVersion === 'cert-manager.io/v1').map((o) => `${o.kind} ${o.metadata.name}`).sort()).toEqual(['Certificate memcached-operator-metrics-certs', 'Issuer memcached-operator-selfsigned-issuer']);
    const webhook = await helm(project, 'template', 'dist/chart', '--set', 'webhook.enabled=true');
    expect(webhook.exitCode).not.toBe(0);
    expect(webhook.stderr).toContain("additional properties 'webhook' not allowed");
    const packaged = await helm(project, 'package', 'dist/chart', '--destination', work);
    expect(packaged.exitCode, packaged.stderr).toBe(0);
    const listing = String((await execa('tar', ['tzf', join(work, 'memcached-operator-0.1.0.tgz')])).stdout).split('\n');
    expect(listing).toContain('memcached-operator/values.yaml');
    expect(listing.filter((f) => f.includes('.opgen'))).toEqual([]);
  });

  it('keeps the user\'s edits to values.yaml, a template and NOTES.txt alongside the generated changes to the same files', async () => {
    // The user's edits.
    edit('dist/chart/values.yaml', /^ {2}replicas: 1$/m, '  replicas: 2');
    edit('dist/chart/templates/rbac/manager-role.yaml', /^rules:\n/m, '# Reviewed by the platform team.\nrules:\n');
    write('dist/chart/templates/rbac/manager-role.yaml', `${read('dist/chart/templates/rbac/manager-role.yaml')}- apiGroups:\n  - ""\n  resources:\n  - configmaps\n  verbs:\n  - get\n`);
    write('dist/chart/templates/NOTES.txt', `${read('dist/chart/templates/NOTES.txt')}\nSupport: #memcached-operator on the team chat.\n`);
    edit('dist/chart/Chart.yaml', /^version: 0\.1\.0$/m, 'version: 0.2.0');
    // Generated changes in those files: a second API (a CRD, its rules in the manager role, a line in
    // NOTES.txt), a larger memory limit in config/manager (values.yaml), and a ConfigMap added to config/.
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Backup');
    await opgenOk(project, 'generate');
    edit('config/manager/manager.yaml', /memory: 256Mi/, 'memory: 512Mi');
    write('config/default/operator-config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: operator-config\ndata:\n  greeting: "{{ not a template }}"\n');
    edit('config/default/kustomization.yaml', /^- metrics_service\.yaml$/m, '- metrics_service.yaml\n- operator-config.yaml');

    const before = read('dist/chart/values.yaml');
    const r = await opgen(project, 'generate', 'helm');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('UPDATE dist/chart/values.yaml');
    expect(r.stdout).toContain('CREATE dist/chart/templates/crd/backups.cache.example.com.yaml');
    expect(r.stdout).toContain('CREATE dist/chart/templates/extras/configmap-operator-config.yaml');
    expect(r.stdout).not.toContain('Chart.yaml');

    const values = read('dist/chart/values.yaml');
    expect(values).not.toBe(before);
    expect(values).toContain('  replicas: 2\n');
    expect(parse(values).manager.resources.limits.memory).toBe('512Mi');
    const role = read('dist/chart/templates/rbac/manager-role.yaml');
    expect(role).toContain('# Reviewed by the platform team.\n');
    expect(role).toContain('  - backups\n');
    expect(role).toMatch(/- configmaps\n {2}verbs:\n {2}- get\n$/);
    const notes = read('dist/chart/templates/NOTES.txt');
    expect(notes).toContain('kubectl get backups.cache.example.com -A');
    expect(notes).toContain('Support: #memcached-operator on the team chat.');
    expect(read('dist/chart/Chart.yaml')).toContain('version: 0.2.0');
    expect(read('dist/chart/.opgen/values.yaml')).not.toContain('replicas: 2');

    // The merged chart is still a chart, and renders both sides' changes.
    await lint();
    const objects = await rendered();
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0].resources.limits.memory).toBe('512Mi');
    const managerRole = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'memcached-operator-manager-role')!;
    expect(managerRole.rules.some((rule: Obj) => rule.resources.includes('backups'))).toBe(true);
    expect(managerRole.rules).toContainEqual({ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] });
    const config = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(config.metadata).toMatchObject({ name: 'memcached-operator-operator-config', namespace: 'memcached-operator-system' });
    expect(config.data).toEqual({ greeting: '{{ not a template }}' });
  });

  it('regenerating with nothing new changes nothing', async () => {
    const before = snapshot(project);
    const r = await opgen(project, 'generate', 'helm');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(snapshot(project)).toEqual(before);
  });

  it('reports a conflicting edit with file:line, leaves both sides between markers and exits 1', async () => {
    edit('dist/chart/values.yaml', /memory: 512Mi/, 'memory: 1Gi');
    edit('config/manager/manager.yaml', /memory: 512Mi/, 'memory: 768Mi');
    // A change elsewhere in the same run still lands.
    edit('config/manager/manager.yaml', /terminationGracePeriodSeconds: 40/, 'terminationGracePeriodSeconds: 15');
    const r = await opgen(project, 'generate', 'helm');
    expect(r.code).toBe(1);
    const values = read('dist/chart/values.yaml');
    const lines = values.split('\n');
    const at = lines.findIndex((l) => l.startsWith('<<<<<<< ')) + 1;
    expect(at).toBeGreaterThan(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `dist/chart/values.yaml:${at}: conflict: your edit and the generated change overlap; keep what you want between <<<<<<< and >>>>>>> and delete the markers (or pass --force to take the generated file)`,
    ]);
    expect(lines.slice(at - 1, at + 4)).toEqual(['<<<<<<< yours (dist/chart/values.yaml)', '      memory: 1Gi', '=======', '      memory: 768Mi', '>>>>>>> generated']);
    expect(values).toContain('terminationGracePeriodSeconds: 15');
    expect(values).toContain('  replicas: 2\n');
    // The base moved on: resolving the markers is all that is left to do.
    expect(read('dist/chart/.opgen/values.yaml')).toContain('memory: 768Mi');
  });

  it('refuses to merge again while the markers are in the file, and writes nothing', async () => {
    const before = snapshot(project);
    const r = await opgen(project, 'generate', 'helm');
    expect(r.code).toBe(1);
    const at = read('dist/chart/values.yaml').split('\n').findIndex((l) => l.startsWith('<<<<<<< ')) + 1;
    expect(r.stderr.trim()).toBe(`dist/chart/values.yaml:${at}: error: unresolved conflict from the last regeneration (resolve it and delete the markers, or pass --force to take the generated file)`);
    expect(snapshot(project)).toEqual(before);
  });

  it('--dry-run lists what --force would change and writes nothing', async () => {
    const before = snapshot(project);
    const r = await opgen(project, 'generate', 'helm', '--force', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('UPDATE dist/chart/values.yaml');
    expect(r.stdout).toContain('dry run: nothing was written');
    expect(snapshot(project)).toEqual(before);
  });

  it('--force takes the generated version of every file (Chart.yaml stays the user\'s)', async () => {
    const r = await opgen(project, 'generate', 'helm', '--force');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const p of ['values.yaml', 'templates/rbac/manager-role.yaml', 'templates/NOTES.txt']) {
      expect(readFileSync(chartFile(p), 'utf8'), p).toBe(readFileSync(chartFile(`.opgen/${p}`), 'utf8'));
    }
    const values = parse(read('dist/chart/values.yaml'));
    expect(values.manager.resources.limits).toEqual({ cpu: '500m', memory: '768Mi' });
    expect(values.manager.terminationGracePeriodSeconds).toBe(15);
    expect(values.manager.replicas).toBe(1);
    expect(read('dist/chart/templates/NOTES.txt')).not.toContain('Support:');
    expect(read('dist/chart/Chart.yaml')).toContain('version: 0.2.0');
    await lint();
  });

  it('leaves a file you deleted deleted, and deletes a file no longer generated', async () => {
    rmSync(chartFile('templates/network-policy/allow-metrics-traffic.yaml'));
    edit('config/default/kustomization.yaml', /^- operator-config\.yaml\n/m, '');
    const r = await opgen(project, 'generate', 'helm');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('DELETE dist/chart/templates/extras/configmap-operator-config.yaml');
    expect(Object.keys(snapshot(join(project, 'dist/chart'))).filter((f) => f.includes('configmap-operator-config') || f.startsWith('templates/network-policy/allow-metrics'))).toEqual([]);
    expect(readFileSync(chartFile('.opgen/templates/network-policy/allow-metrics-traffic.yaml'), 'utf8')).toContain('NetworkPolicy');
    await lint();
  });

  it('refuses a folder that is not opgen\'s chart in one line, and writes nothing', async () => {
    mkdirSync(join(project, 'charts/theirs/templates'), { recursive: true });
    write('charts/theirs/Chart.yaml', 'apiVersion: v2\nname: theirs\nversion: 1.0.0\n');
    const before = snapshot(project);
    const r = await opgen(project, 'generate', 'helm', '--output-dir', 'charts/theirs');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('charts/theirs: error: charts/theirs exists and is not a chart opgen generated (it has no charts/theirs/.opgen/) (pass --output-dir with another folder, or move charts/theirs away)\n');
    expect(snapshot(project)).toEqual(before);
    const outside = await opgen(project, 'generate', 'helm', '--output-dir', '../elsewhere');
    expect(outside.code).toBe(1);
    expect(outside.stderr).toBe("--output-dir: error: '../elsewhere' is not a folder inside the project (pass a folder such as dist/chart)\n");
    expect(snapshot(project)).toEqual(before);
  });
});

describe('opgen generate helm on a namespace-scoped project (opgen init --namespaced)', () => {
  it('defaults rbac.namespaced to true, and rbac.namespaced=false turns its Roles into ClusterRoles', async () => {
    const dir = join(work, 'tenant-operator');
    mkdirSync(dir);
    await opgenOk(dir, 'init', '--domain', 'example.com', '--namespaced', '--skip-install');
    await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    await opgenOk(dir, 'generate');
    await opgenOk(dir, 'generate', 'helm');
    const values = parse(readFileSync(join(dir, 'dist/chart/values.yaml'), 'utf8'));
    expect(values.rbac.namespaced).toBe(true);
    // The chart sets WATCH_NAMESPACE itself (from rbac.namespaced), so config's copy stays out of manager.env.
    expect(values.manager.env).toEqual([]);
    const template = async (...set: string[]): Promise<Obj[]> => {
      const r = await helm(dir, 'template', 'tenant-operator', 'dist/chart', '--namespace', 'tenants', '--set', 'rbac.helpers.enabled=true', ...set.flatMap((x) => ['--set', x]));
      expect(r.exitCode, r.stderr).toBe(0);
      return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj).filter((o) => o !== null);
    };
    const scope = (objects: Obj[]): string[] => objects.filter((o) => /Role/.test(o.kind)).map((o) => `${o.kind} ${o.metadata.namespace ?? '-'} ${o.metadata.name}`).sort();
    const namespaced = await template();
    expect(scope(namespaced)).toEqual([
      'ClusterRole - tenant-operator-metrics-auth-role',
      'ClusterRole - tenant-operator-metrics-reader',
      'ClusterRoleBinding - tenant-operator-metrics-auth-rolebinding',
      'Role tenants tenant-operator-leader-election-role',
      'Role tenants tenant-operator-manager-role',
      'Role tenants tenant-operator-memcached-admin-role',
      'Role tenants tenant-operator-memcached-editor-role',
      'Role tenants tenant-operator-memcached-viewer-role',
      'RoleBinding tenants tenant-operator-leader-election-rolebinding',
      'RoleBinding tenants tenant-operator-manager-rolebinding',
    ]);
    expect(namespaced.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].env).toEqual([{ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }]);
    const clusterWide = await template('rbac.namespaced=false');
    expect(scope(clusterWide)).toEqual(expect.arrayContaining(['ClusterRole - tenant-operator-manager-role', 'ClusterRoleBinding - tenant-operator-manager-rolebinding', 'ClusterRole - tenant-operator-memcached-admin-role', 'Role tenants tenant-operator-leader-election-role']));
    expect(clusterWide.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].env).toBeUndefined();
  });
});

// opgen doctor against a real kube-apiserver (envtest): every check provoked for real on a scaffolded
// project — a declared minimum above the server's version, CRDs missing, stale and with a stored version
// the new one drops, a verb missing from the service account's role, an expired certificate.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import type { TestEnv } from '@opgen/runtime/envtest';
import { opgen } from '../testdata/cli.js';
import { useMemcachedProjectEnv } from '../testdata/project-env.js';
import { crdFinding } from './crds.js';
import { versionFindings } from './version.js';
import type { DoctorReport } from './command.js';

let env: TestEnv;
let dir: string;
const CRD = 'memcacheds.cache.example.com';

const kubectl = (args: string[], input?: string): string =>
  execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

async function doctor(...flags: string[]): Promise<{ code: number; report: DoctorReport; table: string }> {
  const json = await opgen(dir, 'doctor', '--kubeconfig', env.kubeconfigPath, '--output', 'json', ...flags);
  if (json.stderr !== '') throw new Error(json.stderr);
  const table = await opgen(dir, 'doctor', '--kubeconfig', env.kubeconfigPath, ...flags);
  expect(table.code).toBe(json.code);
  return { code: json.code, report: JSON.parse(json.stdout) as DoctorReport, table: table.stdout };
}

const row = (report: DoctorReport, check: string, subject: string) => report.findings.find((f) => f.check === check && f.subject === subject);
const generatedCrd = (): Record<string, any> => parseAllDocuments(readFileSync(join(dir, 'config/crd/bases/cache.example.com_memcacheds.yaml'), 'utf8'))[0]!.toJS();

useMemcachedProjectEnv(
  { prefix: 'opgen-doctor-', projectName: 'dp', more: [['create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation']] },
  (started) => ({ dir, env } = started),
);

describe('opgen doctor on the API server', () => {
  it('reports a missing CRD and a missing webhook configuration with their fixes, and exits 1', async () => {
    const { code, report, table } = await doctor();
    expect(code).toBe(1);
    expect(report.status).toBe('error');
    expect(report.server.gitVersion).toMatch(/^v1\.36\./);
    expect(row(report, 'version', `server ${report.server.gitVersion}`)?.status).toBe('ok');
    expect(row(report, 'crd', CRD)).toMatchObject({ status: 'error', message: expect.stringContaining('not installed') as string, fix: expect.stringContaining('kubectl apply') as string });
    expect(row(report, 'webhook', 'mmemcached-v1alpha1.kb.io')?.status).toBe('error');
    expect(row(report, 'rbac', 'serviceaccount dp-system/dp-controller-manager')?.status).toBe('warning');
    // The table: a header, one row per finding, a fix line under each problem.
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CHECK\s+SUBJECT\s+STATUS\s+MESSAGE$/);
    expect(lines.filter((l) => /^\s+fix: /.test(l))).toHaveLength(report.findings.filter((f) => f.status !== 'ok').length);
    // Deterministic: a second run prints the same.
    expect((await doctor()).table).toBe(table);
  });

  it('a declared minimum above the server\'s version is an error naming PROJECT minKubeVersion', async () => {
    const project = readFileSync(join(dir, 'PROJECT'), 'utf8');
    try {
      writeFileSync(join(dir, 'PROJECT'), `${project}minKubeVersion: "1.37"\n`);
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(row(report, 'version', 'PROJECT minKubeVersion 1.37')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('older than the project\'s declared minimum 1.37') as string,
        fix: 'use a cluster of Kubernetes 1.37 or later, or lower minKubeVersion in PROJECT to "1.36" (opgen generate then checks the CEL rules against it)',
      });
      writeFileSync(join(dir, 'PROJECT'), `${project}minKubeVersion: "1.34"\n`);
      expect(row((await doctor()).report, 'version', 'PROJECT minKubeVersion 1.34')?.status).toBe('ok');
    } finally {
      writeFileSync(join(dir, 'PROJECT'), project);
    }
  });

  it('CRDs: a stored version the generated CRD drops, then up to date, then stale', async () => {
    // An older release stored objects as v1alpha0 only.
    const old = generatedCrd();
    old.spec.versions[0].name = 'v1alpha0';
    kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(old));
    kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
    let finding = row((await doctor()).report, 'crd', CRD);
    expect(finding).toMatchObject({ status: 'error', message: expect.stringContaining('status.storedVersions has v1alpha0, which the generated CRD drops') as string });
    expect(finding?.fix).toContain('served: false');
    kubectl(['delete', 'crd', CRD, '--wait']);

    kubectl(['apply', '--server-side', '-f', join(dir, 'config/crd/bases')]);
    kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
    finding = row((await doctor()).report, 'crd', CRD);
    expect(finding).toMatchObject({ status: 'ok', message: 'installed and up to date (storage version v1alpha1, stored v1alpha1)' });

    // The cluster has a field the source no longer declares.
    const stale = generatedCrd();
    stale.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.legacy = { type: 'string' };
    kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], JSON.stringify(stale));
    finding = row((await doctor()).report, 'crd', CRD);
    expect(finding).toMatchObject({ status: 'error', message: 'stale: the installed CRD differs from config/crd/bases at spec.versions[v1alpha1].schema.openAPIV3Schema.properties.spec.properties.legacy' });
    kubectl(['apply', '--server-side', '--force-conflicts', '-f', join(dir, 'config/crd/bases')]);
    expect(row((await doctor()).report, 'crd', CRD)?.status).toBe('ok');
  });

  it('CRDs: stale and installed by another tool (helm): the fix is the command that works, --force-conflicts, naming what it takes over', async () => {
    kubectl(['delete', 'crd', CRD, '--wait', '--ignore-not-found']);
    // What helm installed from an older chart: a description that has changed since.
    const older = generatedCrd();
    const spec = older.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.description).toBeDefined();
    spec.description = 'An older description.';
    kubectl(['apply', '--server-side', '--field-manager', 'helm', '-f', '-'], JSON.stringify(older));
    kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
    const finding = row((await doctor()).report, 'crd', CRD);
    expect(finding).toMatchObject({ status: 'error', message: 'stale: the installed CRD differs from config/crd/bases at spec.versions[v1alpha1].schema.openAPIV3Schema.properties.spec.description' });
    expect(finding?.fix).toMatch(/^kubectl apply --server-side --force-conflicts -k config\/crd \(the CRD's spec is also managed by "helm", .*that manager will set them back/);
    const run = (command: string): { status: number | null; output: string } => {
      const r = spawnSync('sh', ['-c', `${command} --kubeconfig '${env.kubeconfigPath}' 2>&1`], { cwd: dir, encoding: 'utf8' });
      return { status: r.status, output: r.stdout };
    };
    // The plain server-side apply fails on the conflict; the command doctor prints applies the CRD.
    const plain = run('kubectl apply --server-side -k config/crd');
    expect(plain.status).not.toBe(0);
    expect(plain.output).toMatch(/conflict.*with "helm"/is);
    expect(run(finding!.fix!.replace(/ \(.*$/, ''))).toMatchObject({ status: 0 });
    expect(row((await doctor()).report, 'crd', CRD)?.status).toBe('ok');
  });

  it('stored versions: a version objects may still be stored in cannot go (doctor, crd diff --kubeconfig); after crd migrate-storage it can', async () => {
    // An older release stored Memcacheds as v1alpha0; this one makes v1alpha1 the storage version and deprecates v1alpha0.
    const gen = generatedCrd();
    const release = (storage: string): Record<string, any> => {
      const crd = structuredClone(gen);
      const v1alpha1 = crd.spec.versions[0];
      crd.spec.versions = [{ ...structuredClone(v1alpha1), name: 'v1alpha0', storage: storage === 'v1alpha0', deprecated: storage !== 'v1alpha0' }, { ...v1alpha1, storage: storage === 'v1alpha1' }];
      return crd;
    };
    kubectl(['delete', 'crd', CRD, '--ignore-not-found', '--wait']);
    kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(release('v1alpha0')));
    kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
    for (const name of ['a', 'b', 'c']) kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'cache.example.com/v1alpha0', kind: 'Memcached', metadata: { name, namespace: 'default' }, spec: {} }));
    kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], JSON.stringify(release('v1alpha1')));
    writeFileSync(join(dir, 'released.yaml'), stringify(release('v1alpha1')));

    let finding = row((await doctor()).report, 'storage', CRD);
    expect(finding).toMatchObject({
      status: 'warning',
      message: 'stored [v1alpha0 v1alpha1], served [v1alpha0 v1alpha1], storage v1alpha1, deprecated [v1alpha0]; v1alpha0 cannot be removed yet: objects may still be stored in it',
    });
    expect(finding?.fix).toContain(`opgen crd migrate-storage ${CRD}`);
    // The next release drops v1alpha0: refused against the cluster, with the count and the command; flagged without one.
    let diff = await opgen(dir, 'crd', 'diff', 'released.yaml', 'config/crd/bases', '--kubeconfig', env.kubeconfigPath);
    expect(diff.code).toBe(1);
    expect(diff.stderr).toMatch(/error: memcacheds\.cache\.example\.com: versions \[v1alpha0\] removed but listed in status\.storedVersions; the cluster has 3 objects of it, any of which may still be stored as v1alpha0; .*\(run opgen crd migrate-storage memcacheds\.cache\.example\.com --kubeconfig .* first .*\) \[preflight storedVersionRemoval\]/);
    const offline = await opgen(dir, 'crd', 'diff', 'released.yaml', 'config/crd/bases');
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain('[guide removal-needs-migration]');

    const migrated = await opgen(dir, 'crd', 'migrate-storage', CRD, '--kubeconfig', env.kubeconfigPath, '--checkpoint', join(dir, 'migrate.json'));
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain(`${CRD}: every object is stored as v1alpha1 (3 rewritten, 0 already v1alpha1, 0 deleted meanwhile`);
    expect(migrated.stdout).toContain('status.storedVersions [v1alpha0 v1alpha1] -> [v1alpha1]: v1alpha0 may now stop being served and be removed from the CRD');

    finding = row((await doctor()).report, 'storage', CRD);
    expect(finding).toMatchObject({ status: 'ok', message: 'stored [v1alpha1], served [v1alpha0 v1alpha1], storage v1alpha1, deprecated [v1alpha0]; v1alpha0 can be removed now' });
    diff = await opgen(dir, 'crd', 'diff', 'released.yaml', 'config/crd/bases', '--kubeconfig', env.kubeconfigPath);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
    kubectl(['apply', '--server-side', '--force-conflicts', '-f', join(dir, 'config/crd/bases')]); // the API server accepts the removal now
    expect(JSON.parse(kubectl(['get', 'memcacheds.v1alpha1.cache.example.com', '-o', 'json'])).items.map((m: { metadata: { name: string } }) => m.metadata.name)).toEqual(['a', 'b', 'c']);
    kubectl(['delete', 'memcacheds.cache.example.com', '--all', '--wait']);
  });

  it('RBAC: a verb missing from the service account\'s role is named with its marker; a controller need without a marker names the marker to add', async () => {
    const role = parseAllDocuments(readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8')).map((d) => d.toJS()).find((o) => o?.kind === 'ClusterRole');
    const rule = role.rules.find((r: { resources: string[] }) => r.resources[0] === 'memcacheds');
    rule.verbs = rule.verbs.filter((v: string) => v !== 'watch');
    role.metadata.name = 'dp-manager-role';
    kubectl(['create', 'namespace', 'dp-system']);
    kubectl(['create', 'serviceaccount', 'dp-controller-manager', '-n', 'dp-system']);
    kubectl(['apply', '-f', '-'], JSON.stringify(role));
    kubectl(['create', 'clusterrolebinding', 'dp-manager-rolebinding', '--clusterrole', 'dp-manager-role', '--serviceaccount', 'dp-system:dp-controller-manager']);
    let { code, report } = await doctor();
    expect(code).toBe(1);
    const rbac = report.findings.filter((f) => f.check === 'rbac');
    const marker = '// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete';
    // Where the scaffold put the marker (the controller template decides the line).
    const markerLine = readFileSync(join(dir, 'src/controller/memcached-controller.ts'), 'utf8').split('\n').indexOf(marker) + 1;
    expect(markerLine).toBeGreaterThan(0);
    expect(rbac).toEqual([{
      check: 'rbac', subject: `watch ${CRD}`, status: 'error',
      message: `system:serviceaccount:dp-system:dp-controller-manager may not, though marker \`${marker}\` (src/controller/memcached-controller.ts:${markerLine}:1) asks for it`,
      fix: 'opgen generate rbac, then apply config/rbac (kubectl apply -k config/default) so the manager role and its binding grant it',
    }]);

    // Grant it: the account is fine.
    kubectl(['apply', '-f', '-'], JSON.stringify({ ...role, rules: [...role.rules, { apiGroups: ['cache.example.com'], resources: ['memcacheds'], verbs: ['watch'] }] }));
    ({ report } = await doctor());
    expect(report.findings.filter((f) => f.check === 'rbac').map((f) => [f.subject, f.status])).toEqual([['serviceaccount dp-system/dp-controller-manager', 'ok']]);

    // The source loses the watch verb: doctor names the marker to add.
    const controller = join(dir, 'src/controller/memcached-controller.ts');
    const source = readFileSync(controller, 'utf8');
    try {
      writeFileSync(controller, source.replace('verbs=get;list;watch;create', 'verbs=get;list;create'));
      ({ report } = await doctor());
      expect(row(report, 'rbac', `watch ${CRD}`)).toEqual({
        check: 'rbac', subject: `watch ${CRD}`, status: 'error',
        message: 'the Memcached controller needs it, but no +kubebuilder:rbac marker grants it',
        fix: 'add `// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=watch` to src/controller/memcached-controller.ts, then opgen generate rbac and apply config/rbac',
      });
    } finally {
      writeFileSync(controller, source);
    }
  });

  describe('webhooks served at a URL (as opgen dev serves them)', () => {
    let server: Server | undefined;
    const certs = mkdtempSync(join(tmpdir(), 'opgen-doctor-certs-'));
    const openssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: certs, stdio: 'pipe' });
    /** A CA and a serving certificate for 127.0.0.1 valid for `days` (-1: expired yesterday). */
    function issue(name: string, days: number): { ca: string; cert: string; key: string } {
      openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}-ca.key`, '-out', `${name}-ca.crt`, '-days', '30', '-subj', `/CN=${name}-ca`);
      openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=127.0.0.1');
      writeFileSync(join(certs, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
      openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${name}-ca.crt`, '-CAkey', `${name}-ca.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', String(days), '-extfile', 'san.ext');
      const read = (f: string): string => readFileSync(join(certs, f), 'utf8');
      return { ca: read(`${name}-ca.crt`), cert: read(`${name}.crt`), key: read(`${name}.key`) };
    }
    async function serve(pair: { cert: string; key: string }): Promise<number> {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end());
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return (server.address() as { port: number }).port;
    }
    /** The generated configurations, pointed at the URL with this CA bundle (failurePolicy Ignore: nothing else here depends on them). */
    function install(port: number, ca: string): void {
      const docs = parseAllDocuments(readFileSync(join(dir, 'config/webhook/manifests.yaml'), 'utf8')).map((d) => d.toJS());
      for (const c of docs) {
        for (const w of c.webhooks) {
          w.clientConfig = { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle: Buffer.from(ca).toString('base64') };
          w.failurePolicy = 'Ignore';
        }
      }
      kubectl(['apply', '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
    }
    afterAll(() => {
      server?.close();
      rmSync(certs, { recursive: true, force: true });
    });

    it('an expired certificate, a CA bundle that does not sign it, nobody listening, then all well', async () => {
      const expired = issue('expired', -1);
      let port = await serve(expired);
      install(port, expired.ca);
      let report = (await doctor()).report;
      expect(row(report, 'webhook', 'vmemcached-v1alpha1.kb.io')).toMatchObject({
        status: 'error',
        message: expect.stringMatching(new RegExp(`^https://127\\.0\\.0\\.1:${port}/validate-cache-example-com-v1alpha1-memcached serves a certificate that expired at `)) as string,
      });

      const good = issue('good', 365);
      const other = issue('other', 365);
      port = await serve(good);
      install(port, other.ca);
      report = (await doctor()).report;
      expect(row(report, 'webhook', 'mmemcached-v1alpha1.kb.io')).toMatchObject({ status: 'error', message: expect.stringContaining('its caBundle does not sign the certificate') as string });

      install(port, good.ca);
      report = (await doctor()).report;
      expect(row(report, 'webhook', 'mmemcached-v1alpha1.kb.io')).toMatchObject({ status: 'ok', message: expect.stringContaining('answers with a certificate signed by the caBundle') as string });
      expect(row(report, 'webhook', 'vmemcached-v1alpha1.kb.io')?.status).toBe('ok');

      // A conversion webhook in the installed CRD (as config/crd/patches puts it there): checked the same way.
      const conversion = (ca: string) => JSON.stringify({ spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(ca).toString('base64') } } } } });
      kubectl(['patch', 'crd', CRD, '--type', 'merge', '-p', conversion(other.ca)]);
      expect(row((await doctor()).report, 'webhook', `conversion ${CRD}`)).toMatchObject({ status: 'error', message: expect.stringContaining('its caBundle does not sign') as string });
      kubectl(['patch', 'crd', CRD, '--type', 'merge', '-p', conversion(good.ca)]);
      expect(row((await doctor()).report, 'webhook', `conversion ${CRD}`)?.status).toBe('ok');

      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
      report = (await doctor()).report;
      expect(row(report, 'webhook', 'mmemcached-v1alpha1.kb.io')).toMatchObject({ status: 'error', message: expect.stringContaining('does not answer (ECONNREFUSED)') as string });
    });
  });
});

describe('doctor checks without a cluster', () => {
  it('a malformed --service-account is one line naming the flag, before any cluster access', async () => {
    const r = await opgen(dir, 'doctor', '--kubeconfig', '/nonexistent', '--service-account', 'just-a-name');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("--service-account: error: 'just-a-name' is not <namespace>/<name> (write it as my-operator-system/my-operator-controller-manager)");
  });

  it('a server outside the window: older lists the CEL libraries its API server refuses; newer is a warning', () => {
    const all = new Set(['v1', 'apps/v1']);
    const [older] = versionFindings({ major: '1', minor: '30', gitVersion: 'v1.30.2' }, all, undefined);
    expect(older).toMatchObject({ status: 'error', message: expect.stringContaining('refuses CRD rules using the Kubernetes IP and CIDR libraries, the Kubernetes format library') as string });
    expect(older!.message).not.toContain('quantity');
    const [newer] = versionFindings({ major: '1', minor: '38', gitVersion: 'v1.38.0' }, all, undefined);
    expect(newer?.status).toBe('warning');
    expect(versionFindings({ major: '1', minor: '36', gitVersion: 'v1.36.3' }, all, undefined)[1]).toMatchObject({ subject: 'built-in kinds', message: expect.stringContaining('does not serve batch/v1, networking.k8s.io/v1') as string });
  });

  it('a storage version that moves is a warning with the migration to do', () => {
    const crd = (storage: string) => ({ metadata: { name: 'a.b' }, spec: { versions: [{ name: 'v1', served: true, storage: storage === 'v1' }, { name: 'v2', served: true, storage: storage === 'v2' }] }, status: { storedVersions: ['v1'] } });
    expect(crdFinding(crd('v2'), crd('v1'))).toMatchObject({ status: 'warning', message: expect.stringContaining('the storage version changes from v1 to v2') as string });
  });
});

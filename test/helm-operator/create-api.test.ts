// `create api --helm-chart` on a fresh opgen project: what it writes, that `opgen generate`, tsc,
// kubectl kustomize and helm accept the result, and that bad input leaves the project as it was.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { isOpgenError } from '../../src/diag/diagnostic.js';
import { createHelmApi, type CreateHelmApiOptions } from '../../src/commands/create-api/helm-chart.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgen, opgenOk } from '../../src/testdata/cli.js';
import { snapshot, tempDir } from '../../src/testdata/files.js';
import { tscErrors } from '../../src/testdata/tsc.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const chart = join(repoRoot, 'test/helm-operator/testdata/webapp');

let dir: string;
let cleanup: () => void;
const read = (p: string): string => readFileSync(join(dir, p), 'utf8');
const lines: { out: string[]; err: string[] } = { out: [], err: [] };

async function create(o: Partial<CreateHelmApiOptions>, cwd = dir): Promise<{ code?: number; error?: string }> {
  try {
    return { code: await createHelmApi({ cwd, out: (l) => lines.out.push(l), err: (l) => lines.err.push(l) }, { group: 'apps', version: 'v1alpha1', kind: 'WebApp', helmChart: chart, force: false, dryRun: false, ...o }) };
  } catch (err) {
    if (isOpgenError(err)) return { error: 'format' in err ? err.format() : err.message }; // OpgenErrors: its lines, joined
    throw err;
  }
}

beforeAll(async () => {
  process.env.HELM_BINARY = ciTool('OPGEN_HELM', 'helm.sh');
  ({ dir, cleanup } = tempDir('opgen-helm-api-', 'webapp-operator'));
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  // As a user runs it: the CLI's create api, which hands --helm-chart to src/helm-operator.
  const r = await opgen(dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'WebApp', '--helm-chart', chart);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('CREATE src/controller/web-app-helm.ts');
}, 120_000);
afterAll(() => cleanup?.());

describe('create api --helm-chart <folder>', () => {
  it('copies the chart into helm-charts/<name> and records GVK → chart in helm-charts/watches.yaml', () => {
    for (const f of ['Chart.yaml', 'values.yaml', 'values.schema.json', 'templates/deployment.yaml', 'templates/_helpers.tpl']) {
      expect(read(`helm-charts/webapp/${f}`)).toBe(readFileSync(join(chart, f), 'utf8'));
    }
    const [entry] = parse(read('helm-charts/watches.yaml')) as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({ group: 'apps.example.com', version: 'v1alpha1', kind: 'WebApp', chart: 'helm-charts/webapp' });
    expect((entry!.dependentKinds as unknown[]).length).toBe(5);
  });

  it('writes the CRD typed from values.schema.json and a sample holding the chart\'s default values', () => {
    const crd = parse(read('config/crd/bases/apps.example.com_webapps.yaml'));
    expect(crd.metadata).toEqual({ name: 'webapps.apps.example.com', annotations: { 'opgen.dev/helm-chart': 'webapp-1.2.0' } });
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.service.required).toEqual(['port']);
    const sample = parse(read('config/samples/apps_v1alpha1_webapp.yaml'));
    expect(sample).toMatchObject({ apiVersion: 'apps.example.com/v1alpha1', kind: 'WebApp', metadata: { name: 'webapp-sample' } });
    expect(sample.spec).toEqual(parse(readFileSync(join(chart, 'values.yaml'), 'utf8')));
  });

  it('writes the controller module (an RBAC marker per rendered kind, each with its source) and registers it in main.ts', () => {
    const module = read('src/controller/web-app-helm.ts');
    expect(module).toContain("setupHelmController(mgr, { kind: WebApp, chart: 'helm-charts/webapp', dependentKinds });");
    expect(module).toContain('// Ingress (networking.k8s.io/v1) from templates/ingress.yaml (when enabled)\n// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=create;delete;get;list;patch;update;watch\n');
    expect(module).toContain('// +kubebuilder:rbac:groups=core,resources=secrets,verbs=create;delete;get;list;patch;update;watch\n');
    expect(module.split('\n').filter((l) => l.includes('+kubebuilder:rbac')).join('\n')).not.toContain('*');
    const main = read('src/main.ts');
    expect(main).toContain("import { setupWebAppHelm } from './controller/web-app-helm.js';");
    expect(main).toContain('  setupWebAppHelm(mgr);');
    const project = parse(read('PROJECT'));
    expect(project.resources).toEqual([{ group: 'apps', domain: 'example.com', version: 'v1alpha1', kind: 'WebApp', api: { crdVersion: 'v1', namespaced: true }, controller: true }]);
  });

  it('gives the image helm and the charts, and the read-only manager a writable /tmp', () => {
    const docker = read('Dockerfile');
    expect(docker).toMatch(/FROM --platform=\$BUILDPLATFORM debian:bookworm-slim AS helm\n[\s\S]*sha256sum -c -[\s\S]*FROM gcr\.io\/distroless\/nodejs20-debian12:nonroot/);
    expect(docker).toContain('COPY --from=helm /usr/local/bin/helm /usr/local/bin/helm\nCOPY helm-charts/ /helm-charts/\n');
    expect(docker).toContain('USER 65532:65532');
    const manager = parseAllDocuments(read('config/manager/manager.yaml')).map((d) => d.toJS()).find((o) => o?.kind === 'Deployment');
    expect(manager.spec.template.spec.volumes).toEqual([{ name: 'helm-tmp', emptyDir: {} }]);
    expect(manager.spec.template.spec.containers[0].volumeMounts).toEqual([{ name: 'helm-tmp', mountPath: '/tmp' }]);
  });

  it('opgen generate keeps the CRD and turns the markers into role.yaml rules, none with *', async () => {
    const before = read('config/crd/bases/apps.example.com_webapps.yaml');
    await opgenOk(dir, 'generate');
    expect(read('config/crd/bases/apps.example.com_webapps.yaml')).toBe(before);
    const role = parse(read('config/rbac/role.yaml'));
    const rules = role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(rules.flatMap((r) => [...r.resources, ...r.verbs])).not.toContain('*');
    expect(rules.find((r) => r.apiGroups.includes('apps') && r.resources.includes('deployments'))?.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(rules.find((r) => r.apiGroups.includes('apps.example.com'))?.resources).toEqual(['webapps']);
  }, 60_000);

  it('the project compiles with tsc against @opgen/runtime and @opgen/runtime/helm', () => {
    const output = tscErrors(join(dir, 'tsconfig.check.json'), {
      extends: join(dir, 'tsconfig.json'),
      include: [join(dir, 'src', '**', '*.ts')],
      entries: ['helm', 'envtest', 'kubernetes'],
      vitest: true,
    });
    expect(output).toBe('');
  }, 120_000);

  it('kubectl kustomize config/default renders the CRD, and helm lints the copied chart', () => {
    const out = execFileSync('kubectl', ['kustomize', join(dir, 'config/default')], { encoding: 'utf8' });
    expect(out).toContain('name: webapps.apps.example.com');
    execFileSync(process.env.HELM_BINARY!, ['lint', join(dir, 'helm-charts/webapp')], { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: join(dir, '..', 'hc'), HELM_CONFIG_HOME: join(dir, '..', 'hf'), HELM_DATA_HOME: join(dir, '..', 'hd') } });
  });
});

describe('create api --helm-chart --force with a new version of the chart', () => {
  it('replaces the chart (a template the new version dropped is deleted), the CRD and the module, and adds nothing twice', async () => {
    const next = join(dir, '..', 'webapp-next');
    cpSync(chart, next, { recursive: true });
    rmSync(join(next, 'templates', 'ingress.yaml'));
    writeFileSync(join(next, 'Chart.yaml'), readFileSync(join(chart, 'Chart.yaml'), 'utf8').replace('version: 1.2.0', 'version: 1.3.0'));
    const main = read('src/main.ts');
    const r = await opgen(dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'WebApp', '--helm-chart', next, '--force');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('DELETE helm-charts/webapp/templates/ingress.yaml');
    expect(existsSync(join(dir, 'helm-charts/webapp/templates/ingress.yaml'))).toBe(false);
    expect(parse(read('config/crd/bases/apps.example.com_webapps.yaml')).metadata.annotations['opgen.dev/helm-chart']).toBe('webapp-1.3.0');
    expect(read('src/controller/web-app-helm.ts')).not.toContain('ingresses');
    expect(read('src/main.ts')).toBe(main);
    expect((parse(read('helm-charts/watches.yaml')) as unknown[]).length).toBe(1);
    expect(read('Dockerfile').match(/COPY helm-charts\//g)).toHaveLength(1);
    // Back to the test chart for the tests below.
    expect((await opgen(dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'WebApp', '--helm-chart', chart, '--force')).code).toBe(0);
    expect(existsSync(join(dir, 'helm-charts/webapp/templates/ingress.yaml'))).toBe(true);
  }, 60_000);
});

describe('with the Helm chart of the operator (opgen generate helm, docs/helm.md)', () => {
  it('the operator\'s chart carries the Helm kind\'s CRD, its RBAC and the manager\'s /tmp volume', async () => {
    await opgenOk(dir, 'generate');
    await opgenOk(dir, 'generate', 'helm');
    const env = { ...process.env, HELM_CACHE_HOME: join(dir, '..', 'hc'), HELM_CONFIG_HOME: join(dir, '..', 'hf'), HELM_DATA_HOME: join(dir, '..', 'hd') };
    execFileSync(process.env.HELM_BINARY!, ['lint', join(dir, 'dist/chart')], { env });
    const objects = parseAllDocuments(execFileSync(process.env.HELM_BINARY!, ['template', 'op', join(dir, 'dist/chart')], { encoding: 'utf8', env })).map((d) => d.toJS()).filter(Boolean);
    expect(objects.some((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === 'webapps.apps.example.com')).toBe(true);
    const rules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules ?? []) as Array<{ resources: string[] }>;
    expect(rules.some((r) => r.resources.includes('deployments'))).toBe(true);
    const manager = objects.find((o) => o.kind === 'Deployment');
    expect(manager.spec.template.spec.volumes).toContainEqual({ name: 'helm-tmp', emptyDir: {} });
  }, 90_000);
});

describe('with an OLM bundle (npm run bundle)', () => {
  it('the bundle owns the chart kind\'s CRD and validates', async () => {
    await opgenOk(dir, 'generate', 'kustomize', 'manifests');
    await opgenOk(dir, 'generate', 'bundle', '--version', '0.0.1');
    expect(read('bundle/manifests/apps.example.com_webapps.yaml')).toContain('kind: CustomResourceDefinition');
    const csv = parse(read('bundle/manifests/webapp-operator.clusterserviceversion.yaml'));
    expect(csv.spec.customresourcedefinitions.owned).toContainEqual(expect.objectContaining({ name: 'webapps.apps.example.com', kind: 'WebApp', version: 'v1alpha1' }));
    expect((await opgenOk(dir, 'bundle', 'validate', 'bundle')).stdout).toContain('bundle is valid');
  }, 60_000);
});

describe('create api --helm-chart <packaged .tgz> with a packaged dependency', () => {
  it('unpacks both, finds the dependency\'s kinds for RBAC, and the copy renders as the package does', async () => {
    const work = join(dir, '..', 'tgz');
    const parent = join(work, 'webapp');
    cpSync(chart, parent, { recursive: true });
    const sub = join(work, 'guard');
    mkdirSync(join(sub, 'templates'), { recursive: true });
    writeFileSync(join(sub, 'Chart.yaml'), 'apiVersion: v2\nname: guard\nversion: 0.1.0\n');
    writeFileSync(join(sub, 'templates', 'pdb.yaml'), 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {{ .Release.Name }}-guard\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/instance: {{ .Release.Name }}\n');
    const helm = process.env.HELM_BINARY!;
    const env = { ...process.env, HELM_CACHE_HOME: join(work, 'hc'), HELM_CONFIG_HOME: join(work, 'hf'), HELM_DATA_HOME: join(work, 'hd') };
    mkdirSync(join(parent, 'charts'));
    execFileSync(helm, ['package', sub, '-d', join(parent, 'charts')], { env });
    execFileSync(helm, ['package', parent, '-d', work], { env });
    const project = join(work, 'shop-operator');
    mkdirSync(project);
    await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
    expect(await create({ kind: 'Shop', helmChart: '../webapp-1.2.0.tgz' }, project)).toEqual({ code: 0 });
    expect(existsSync(join(project, 'helm-charts/webapp/charts/guard-0.1.0.tgz'))).toBe(false);
    expect(readFileSync(join(project, 'helm-charts/webapp/charts/guard/templates/pdb.yaml'), 'utf8')).toContain('kind: PodDisruptionBudget');
    expect(readFileSync(join(project, 'src/controller/shop-helm.ts'), 'utf8')).toContain('// PodDisruptionBudget (policy/v1) from charts/guard/templates/pdb.yaml\n// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,');
    const render = (c: string) => execFileSync(helm, ['template', 'r', c], { encoding: 'utf8', env });
    expect(render(join(project, 'helm-charts/webapp'))).toBe(render(join(work, 'webapp-1.2.0.tgz')));
  }, 90_000);
});

describe('create api --helm-chart in a namespace-scoped project (init --namespaced)', () => {
  it('the rules become a Role in the operator\'s namespace', async () => {
    const project = join(dir, '..', 'scoped-operator');
    mkdirSync(project);
    await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install', '--namespaced');
    expect(await create({}, project)).toEqual({ code: 0 });
    expect(readFileSync(join(project, 'src/controller/web-app-helm.ts'), 'utf8')).toContain('// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=create;delete;get;list;patch;update;watch,namespace=scoped-operator-system\n');
    const r = await opgenOk(project, 'generate');
    expect(r.stdout + r.stderr).not.toMatch(/warning/);
    const roles = parseAllDocuments(readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8')).map((d) => d.toJS());
    const role = roles.find((x) => x.rules?.some((rule: { resources: string[] }) => rule.resources.includes('deployments')));
    expect(role).toMatchObject({ kind: 'Role', metadata: { namespace: 'scoped-operator-system' } });
    expect(roles.filter((x) => x.kind === 'ClusterRole')).toEqual([]);
  }, 60_000);
});

describe('create api --helm-chart refuses in one line, leaving the project unchanged', () => {
  it('through the CLI: exit 1, one line on stderr', async () => {
    const before = snapshot(dir);
    const bad = await opgen(dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'Other', '--helm-chart', 'src');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual(['--helm-chart: error: src has no Chart.yaml (pass a chart folder, a packaged .tgz, repo/name (after `helm repo add`) or oci://registry/path)']);
    const alone = await opgen(dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'Other', '--helm-chart-version', '1.0.0');
    expect(alone.code).toBe(1);
    expect(alone.stderr.trim()).toBe('--helm-chart-version: error: requires --helm-chart (pass --helm-chart <repo/name|oci://…> too)');
    expect(snapshot(dir)).toEqual(before);
  });

  it('the same kind again without --force', async () => {
    const before = snapshot(dir);
    expect((await create({})).error).toBe('--kind: error: API apps/v1alpha1, Kind=WebApp already exists (pass --force to write it again from the chart)');
    expect(snapshot(dir)).toEqual(before);
  });

  it('flags a chart\'s kind cannot take, and --helm-chart-version alone', async () => {
    const before = snapshot(dir);
    expect((await create({ kind: 'Other', resource: false })).error).toBe("--resource: error: cannot be combined with --helm-chart: a chart's kind is this project's own API, with its CRD (drop --resource)");
    expect((await create({ kind: 'Other', namespaced: false })).error).toBe('--namespaced: error: cannot be combined with --helm-chart: a release lives in the namespace of its object, so the kind is namespaced (drop --namespaced)');
    expect((await create({ kind: 'Other', helmChart: undefined, helmChartVersion: '1.0.0' })).error).toBe('--helm-chart-version: error: requires --helm-chart (pass --helm-chart <repo/name|oci://…> too)');
    expect((await create({ kind: 'Other', helmChartVersion: '1.0.0' })).error).toBe('--helm-chart-version: error: a chart folder has the version its Chart.yaml says (drop --helm-chart-version, or pass a repository chart)');
    expect(snapshot(dir)).toEqual(before);
  });

  it('a folder without Chart.yaml, and a name that is neither a file nor repo/name nor oci://', async () => {
    const before = snapshot(dir);
    expect((await create({ kind: 'Other', helmChart: 'src' })).error).toBe('--helm-chart: error: src has no Chart.yaml (pass a chart folder, a packaged .tgz, repo/name (after `helm repo add`) or oci://registry/path)');
    expect((await create({ kind: 'Other', helmChart: 'no such chart' })).error).toMatch(/^--helm-chart: error: no such chart: no such folder or file, and not repo\/name or oci:\/\//);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a values.schema.json the API server would refuse: file:line:column of the chart\'s schema', async () => {
    const bad = join(dir, '..', 'bad-chart');
    cpSync(chart, bad, { recursive: true });
    writeFileSync(join(bad, 'values.schema.json'), '{\n  "type": "object",\n  "properties": {\n    "replicaCount": { "type": "integer", "minimum": 1, "default": 0 }\n  }\n}\n');
    const before = snapshot(dir);
    const r = await create({ kind: 'Other', helmChart: bad });
    expect(r.error).toBe("../bad-chart/values.schema.json:4:5: error: the API server would refuse spec.replicaCount: the default does not validate against the field's own schema: 0 is below the minimum 1; fix that field of the schema");
    expect(snapshot(dir)).toEqual(before);
  });

  it('helm missing or not executable: names the binary and how to get one', async () => {
    const before = snapshot(dir);
    const notExecutable = join(dir, '..', 'helm-not-executable');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    const saved = process.env.HELM_BINARY;
    try {
      for (const [binary, what] of [[join(dir, '..', 'no-helm-here'), 'was not found'], [notExecutable, 'is not executable']] as const) {
        process.env.HELM_BINARY = binary;
        expect((await create({ kind: 'Other', helmChart: chart })).error).toBe(`--helm-chart: error: the helm binary "${binary}" ${what} (HELM_BINARY) (install helm (https://helm.sh/docs/intro/install/) or set HELM_BINARY to its path)`);
      }
    } finally {
      process.env.HELM_BINARY = saved;
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('a chart\'s kubeVersion: rendered for the project\'s minimum (default 1.28.0, else PROJECT minKubeVersion), --kube-version overrides; a version the chart refuses names the flag', async () => {
    const strict = join(dir, '..', 'strict-chart');
    cpSync(chart, strict, { recursive: true });
    writeFileSync(join(strict, 'Chart.yaml'), `${readFileSync(join(chart, 'Chart.yaml'), 'utf8')}kubeVersion: ">=1.29.0-0"\n`);
    const before = snapshot(dir);
    const refused = await create({ kind: 'Other', helmChart: strict, dryRun: true });
    expect(refused.error).toMatch(/^--kube-version: error: helm template \S+strict-chart for Kubernetes 1\.28\.0 \(the project's default minimum; override with --kube-version or PROJECT minKubeVersion\) failed: chart requires kubeVersion: >=1\.29\.0-0 which is incompatible with Kubernetes v1\.28\.0 \(pass the Kubernetes version the operator will run on/);
    lines.out.length = 0;
    expect(await create({ kind: 'Other', helmChart: strict, dryRun: true, kubeVersion: '1.30' })).toEqual({ code: 0 });
    expect(lines.out).toContain('Rendered webapp for Kubernetes 1.30.0 (--kube-version) to find the kinds it creates; at run time helm renders for the cluster\'s own version.');
    expect((await create({ kind: 'Other', helmChart: strict, kubeVersion: 'latest' })).error).toBe('--kube-version: error: invalid Kubernetes version "latest" (e.g. --kube-version 1.30.0)');
    expect(snapshot(dir)).toEqual(before);

    const pinned = join(dir, '..', 'pinned');
    mkdirSync(pinned);
    await opgenOk(pinned, 'init', '--domain', 'example.com', '--skip-install');
    writeFileSync(join(pinned, 'PROJECT'), `${readFileSync(join(pinned, 'PROJECT'), 'utf8')}minKubeVersion: "1.29"\n`);
    lines.out.length = 0;
    expect(await create({ helmChart: strict, dryRun: true }, pinned)).toEqual({ code: 0 });
    expect(lines.out).toContain('Rendered webapp for Kubernetes 1.29.0 (PROJECT minKubeVersion; override with --kube-version) to find the kinds it creates; at run time helm renders for the cluster\'s own version.');
  }, 60_000);

  it('--dry-run writes nothing', async () => {
    const other = join(dir, '..', 'dry');
    mkdirSync(other);
    await opgenOk(other, 'init', '--domain', 'example.com', '--skip-install');
    const before = snapshot(other);
    expect(await create({ dryRun: true }, other)).toEqual({ code: 0 });
    expect(snapshot(other)).toEqual(before);
    expect(existsSync(join(other, 'helm-charts'))).toBe(false);
  }, 60_000);
});

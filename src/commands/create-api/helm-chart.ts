// `opgen create api --helm-chart <path|repo/name|oci://…> [--helm-chart-version]`: a chart becomes an API.
// Fetches the chart into helm-charts/<name>, writes the CRD (spec from values.schema.json), a sample
// holding the chart's default values, helm-charts/watches.yaml (operator-sdk's shape: GVK → chart), the
// controller module (RBAC markers per rendered kind, dependent kinds) and its registration in src/main.ts,
// and gives the image helm and the charts. Everything is staged in a Tree: a refusal writes nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { CommandContext } from '../../common/command-context.js';
import { toYaml } from '../../common/yaml.js';
import { stageAndCommit, sourceHeader } from '../shared/run-in-tree.js';
import { importPath, kebab } from '../shared/names.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { pluralize } from '../../naming/index.js';
import { checkGvkFlags, type CreateApiFlagValues } from '../shared/gvk-flags.js';
import { controllerDir, loadProject, managerNamespace, qualifiedGroup, readMinKubeVersion, saveProject, type ResourceConfig } from '../../project/index.js';
import { DEFAULT_MIN_KUBE_VERSION } from '../../common/kube-version.js';
import { insertInto, loadTemplates, renderPartial, renderTemplateFiles, renderTemplates, Tree } from '../../scaffold/index.js';
import { chartCrd, chartRbacRules, renderedKinds, watchesEntry, type RenderedKind } from '../../helm-operator/chart-api.js';

// create api's other flags apply too: a chart's kind is namespaced, has a CRD and the Helm controller only.
export interface CreateHelmApiOptions extends CreateApiFlagValues {
  helmChart?: string;
  helmChartVersion?: string;
  /** The Kubernetes version the chart is rendered for (its kubeVersion: constraint); default PROJECT's minKubeVersion. */
  kubeVersion?: string;
}

/** The helm release the image gets (the version .ci/helm.sh tests with). */
export const imageHelmVersion = 'v3.22.0';

export async function createHelmApi(ctx: CommandContext, o: CreateHelmApiOptions): Promise<number> {
  const gvk = validate(o);
  const helm = process.env.HELM_BINARY ?? 'helm';
  const scratch = mkdtempSync(join(tmpdir(), 'opgen-helm-chart-'));
  try {
    const chartDir = fetchChart(ctx.cwd, { ...o, helmChart: gvk.helmChart }, helm, scratch);
    const chart = parseYaml(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as { name?: string; version?: string; type?: string };
    if (!chart.name) throw new OpenChartError(`${o.helmChart}: Chart.yaml has no name`);
    if (chart.type === 'library') throw new OpgenError(`${o.helmChart} is a library chart, which installs nothing`, { flag: '--helm-chart' }, 'pass an application chart');
    const chartPath = `helm-charts/${chart.name}`;

    const { crd, diagnostics } = chartCrd(gvk, chartDir);
    for (const d of diagnostics.filter((x) => x.severity === 'warning')) ctx.err(`warning: ${d.text}`);
    const errors = diagnostics.filter((x) => x.severity === 'error');
    if (errors.length > 0) {
      const m = /^(.*):(\d+):(\d+): (.*)$/s.exec(errors[0]!.text)!;
      throw new OpgenError(m[4]!, { file: relative(ctx.cwd, m[1]!) || m[1]!, line: Number(m[2]), column: Number(m[3]) });
    }
    // helm template alone renders for its offline default (Kubernetes v1.20.0), which a chart's
    // `kubeVersion: >=1.23.0-0` refuses: render for the oldest Kubernetes the project supports.
    const kube = renderKubeVersion(ctx.cwd, o.kubeVersion);
    let kinds: RenderedKind[];
    try {
      kinds = renderedKinds(chartDir, helm, kube.version);
    } catch (err) {
      const errno = (err as NodeJS.ErrnoException).code;
      if (errno === 'ENOENT' || errno === 'EACCES') throw helmMissing(helm, errno);
      const stderr = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim().replace(/^Error: /, '');
      const first = stderr.split('\n')[0]!;
      if (/kubeVersion|Kubernetes version/i.test(first)) {
        throw new OpgenError(`helm template ${o.helmChart} for Kubernetes ${kube.version} (${kube.source}) failed: ${first}`, { flag: '--kube-version' }, 'pass the Kubernetes version the operator will run on, e.g. --kube-version 1.30.0, or set minKubeVersion in PROJECT');
      }
      throw new OpgenError(`helm template ${o.helmChart} failed with the chart's default values (Kubernetes ${kube.version}): ${first}`, { flag: '--helm-chart' }, 'fix the chart so `helm template` renders with its values.yaml');
    }
    ctx.out(`Rendered ${chart.name} for Kubernetes ${kube.version} (${kube.source}) to find the kinds it creates; at run time helm renders for the cluster's own version.`);

    // The YAML is serialised before staging (toYaml is async), so PROJECT's domain is read here once.
    const project = loadProject(new Tree(ctx.cwd));
    const qualified = qualifiedGroup({ group: gvk.group, domain: project.domain });
    const crdText = await toYaml([withQualifiedGroup(crd, qualified, chart)],
      `# The CRD of ${gvk.kind}, written by \`opgen create api --helm-chart\` from ${chart.name} ${chart.version ?? ''}: \`opgen generate\` leaves it alone;\n# \`opgen create api --helm-chart … --force\` writes it again from the chart.\n`);
    const values = (parseYaml(existsSync(join(chartDir, 'values.yaml')) ? readFileSync(join(chartDir, 'values.yaml'), 'utf8') : '{}') ?? {}) as Record<string, unknown>;
    const kindLower = gvk.kind.toLowerCase();
    const sampleFile = `${gvk.group}_${gvk.version}_${kindLower}`;
    const sampleText = await toYaml([{
      apiVersion: `${qualified}/${gvk.version}`, kind: gvk.kind,
      metadata: { labels: { 'app.kubernetes.io/name': project.projectName, 'app.kubernetes.io/managed-by': 'kustomize' }, name: `${kindLower}-sample` },
      spec: values,
    }], `# The chart's default values (${chartPath}/values.yaml) as a ${gvk.kind}: every field is a value of the release.\n`);
    const watches = await watchesYaml(ctx.cwd, { ...watchesEntry({ ...gvk, group: qualified }, chartPath, kinds) });

    stageAndCommit(ctx, o.dryRun, (tree) => {
      const p = loadProject(tree);
      const existing = p.resources.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
      if (existing && !o.force) throw new OpgenError(`API ${gvk.group}/${gvk.version}, Kind=${gvk.kind} already exists`, { flag: '--kind' }, 'pass --force to write it again from the chart');
      if (tree.exists(chartPath) && !o.force) throw new OpgenError(`${chartPath} already exists`, { flag: '--helm-chart' }, 'pass --force to replace it with the fetched chart');
      // --force replaces the chart: files the new version no longer has go too (a stale template would still render).
      const stale = existsSync(join(ctx.cwd, chartPath)) ? listFiles(join(ctx.cwd, chartPath)).map((f) => posix.join(chartPath, relative(join(ctx.cwd, chartPath), f).split('\\').join('/'))) : [];
      for (const f of stale) tree.delete(f);
      copyChart(tree, chartDir, chartPath);
      const ctrlDir = controllerDir(p, gvk.group);
      const kindFile = kebab(gvk.kind);
      const data = {
        header: sourceHeader(tree.read('hack/boilerplate.ts.txt')),
        kind: gvk.kind, version: gvk.version, qualifiedGroup: qualified, plural: gvk.plural,
        chartPath, chartName: chart.name, chartVersion: chart.version ?? '',
        rbacNamespace: p.namespaced ? `,namespace=${managerNamespace(p)}` : '',
        rbacRules: chartRbacRules({ ...gvk, group: qualified }, kinds).map((r) => ({ group: r.apiGroups[0] || 'core', resource: r.resources[0], verbs: r.verbs.join(';'), comment: r.comment })),
        dependentKinds: (watchesEntry(gvk, chartPath, kinds).dependentKinds as Array<{ apiVersion: string; kind: string; plural: string; namespaced: boolean }>).map((k) => ({
          group: k.apiVersion.includes('/') ? k.apiVersion.split('/')[0] : '', version: k.apiVersion.split('/').pop(), kind: k.kind, plural: k.plural, namespaced: k.namespaced,
        })),
        controllerImport: importPath('src', `${ctrlDir}/${kindFile}-helm.ts`),
        helmVersion: imageHelmVersion,
        qualifiedGroupPlural: `${qualified}_${gvk.plural}`,
        sampleFile,
      };
      renderTemplates(tree, 'helm-operator/project', { data, placeholders: { controllerDir: ctrlDir, kindFile }, force: o.force });
      const fragments = new Map(renderTemplateFiles('helm-operator/fragments', { data }).map((f) => [f.path, f.content]));
      tree.write(`config/crd/bases/${qualified}_${gvk.plural}.yaml`, crdText, { ifExists: o.force ? 'overwrite' : 'error' });
      tree.write(`config/samples/${sampleFile}.yaml`, sampleText, { ifExists: o.force ? 'overwrite' : 'error' });
      tree.write('helm-charts/watches.yaml', watches);
      writeKustomizations(tree);
      insertInto(tree, 'config/crd/kustomization.yaml', 'crdkustomizeresource', renderPartial('crd-resource', { qualifiedGroup: qualified, plural: gvk.plural }));
      insertInto(tree, 'config/samples/kustomization.yaml', 'manifestskustomizesamples', renderPartial('sample-resource', { sampleFile }));
      insertInto(tree, 'config/default/kustomization.yaml', 'crd', renderPartial('default-crd', {}));
      insertInto(tree, 'src/main.ts', 'imports', fragments.get('main-import')!);
      insertInto(tree, 'src/main.ts', 'controllers', fragments.get('main-controller')!);
      const notes = imageAndManager(tree, fragments);
      for (const n of notes) ctx.err(`note: ${n}`);
      const record: ResourceConfig = { group: gvk.group, domain: p.domain, version: gvk.version, kind: gvk.kind, ...(gvk.plural !== pluralize(gvk.kind) ? { plural: gvk.plural } : {}), api: { crdVersion: 'v1', namespaced: true }, controller: true };
      saveProject(tree, { ...p, resources: existing ? p.resources.map((r) => (r === existing ? record : r)) : [...p.resources, record] });
    });
    if (o.dryRun) return 0;
    ctx.out(`${gvk.kind} is served by ${chartPath} (${chart.name} ${chart.version ?? ''}). Next: generate the RBAC from the markers and try it:`);
    ctx.out('$ npm run manifests');
    ctx.out('Then, against a cluster: npm run install-crds && npm start (helm on PATH, or HELM_BINARY); docs/helm-operator.md walks through it.');
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** helm is needed to fetch and render the chart: say which binary was tried and how to get one. */
function helmMissing(helm: string, errno: string): OpgenError {
  const what = errno === 'ENOENT' ? 'was not found' : 'is not executable';
  return new OpgenError(`the helm binary "${helm}" ${what}${process.env.HELM_BINARY ? ' (HELM_BINARY)' : ' on PATH'}`, { flag: '--helm-chart' }, 'install helm (https://helm.sh/docs/intro/install/) or set HELM_BINARY to its path');
}

/** The version to render for: --kube-version, else PROJECT's minKubeVersion, else opgen's default floor. */
function renderKubeVersion(cwd: string, flag: string | undefined): { version: string; source: string } {
  const full = (v: string) => (/^v?\d+\.\d+$/.test(v) ? `${v.replace(/^v/, '')}.0` : v.replace(/^v/, ''));
  if (flag !== undefined) {
    if (!/^v?\d+\.\d+(\.\d+)?$/.test(flag)) throw new OpgenError(`invalid Kubernetes version "${flag}"`, { flag: '--kube-version' }, 'e.g. --kube-version 1.30.0');
    return { version: full(flag), source: '--kube-version' };
  }
  const projectFile = join(cwd, 'PROJECT');
  const stated = existsSync(projectFile) ? readMinKubeVersion(readFileSync(projectFile, 'utf8')) : undefined;
  if (stated) return { version: full(stated), source: 'PROJECT minKubeVersion; override with --kube-version' };
  return { version: DEFAULT_MIN_KUBE_VERSION, source: 'the project\'s default minimum; override with --kube-version or PROJECT minKubeVersion' };
}

class OpenChartError extends OpgenError {
  constructor(message: string) {
    super(message, { flag: '--helm-chart' }, 'pass a chart folder, a packaged .tgz, repo/name (after `helm repo add`) or oci://registry/path');
  }
}

function validate(o: CreateHelmApiOptions): { group: string; version: string; kind: string; plural: string } & { helmChart: string } {
  if (o.helmChart === undefined) throw new OpgenError('requires --helm-chart', { flag: o.helmChartVersion !== undefined ? '--helm-chart-version' : '--kube-version' }, 'pass --helm-chart <repo/name|oci://…> too');
  const refuse = (flag: string, why: string) => new OpgenError(`cannot be combined with --helm-chart: ${why}`, { flag }, `drop ${flag}`);
  if (o.resource === false) throw refuse('--resource', 'a chart\'s kind is this project\'s own API, with its CRD');
  if (o.controller === false) throw refuse('--controller', 'the Helm controller is what serves the kind');
  if (o.namespaced === false) throw refuse('--namespaced', 'a release lives in the namespace of its object, so the kind is namespaced');
  if (o.controllerName !== undefined) throw refuse('--controller-name', 'a chart\'s kind has one controller, the Helm one');
  if (o.externalApiPath !== undefined) throw refuse('--external-api-path', 'the chart\'s kind is defined here');
  if (o.externalApiDomain !== undefined) throw refuse('--external-api-domain', 'the chart\'s kind is defined here');
  const gvk = checkGvkFlags(o, { examples: { group: 'apps', kind: 'WebApp' } });
  if (o.helmChart === '' || o.helmChart.startsWith('-')) throw new OpgenError(`is missing its value (got "${o.helmChart}")`, { flag: '--helm-chart' }, 'e.g. --helm-chart ./charts/webapp');
  return { ...gvk, helmChart: o.helmChart };
}

/** The chart as a folder: a local folder as it is, else what `helm pull --untar` (or tar for a local .tgz) unpacks. */
function fetchChart(cwd: string, o: CreateHelmApiOptions & { helmChart: string }, helm: string, scratch: string): string {
  const local = resolve(cwd, o.helmChart);
  if (existsSync(local) && statSync(local).isDirectory()) {
    if (!existsSync(join(local, 'Chart.yaml'))) throw new OpenChartError(`${o.helmChart} has no Chart.yaml`);
    if (o.helmChartVersion) throw new OpgenError('a chart folder has the version its Chart.yaml says', { flag: '--helm-chart-version' }, 'drop --helm-chart-version, or pass a repository chart');
    return local;
  }
  const out = join(scratch, 'pulled');
  try {
    if (existsSync(local) && /\.tgz$/.test(local)) {
      execFileSync('mkdir', ['-p', out]);
      execFileSync('tar', ['-xzf', local, '-C', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    } else if (o.helmChart.startsWith('oci://') || /^[a-z0-9][-a-z0-9_.]*\/[a-z0-9][-a-z0-9_.]*$/i.test(o.helmChart)) {
      execFileSync(helm, ['pull', o.helmChart, '--untar', '--untardir', out, ...(o.helmChartVersion ? ['--version', o.helmChartVersion] : [])], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    } else {
      throw new OpenChartError(`${o.helmChart}: no such folder or file, and not repo/name or oci://`);
    }
  } catch (err) {
    if (err instanceof OpgenError) throw err;
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT' || errno === 'EACCES') throw helmMissing(helm, errno);
    const stderr = String((err as { stderr?: string }).stderr ?? '').trim().replace(/^Error: /, '');
    throw new OpenChartError(`could not fetch ${o.helmChart}: ${stderr.split('\n')[0]}`);
  }
  const [name] = readdirSync(out);
  if (!name || !existsSync(join(out, name, 'Chart.yaml'))) throw new OpenChartError(`${o.helmChart} holds no chart`);
  return join(out, name);
}

/**
 * Copies the chart's files into the tree. Packaged dependencies (charts/*.tgz) are unpacked beside
 * them (Helm reads either), so the project holds text only and reviews show what the chart renders.
 */
function listFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((f) => (statSync(join(dir, f)).isDirectory() ? listFiles(join(dir, f)) : [join(dir, f)]));
}

function copyChart(tree: Tree, chartDir: string, target: string): void {
  for (const file of listFiles(chartDir)) {
    const rel = relative(chartDir, file).split('\\').join('/');
    if (/^charts\/[^/]+\.tgz$/.test(rel)) {
      const unpacked = mkdtempSync(join(tmpdir(), 'opgen-subchart-'));
      try {
        execFileSync('tar', ['-xzf', file, '-C', unpacked]);
        const [sub] = readdirSync(unpacked);
        if (sub) copyChart(tree, join(unpacked, sub), posix.join(target, 'charts', sub));
      } finally {
        rmSync(unpacked, { recursive: true, force: true });
      }
      continue;
    }
    const bytes = readFileSync(file);
    const text = bytes.toString('utf8');
    if (Buffer.compare(Buffer.from(text, 'utf8'), bytes) !== 0) {
      throw new OpgenError(`${posix.join(target, rel)} is not text (${bytes.length} bytes)`, { flag: '--helm-chart' }, 'remove the file from the chart (or add it to .helmignore) and pass the chart folder');
    }
    tree.write(posix.join(target, rel), text, { ifExists: 'overwrite' });
  }
}

/**
 * config/crd and config/samples kustomizations, as the first `create api` writes them (skipped when
 * present): the same templates, which take no values.
 */
export function writeKustomizations(tree: Tree): void {
  const wanted = new Set(['config/crd/kustomization.yaml.hbs', 'config/crd/kustomizeconfig.yaml.hbs', 'config/samples/kustomization.yaml.hbs']);
  for (const t of loadTemplates('api/resource').filter((x) => wanted.has(x.source))) {
    if (t.body.includes('{{')) throw new Error(`template api/resource/${t.source} now takes values; render it with them here`);
    tree.write(t.source.replace(/\.hbs$/, ''), t.body, { ifExists: t.ifExists });
  }
}

/** helm-charts/watches.yaml with this kind's entry added or replaced (operator-sdk's watches.yaml shape). */
async function watchesYaml(cwd: string, entry: Record<string, unknown>): Promise<string> {
  const file = join(cwd, 'helm-charts', 'watches.yaml');
  const current = existsSync(file) ? ((parseYaml(readFileSync(file, 'utf8')) ?? []) as Array<Record<string, unknown>>) : [];
  const same = (e: Record<string, unknown>) => e.group === entry.group && e.version === entry.version && e.kind === entry.kind;
  const list = [...current.filter((e) => !same(e)), entry];
  return toYaml([list], '# Which chart serves which kind (operator-sdk\'s watches.yaml shape), written by `opgen create api --helm-chart`.\n# The controller modules it names (src/**/<kind>-helm.ts) hold the same facts as code.\n');
}

/** The CRD with the project's qualified group, and the chart it came from in an annotation. */
function withQualifiedGroup(crd: Record<string, unknown>, qualified: string, chart: { name?: string; version?: string }): Record<string, unknown> {
  const c = structuredClone(crd) as { metadata: { name: string; annotations?: Record<string, string> }; spec: { group: string; names: { plural: string } } };
  c.metadata.name = `${c.spec.names.plural}.${qualified}`;
  c.metadata.annotations = { 'opgen.dev/helm-chart': `${chart.name}-${chart.version ?? ''}` };
  c.spec.group = qualified;
  return c;
}

/**
 * The image needs helm and the charts; the manager's read-only root filesystem needs a writable /tmp
 * for helm's per-run scratch folder. Edited where the files still look as `opgen init` wrote them;
 * otherwise each is a note saying what to add.
 */
function imageAndManager(tree: Tree, fragments: Map<string, string>): string[] {
  const notes: string[] = [];
  const [stage, copy] = [fragments.get('dockerfile-stage')!, fragments.get('dockerfile-copy')!];
  const docker = tree.read('Dockerfile');
  if (docker !== undefined && !docker.includes('COPY helm-charts/')) {
    const runtimeFrom = /^FROM gcr\.io\/distroless\/.*$/m.exec(docker);
    const pkgCopy = /^COPY package\.json \/package\.json$/m.exec(docker);
    if (runtimeFrom && pkgCopy) {
      let next = docker.replace(pkgCopy[0], `${pkgCopy[0]}\n${copy.trimEnd()}`);
      next = next.replace(runtimeFrom[0], `${stage}${runtimeFrom[0]}`);
      tree.write('Dockerfile', next);
    } else notes.push('Dockerfile: add the helm binary (/usr/local/bin/helm) and `COPY helm-charts/ /helm-charts/` to the runtime image');
  }
  const managerPath = 'config/manager/manager.yaml';
  const manager = tree.read(managerPath);
  if (manager !== undefined && !manager.includes('name: helm-tmp')) {
    if (/^ {8}volumeMounts: \[\]$/m.test(manager) && /^ {6}volumes: \[\]$/m.test(manager)) {
      tree.write(managerPath, manager
        .replace(/^ {8}volumeMounts: \[\]$/m, fragments.get('manager-volume-mount')!.trimEnd())
        .replace(/^ {6}volumes: \[\]$/m, fragments.get('manager-volume')!.trimEnd()));
    } else notes.push(`${managerPath}: mount an emptyDir at /tmp in the manager container (helm needs a writable scratch folder)`);
  }
  return notes;
}

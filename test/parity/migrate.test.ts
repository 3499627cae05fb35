// `opgen migrate` on large public Go APIs nobody here wrote, with controller-gen as the oracle: each API
// (downloaded by .ci/migrate-apis.sh from the Go module proxy) is migrated to TypeScript, generated with
// `opgen generate crd`, and every CRD must be byte for byte controller-gen's output on the Go original,
// but for the line naming the generator's version. The migrated TypeScript must also compile with tsc.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgen } from '../../src/testdata/cli.js';
import { tscErrors } from '../../src/testdata/tsc.js';
import { controllerGen, filesIn, goRoot, repoRoot, warmUp } from './harness.js';

// Outside any test timeout: a cold cache downloads the modules (seconds) and controller-gen (a minute).
const apisRoot = ciTool('OPGEN_MIGRATE_APIS', 'migrate-apis.sh');
const cg = controllerGen();
warmUp(); // the edge-case fixture's module (test/parity/go) and its k8s.io modules

interface Api {
  name: string;
  /** The module's folder (default: <OPGEN_MIGRATE_APIS>/<name>). */
  dir?: string;
  packages: string[];
  crds: string[];
  /** A marker of the API that controller-gen ignores (migrate must list it). */
  ignored: string;
  /** controller-gen's crd options, given to both generators (`generateEmbeddedObjectMeta=true`). */
  crdOptions?: string;
  covers: string;
}

const apis: Api[] = [
  {
    name: 'edge cases',
    dir: goRoot,
    packages: ['./migrate/v1'],
    crds: ['edges.parity.opgen.dev_edges.yaml'],
    ignored: '+kubebuilder:object:root=true (not a kind: it does not embed TypeMeta and ObjectMeta): migrate/v1/types.go:',
    covers: 'test/parity/go/migrate: marker blocks, typos, a kind without object:root, integer kinds, []byte, a dependency package\'s Optional',
  },
  {
    name: 'JobSet-like templates',
    dir: goRoot,
    packages: ['./jobset/v1'],
    crdOptions: 'generateEmbeddedObjectMeta=true',
    crds: ['jobset.parity.opgen.dev_jobsets.yaml'],
    ignored: '+kubebuilder:validation:Enum=DSM (in a /* */ comment: controller-gen reads markers only from // comments, and keeps this line in the description): jobset/v1/types.go:44:3',
    covers: 'test/parity/go/jobset with crd:generateEmbeddedObjectMeta=true: the metadata of JobTemplateSpec, PodTemplateSpec and PersistentVolumeClaim, CEL rules reading it, a marker in a /* */ comment, client-gen\'s markers',
  },
  {
    name: 'prometheus-operator',
    packages: ['./v1', './v1alpha1', './v1beta1'],
    crds: ['alertmanagerconfigs', 'alertmanagers', 'podmonitors', 'probes', 'prometheusagents', 'prometheuses', 'prometheusrules', 'scrapeconfigs', 'servicemonitors', 'thanosrulers'].map(
      (p) => `monitoring.coreos.com_${p}.yaml`,
    ),
    ignored: '+optional. (not a controller-gen marker): v1/types.go:',
    covers: 'pkg/apis/monitoring v0.93.0, ~14,500 lines: corev1 types everywhere, CEL rules, AlertmanagerConfig in v1alpha1 and v1beta1, embedded structs, +optional. and other markers controller-gen ignores',
  },
  {
    name: 'gateway-api',
    packages: ['./apis/v1', './apis/v1beta1'],
    crds: ['backendtlspolicies', 'gatewayclasses', 'gateways', 'grpcroutes', 'httproutes', 'listenersets', 'referencegrants', 'tcproutes', 'tlsroutes', 'udproutes'].map(
      (p) => `gateway.networking.k8s.io_${p}.yaml`,
    ),
    ignored: '+unionDiscriminator (not a controller-gen marker): apis/v1/grpcroute_types.go:',
    covers: 'apis/v1 + v1beta1 v1.6.3: hundreds of CEL rules, kinds declared as another version\'s kind (type HTTPRoute v1.HTTPRoute), type aliases, defaults',
  },
  {
    name: 'cert-manager',
    packages: ['./pkg/apis/certmanager/v1', './pkg/apis/acme/v1'],
    crds: ['acme.cert-manager.io_challenges.yaml', 'acme.cert-manager.io_orders.yaml', ...['certificaterequests', 'certificates', 'clusterissuers', 'issuers'].map((p) => `cert-manager.io_${p}.yaml`)],
    ignored: '+patchMergeKey=name (not a controller-gen marker): pkg/apis/acme/v1/types_issuer.go:',
    covers: 'certmanager/v1 + acme/v1 v1.21.2: two groups, types of another package of the module (cmmeta) and of another module (gateway-api ParentReference), []byte',
  },
];

/** The file without the generator's version annotation line, the one line the two may differ in. */
function withoutVersionLine(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^ {4}(controller-gen\.kubebuilder\.io|opgen\.dev)\/version: /.test(l))
    .join('\n');
}

const migrated: string[] = [];
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe.each(apis)('$name: $covers', ({ name, dir: moduleDir, packages, crds, ignored, crdOptions }) => {
  const dir = moduleDir ?? join(apisRoot, name);
  const work = mkdtempSync(join(tmpdir(), `opgen-migrate-${name.replace(/ /g, '-')}-`));
  temps.push(work);
  const ts = join(work, 'ts');
  const ours = join(work, 'opgen');
  const theirs = join(work, 'controller-gen');
  let migrate: { code: number; stdout: string; stderr: string };
  let generate: { code: number; stdout: string; stderr: string };
  let cgStderr = '';

  beforeAll(async () => {
    const crd = crdOptions ? `crd:${crdOptions}` : 'crd';
    const cgRun = promisify(execFile)(cg, [crd, `output:crd:dir=${theirs}`, `paths=${packages.join(';')}`], { cwd: dir, maxBuffer: 1 << 28 }).then(
      (r) => r.stderr,
      (e: { stderr?: string }) => e.stderr ?? String(e),
    );
    migrate = await opgen(dir, 'migrate', 'api', ...packages, '--output', ts);
    generate = await opgen(work, 'generate', crd, '--paths', ts, '--output-dir', ours);
    cgStderr = await cgRun;
    migrated.push(ts);
  }, 300_000);

  it('controller-gen writes the CRDs of the original', () => {
    expect(cgStderr).toBe('');
    expect(filesIn(theirs)).toEqual(crds);
  });

  it('opgen migrate api exits 0 and lists what controller-gen ignores', () => {
    expect(migrate.stderr).toBe('');
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/^migrated \d+ Go packages? \(\d+ types, \d+ kinds?: .*\) into /m);
    expect(migrate.stdout).toContain(ignored);
  });

  it('opgen generate crd on the migrated API writes the same files, without errors', () => {
    expect(generate.stderr.split('\n').filter((l) => l.includes('error'))).toEqual([]);
    expect(generate.code).toBe(0);
    expect(filesIn(ours)).toEqual(crds);
  });

  it.each(crds)('%s is byte for byte controller-gen\'s', (file) => {
    const a = withoutVersionLine(readFileSync(join(ours, file), 'utf8'));
    const b = withoutVersionLine(readFileSync(join(theirs, file), 'utf8'));
    // toBe on multi-megabyte strings prints them whole; compare line counts first for a readable failure.
    expect(a.split('\n').length).toBe(b.split('\n').length);
    expect(a === b, 'the CRD differs from controller-gen\'s').toBe(true);
  });
});

describe('the edge cases as TypeScript', () => {
  const file = (): string => readFileSync(join(migrated[0]!, 'v1', 'types.ts'), 'utf8');

  it('keeps what controller-gen ignores as a plain comment, not a marker', () => {
    expect(file()).toContain('  // controller-gen ignores: +optional.\n');
    expect(file()).not.toMatch(/^\s*\/\/ \+optional\.$/m);
  });

  it('marks the kind controller-gen finds by its embedding, and declares it with the CRD\'s plural and scope', () => {
    expect(file()).toMatch(/\/\/ \+kubebuilder:object:root=true\n(\/\/ .*\n)*\/\*\*\n \* Edge has no/);
    expect(file()).toContain("export const Edge = GroupVersion.kind<Edge>('Edge', { plural: 'edges', namespaced: false });");
  });

  it('makes a field optional when its package is (a package marker in a comment block above a type)', () => {
    const widened = readFileSync(join(migrated[0]!, 'widened', 'widened.ts'), 'utf8');
    expect(widened).toContain('  mode?: string;\n');
    expect(readFileSync(join(migrated[0]!, 'widened', 'groupversion-info.ts'), 'utf8')).toContain('// +kubebuilder:validation:Optional\n');
  });

  it('writes a map as an index signature where a Go type named Record hides TypeScript\'s', () => {
    expect(file()).toContain('  records?: { [key: string]: Record };\n');
    expect(file()).toContain('  labels?: { [key: string]: string };\n');
  });

  it('writes the +k8s:enum constants and a doc holding a star-slash as line comments', () => {
    expect(file()).toContain("export const PhaseRunning: Phase = 'Running';");
    expect(file()).toContain('  // Cron runs on */5 * * * * (a JSDoc block would end at the star and slash).\n  cron?: string;');
  });
});

describe('the JobSet-like API as TypeScript', () => {
  const file = (): string => readFileSync(join(migrated.find((d) => d.includes('opgen-migrate-JobSet-like'))!, 'v1', 'types.ts'), 'utf8');

  it('keeps the /* */ comment\'s marker line as description text, escaped so opgen reads no marker either', () => {
    expect(file()).toContain('  /**\n   * Provider names the backend.\n   * \\+kubebuilder:validation:Enum=DSM\n   */\n  provider?: string;');
  });
});

describe('the migrated TypeScript', () => {
  it('compiles with tsc against @opgen/runtime', () => {
    expect(migrated).toHaveLength(apis.length);
    const dir = mkdtempSync(join(tmpdir(), 'opgen-migrate-tsc-'));
    temps.push(dir);
    const out = tscErrors(join(dir, 'tsconfig.json'), {
      extends: join(repoRoot, 'tsconfig.json'),
      include: migrated.map((d) => join(d, '**/*.ts')),
      entries: ['kubernetes'],
    });
    expect(out).toBe('');
  }, 120_000);
});

// Runs the two generators of the parity suite on twin fixtures: controller-gen on test/parity/go/<fixture>
// and opgen on test/parity/ts/<fixture>, each into a fresh folder, and reads what they wrote.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgen } from '../../src/testdata/cli.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const goRoot = fileURLToPath(new URL('./go/', import.meta.url));
export const tsRoot = fileURLToPath(new URL('./ts/', import.meta.url));

export type Target = 'crd' | 'rbac' | 'webhook';

export interface GeneratorRun {
  /** 0 on success. */
  code: number;
  stdout: string;
  stderr: string;
  /** Root of the output: `<dir>/crd`, `<dir>/rbac`, `<dir>/webhook`. */
  dir: string;
}

/** The controller-gen binary .ci/controller-gen.sh installs (CI exports it as OPGEN_CONTROLLER_GEN). */
export const controllerGen = (): string => ciTool('OPGEN_CONTROLLER_GEN', 'controller-gen.sh');

/**
 * Installs controller-gen and downloads the Go twin's modules when the caches are cold (minutes, once),
 * outside any test or hook timeout: test files call it while they load.
 */
export function warmUp(): void {
  controllerGen();
  execFileSync('go', ['mod', 'download'], { cwd: goRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

function freshDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `opgen-parity-${label.replace(/[^a-z0-9]+/gi, '-')}-`));
}

/**
 * controller-gen as kubebuilder's Makefile runs it, on one fixture package tree. `crd:allowDangerousTypes`
 * because opgen maps TypeScript `number` to `type: number`, which controller-gen only emits for float64
 * with that option.
 */
export function runControllerGen(fixture: string, targets: Target[], crdOptions = ''): Promise<GeneratorRun> {
  // Tests only read its output, so a test file runs controller-gen once per fixture and targets (a run
  // over k8s.io/api takes seconds on 2 cores).
  const key = `${fixture}\0${targets.join(',')}\0${crdOptions}`;
  let run = controllerGenRuns.get(key);
  if (!run) controllerGenRuns.set(key, (run = controllerGenOnce(fixture, targets, crdOptions)));
  return run;
}

const controllerGenRuns = new Map<string, Promise<GeneratorRun>>();

async function controllerGenOnce(fixture: string, targets: Target[], crdOptions: string): Promise<GeneratorRun> {
  const dir = freshDir(`cg-${fixture}`);
  const args: string[] = [];
  if (targets.includes('crd')) args.push(`crd:allowDangerousTypes=true${crdOptions ? `,${crdOptions}` : ''}`, `output:crd:dir=${join(dir, 'crd')}`);
  if (targets.includes('rbac')) args.push('rbac:roleName=manager-role', `output:rbac:dir=${join(dir, 'rbac')}`);
  if (targets.includes('webhook')) args.push('webhook', `output:webhook:dir=${join(dir, 'webhook')}`);
  args.push(`paths=./${fixture}/...`);
  try {
    const { stdout, stderr } = await promisify(execFile)(controllerGen(), args, {
      cwd: goRoot,
      // go.sum pins k8s.io/api, apimachinery and apiextensions-apiserver v0.36.3; missing modules come
      // from the Go module proxy.
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      maxBuffer: 1 << 28,
    });
    return { code: 0, stdout, stderr, dir };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err), dir };
  }
}

/**
 * opgen as a user runs it outside a project: `opgen generate <target> --paths <fixture> --output-dir <dir>`,
 * through the CLI's own entry point, from test/parity/ts by default (so error positions are relative to it).
 */
export async function runOpgen(fixture: string, target: Target | `crd:${string}`, args: string[] = [], cwd = tsRoot): Promise<GeneratorRun> {
  const dir = freshDir(`opgen-${fixture}`);
  const { code, stdout, stderr } = await opgen(cwd, 'generate', target, '--paths', fixture, '--output-dir', join(dir, target.replace(/:.*/, '')), ...args);
  return { code, stdout, stderr, dir };
}

/** Sorted file names in a folder; none when it does not exist. */
export function filesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Every file under a folder, recursively, relative to it. */
export function allFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? allFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/**
 * The YAML documents of a manifest file as plain objects, without the generator's version annotation
 * (controller-gen.kubebuilder.io/version, or opgen's own): the one part the two may differ in.
 */
export function readManifests(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  return docs
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return d.toJS({ maxAliasCount: -1 }) as unknown;
    })
    .filter((d) => d !== null && d !== undefined)
    .map(withoutVersionAnnotation);
}

function withoutVersionAnnotation(doc: unknown): unknown {
  const metadata = (doc as { metadata?: { annotations?: Record<string, string> } }).metadata;
  const annotations = metadata?.annotations;
  if (!metadata || !annotations) return doc;
  for (const key of Object.keys(annotations)) {
    if (key === 'controller-gen.kubebuilder.io/version' || /opgen[^/]*\/version$/.test(key)) delete annotations[key];
  }
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return doc;
}

/** 1-based line of the first line of a fixture file containing `text`. */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(join(tsRoot, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${file} has no line containing ${text}`);
  return i + 1;
}

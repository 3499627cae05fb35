// Shared set-up of the OLM tests: opgen run in-process, the operator-framework/api checker (the oracle)
// built once by .ci/olm-validator.sh, and the tutorial project scaffolded with the real commands.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgenOk } from '../../src/testdata/cli.js';
export { opgen, opgenOk, type CliResult } from '../../src/testdata/cli.js';
export { snapshot, tempDir } from '../../src/testdata/files.js';


export interface OracleFinding {
  level: 'error' | 'warning';
  type: string;
  field?: string;
  detail: string;
  text: string;
}

export interface OracleReport {
  code: number;
  loadError?: string;
  results: OracleFinding[];
  /** Everything it said, for assertions on wording. */
  text: string;
}

/** The checker binary: OPGEN_OLM_CHECKER (set by .ci/run), else built (or found in the cache) by .ci/olm-validator.sh now. */
export const oracleBinary = (): string => ciTool('OPGEN_OLM_CHECKER', 'olm-validator.sh');

/** operator-framework/api's bundle loader and validators on `dir`. */
export function oracle(dir: string, optional?: 'operatorframework'): OracleReport {
  const args = optional ? ['--optional', optional, dir] : [dir];
  const r = spawnSync(oracleBinary(), args, { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`olm-checker failed (${r.status}): ${r.stderr}`);
  const report = JSON.parse(r.stdout) as { loadError?: string; results: OracleFinding[] };
  const text = [report.loadError ?? '', ...report.results.map((f) => `${f.level}: ${f.text}`)].join('\n');
  return { code: r.status, loadError: report.loadError, results: report.results, text };
}

export function oracleErrors(r: OracleReport): string[] {
  return [...(r.loadError ? [r.loadError] : []), ...r.results.filter((f) => f.level === 'error').map((f) => f.text)];
}

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

/**
 * kubebuilder's tutorial operator as a user builds it: init, create api, the Memcached types with CSV
 * markers, a filled-in sample, generate, generate kustomize manifests. Returns the project folder.
 */
export async function scaffoldTutorial(parent: string, name = 'memcached-operator', initFlags: string[] = []): Promise<string> {
  const dir = join(parent, name);
  mkdirSync(dir);
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install', ...initFlags);
  await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
  copyFileSync(join(fixtures, 'memcached-types.ts'), join(dir, 'src/api/v1alpha1/memcached-types.ts'));
  copyFileSync(join(fixtures, 'memcached-sample.yaml'), join(dir, 'config/samples/cache_v1alpha1_memcached.yaml'));
  await opgenOk(dir, 'generate');
  await opgenOk(dir, 'generate', 'kustomize', 'manifests');
  return dir;
}

/** Copies a project's bundle/ and bundle.Dockerfile into a new folder (for one defect each). */
export function copyBundle(project: string, into: string): string {
  mkdirSync(into, { recursive: true });
  cpSync(join(project, 'bundle'), join(into, 'bundle'), { recursive: true });
  copyFileSync(join(project, 'bundle.Dockerfile'), join(into, 'bundle.Dockerfile'));
  return join(into, 'bundle');
}

export function readYaml<T = Record<string, unknown>>(path: string): T {
  return parse(readFileSync(path, 'utf8')) as T;
}

/** `kubectl kustomize <dir>` parsed (the same renderer users run). */
export function kustomize(dir: string): Record<string, unknown>[] {
  const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  return out.split(/^---$/m).map((d) => parse(d) as Record<string, unknown>).filter((d) => d !== null && typeof d === 'object');
}

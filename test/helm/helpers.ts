// Shared set-up of the Helm chart tests: opgen run in-process, helm (built once by .ci/helm.sh, the peer
// that defines what a chart means) and the tutorial's Memcached operator with webhooks, scaffolded with
// the real commands.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgenOk } from '../../src/testdata/cli.js';
export { opgen, opgenOk, type CliResult } from '../../src/testdata/cli.js';
export { tempDir } from '../../src/testdata/files.js';


/** The helm binary: OPGEN_HELM (set by .ci/run), else built (or found in the cache) by .ci/helm.sh now. */
export const helmBinary = (): string => ciTool('OPGEN_HELM', 'helm.sh');

/**
 * The folder of cert-manager's and prometheus-operator's CRDs: OPGEN_THIRD_PARTY_CRDS (set by .ci/run),
 * else fetched (or found in the cache) by .ci/third-party-crds.sh now.
 */
export const thirdPartyCrds = (): string => ciTool('OPGEN_THIRD_PARTY_CRDS', 'third-party-crds.sh');

export async function helm(cwd: string, ...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  // HELM_* folders beside the project, in the test's temp dir: no state from (or into) the user's helm.
  const home = join(cwd, '..', '.helm-home');
  const env = { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  const r = await execa(helmBinary(), args, { cwd, reject: false, env });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const olmFixtures = fileURLToPath(new URL('../olm/fixtures/', import.meta.url));

/**
 * kubebuilder's tutorial operator with webhooks: Memcached v1alpha1 (the tutorial's types) with
 * defaulting, validating and conversion webhooks (v1beta1 converts through it), manifests generated.
 */
export async function scaffoldMemcached(parent: string, name = 'memcached-operator'): Promise<string> {
  const dir = join(parent, name);
  mkdirSync(dir);
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
  copyFileSync(join(olmFixtures, 'memcached-types.ts'), join(dir, 'src/api/v1alpha1/memcached-types.ts'));
  await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--controller=false');
  await opgenOk(dir, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1');
  await opgenOk(dir, 'generate');
  return dir;
}

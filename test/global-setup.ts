// Makes sure kube-apiserver and etcd exist before any test runs: KUBEBUILDER_ASSETS wins when set
// (a kubebuilder user's `setup-envtest use` folder); otherwise .ci/test-assets.sh builds them once
// from the Go module proxy into a cache and prints the folder. globalSetup runs in vitest's main
// process before the workers are forked, so setting process.env here reaches every test file
// (runtime/src/envtest/errors.test.ts checks that).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  provideAssets();
  provideClusterAssets();
  // A machine without kubectl gets the one .ci/test-assets.sh built into the same folder.
  const assets = process.env.KUBEBUILDER_ASSETS;
  if (assets && !onPath('kubectl') && existsSync(join(assets, 'kubectl'))) {
    process.env.PATH = `${assets}${delimiter}${process.env.PATH ?? ''}`;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

function provideAssets(): void {
  if (process.env.KUBEBUILDER_ASSETS) return;
  const script = fileURLToPath(new URL('../.ci/test-assets.sh', import.meta.url));
  try {
    const folder = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    process.env.KUBEBUILDER_ASSETS = folder;
  } catch {
    // Tests that need no API server still run; the envtest ones fail with MissingBinariesError.
    console.error('global-setup: .ci/test-assets.sh could not provide kube-apiserver and etcd (its output is above); ' +
      'tests that start an API server will fail. Fix: install Go >= 1.26 and rerun, or export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)');
  }
}

/**
 * kube-controller-manager, kube-scheduler and kwok (startTestEnv({ simulatedCluster })) when
 * .ci/cluster-assets.sh has built them; never built here, because one cold build takes about ten
 * minutes and would hold every test run (.ci/run builds them first). Without them the tests that need
 * them fail with MissingBinariesError saying how to build them.
 */
function provideClusterAssets(): void {
  if (process.env.OPGEN_CLUSTER_ASSETS) return;
  const script = fileURLToPath(new URL('../.ci/cluster-assets.sh', import.meta.url));
  try {
    process.env.OPGEN_CLUSTER_ASSETS = execFileSync('bash', [script, '--cached'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not built yet: see above
  }
}

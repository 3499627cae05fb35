// Makes sure kube-apiserver and etcd exist before any test runs: KUBEBUILDER_ASSETS wins when set
// (a kubebuilder user's `setup-envtest use` folder); otherwise .ci/test-assets.sh builds them once
// from the Go module proxy into a cache and prints the folder. globalSetup runs in vitest's main
// process before the workers are forked, so setting process.env here reaches every test file
// (runtime/src/envtest/errors.test.ts checks that).
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ciTool } from '../src/testdata/ci-tools.js';

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
  try {
    process.env.KUBEBUILDER_ASSETS = ciTool('KUBEBUILDER_ASSETS', 'test-assets.sh');
  } catch {
    // Tests that need no API server still run; the envtest ones fail with MissingBinariesError.
    console.error('global-setup: .ci/test-assets.sh could not provide kube-apiserver and etcd (its output is above); ' +
      'tests that start an API server will fail. Fix: install Go >= 1.26 and rerun, or export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)');
  }
}

/**
 * kube-controller-manager, kube-scheduler and kwok (startTestEnv({ simulatedCluster }) and the tutorial
 * e2e), built by .ci/cluster-assets.sh once and cached, like kube-apiserver above: README's
 * `npm ci && npm test` must pass on a fresh machine on its own. A cold build is long (see README), and
 * prints its progress; .ci/run builds them before the tests, so there this returns at once.
 */
function provideClusterAssets(): void {
  try {
    process.env.OPGEN_CLUSTER_ASSETS = ciTool('OPGEN_CLUSTER_ASSETS', 'cluster-assets.sh');
  } catch {
    // The tests that need them fail with MissingBinariesError, which says how to build them.
    console.error('global-setup: .ci/cluster-assets.sh could not build kube-controller-manager, kube-scheduler and kwok ' +
      '(its output is above); the simulated-cluster tests will fail. Fix: install Go >= 1.26 and rerun');
  }
}

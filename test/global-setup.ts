// Makes sure kube-apiserver and etcd exist before any test runs: KUBEBUILDER_ASSETS wins when set
// (a kubebuilder user's `setup-envtest use` folder); otherwise .ci/test-assets.sh builds them once
// from the Go module proxy into a cache and prints the folder.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.KUBEBUILDER_ASSETS) return;
  const script = fileURLToPath(new URL('../.ci/test-assets.sh', import.meta.url));
  const folder = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  process.env.KUBEBUILDER_ASSETS = folder;
}

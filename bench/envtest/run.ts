// bench/envtest: how long the envtest binaries took to build (recorded by .ci/test-assets.sh in
// the cache folder as build-seconds) and how long a warm startTestEnv()/stop() takes, as the median
// of several runs, without CRDs and with the runtime tests' two CRDs, and the servers' memory.
// Usage (via `npm run bench:envtest -- <flags>`): --runs 5
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type KubeConfig, Watch } from '@kubernetes/client-node';
import { startTestEnv, type TestEnvOptions } from '@opgen/runtime/envtest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const crdFolder = join(repo, 'runtime/src/envtest/testdata');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`bench:envtest: --runs ${values.runs} is not a positive whole number; pass e.g. --runs 5`);
  process.exit(2);
}

function assetsFolder(): string {
  if (process.env.KUBEBUILDER_ASSETS) return process.env.KUBEBUILDER_ASSETS;
  // Builds on a cold cache (minutes); prints the folder at once on a warm one.
  return execFileSync('bash', [join(repo, '.ci/test-assets.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const summary = (xs: number[]) => `median ${seconds(median(xs))} (min ${seconds(Math.min(...xs))}, max ${seconds(Math.max(...xs))}, ${xs.length} run${xs.length === 1 ? '' : 's'})`;

/** `withWatch`: a client keeps a watch open during stop(), as a running informer would. */
async function timeStartStop(opts: TestEnvOptions, withWatch = false): Promise<{ start: number[]; stop: number[] }> {
  const start: number[] = [];
  const stop: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const env = await startTestEnv(opts);
    const watch = withWatch ? await new Watch(env.kubeConfig.toClientNode() as KubeConfig).watch('/api/v1/configmaps', {}, () => {}, () => {}) : undefined;
    const t1 = performance.now();
    await env.stop();
    watch?.abort();
    start.push(t1 - t0);
    stop.push(performance.now() - t1);
  }
  return { start, stop };
}

const assets = assetsFolder();
process.env.KUBEBUILDER_ASSETS = assets;
const version = (binary: string) => execFileSync(join(assets, binary), ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
console.log(`envtest bench: ${version('kube-apiserver')}, ${version('etcd')}, ${availableParallelism()} CPUs`);

const record = join(assets, 'build-seconds');
if (existsSync(record)) {
  const built = Number(readFileSync(record, 'utf8').trim());
  // Cold only if the Go module and build caches were empty then; docs/envtest.md has the measured cold figure.
  console.log(`build of the binaries into this cache folder (.ci/test-assets.sh, recorded in ${record}): ${built} s (${(built / 60).toFixed(1)} min)`);
} else {
  console.log(`cold build: no record in ${assets} (binaries not built by .ci/test-assets.sh, e.g. from setup-envtest)`);
}

const bare = await timeStartStop({});
console.log(`warm start, no CRDs:     ${summary(bare.start)}`);
console.log(`stop, no CRDs:           ${summary(bare.stop)}`);
const withCrds = await timeStartStop({ crdPaths: [crdFolder] });
console.log(`warm start, 2 CRDs:      ${summary(withCrds.start)}`);
console.log(`stop, 2 CRDs:            ${summary(withCrds.stop)}`);
const watched = await timeStartStop({}, true);
console.log(`stop with an open watch: ${summary(watched.stop)}`);

/** Resident memory of the env's processes (found by their temp folder on the command line), in MB. */
function residentMb(folder: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(folder)) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? pid;
      out[name] = Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
    } catch { /* exited meanwhile */ }
  }
  return out;
}

if (existsSync('/proc/self/status')) {
  const env = await startTestEnv({ crdPaths: [crdFolder] });
  const rss = residentMb(dirname(env.kubeconfigPath));
  await env.stop();
  console.log(`memory after start, 2 CRDs: ${Object.entries(rss).sort().map(([n, mb]) => `${n} ${mb} MB`).join(', ')} (RSS)`);
}

// The simulated cluster (kube-controller-manager, kube-scheduler, kwok): when .ci/cluster-assets.sh has built it.
const clusterAssets = process.env.OPGEN_CLUSTER_ASSETS ??
  (() => { try { return execFileSync('bash', [join(repo, '.ci/cluster-assets.sh'), '--cached'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return undefined; } })();
if (!clusterAssets) {
  console.log('simulated cluster: not built (export OPGEN_CLUSTER_ASSETS=$(bash .ci/cluster-assets.sh)); skipped');
} else {
  process.env.OPGEN_CLUSTER_ASSETS = clusterAssets;
  const clusterRecord = join(clusterAssets, 'build-seconds');
  if (existsSync(clusterRecord)) console.log(`build of the simulated-cluster binaries (.ci/cluster-assets.sh): ${readFileSync(clusterRecord, 'utf8').trim()} s`);
  const cluster = await timeStartStop({ simulatedCluster: true });
  console.log(`warm start, simulated cluster: ${summary(cluster.start)}`);
  console.log(`stop, simulated cluster:       ${summary(cluster.stop)}`);
  if (existsSync('/proc/self/status')) {
    const env = await startTestEnv({ simulatedCluster: true });
    const rss = residentMb(dirname(env.kubeconfigPath));
    await env.stop();
    console.log(`memory after start, simulated cluster: ${Object.entries(rss).sort().map(([n, mb]) => `${n} ${mb} MB`).join(', ')} (RSS)`);
  }
}

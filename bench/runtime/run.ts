// bench/runtime: N Widgets, each reconciled into a ConfigMap plus a Ready condition, timed from the
// first create to all-Ready, with the operator's peak RSS, for the @opgen/runtime operator
// (operator.ts) and the controller-runtime peer (bench/peers/widget-operator) against the same
// envtest API server. Each operator runs as its own process, caches restricted to its own namespace.
// Usage (via `npm run bench:runtime -- <flags>`): --count 1000 --workers 1 --rounds 1 --only ts|go
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, Watch } from '@kubernetes/client-node';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';

const benchDir = fileURLToPath(new URL('../', import.meta.url));
const peersDir = join(benchDir, '..', 'peers');
const operatorJs = fileURLToPath(new URL('./operator.js', import.meta.url));
const widgets = { group: 'bench.opgen.dev', version: 'v1', plural: 'widgets' };

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const count = Number(values.count);
const workers = Number(values.workers);
const rounds = Number(values.rounds);
for (const [flag, n] of [['--count', count], ['--workers', workers], ['--rounds', rounds]] as const) {
  if (!Number.isInteger(n) || n < 1) fail(`${flag} must be a whole number ≥ 1 (got '${values[flag.slice(2) as 'count']}')`);
}
if (values.only !== undefined && values.only !== 'ts' && values.only !== 'go') fail(`--only takes 'ts' or 'go' (got '${values.only}')`);

function fail(message: string): never {
  process.stderr.write(`bench/runtime: ${message}\n`);
  process.exit(1);
}

interface Operator {
  label: string;
  key: 'ts' | 'go';
  command: string;
  args: string[];
}

interface Outcome {
  seconds: number;
  /** Scraped from the operator's /metrics at the end. */
  reconciles: ReconcileStats;
  idleRssKb: number;
  peakRssKb: number;
  cachedObjects: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS / VmHWM (peak RSS) of a live process, in kB, from /proc. */
function memoryKb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitReady(port: number, child: ChildProcess, logPath: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the operator exited before it was ready; its log:\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`the operator was not ready within 120 s; its log:\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
}

interface ReconcileStats {
  /** controller_runtime_reconcile_total by result. */
  byResult: Record<string, number>;
  /** Mean of controller_runtime_reconcile_time_seconds, in ms. */
  meanMs: number;
}

/** Both runtimes export controller_runtime_reconcile_total and _time_seconds with the same names. */
async function reconcileStats(metricsPort: number): Promise<ReconcileStats> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const byResult: Record<string, number> = {};
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{[^}]*result="([a-z_]+)"[^}]*\} (\S+)$/gm)) {
    byResult[m[1]!] = (byResult[m[1]!] ?? 0) + Number(m[2]);
  }
  const total = (name: string) =>
    [...text.matchAll(new RegExp(`^controller_runtime_reconcile_time_seconds_${name}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0);
  return { byResult, meanMs: (total('sum') / total('count')) * 1000 };
}

const describeReconciles = (r: ReconcileStats) =>
  `${Object.values(r.byResult).reduce((a, b) => a + b, 0)} reconciles (${Object.entries(r.byResult).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ')}), mean reconcile ${r.meanMs.toFixed(1)} ms`;

interface WatchedWidget {
  metadata?: { name?: string; resourceVersion?: string; generation?: number };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

function isReady(obj: WatchedWidget): boolean {
  return (obj.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === obj.metadata?.generation,
  );
}

/** Watches the namespace's Widgets and resolves with the time the last of `n` became Ready. */
function allReady(kubeConfig: KubeConfig, namespace: string, n: number, resourceVersion: string): { done: Promise<number>; stop: () => void } {
  const ready = new Set<string>();
  let stopped = false;
  let current: AbortController | undefined;
  let lastRv = resourceVersion;
  const done = new Promise<number>((resolve, reject) => {
    const watch = new Watch(kubeConfig);
    const start = async (): Promise<void> => {
      if (stopped) return;
      current = await watch.watch(
        `/apis/${widgets.group}/${widgets.version}/namespaces/${namespace}/${widgets.plural}`,
        { allowWatchBookmarks: true, resourceVersion: lastRv },
        (type: string, obj: WatchedWidget) => {
          if (obj.metadata?.resourceVersion) lastRv = obj.metadata.resourceVersion;
          if ((type === 'ADDED' || type === 'MODIFIED') && isReady(obj) && obj.metadata?.name) {
            ready.add(obj.metadata.name);
            if (ready.size === n) {
              stopped = true;
              resolve(performance.now());
              current?.abort();
            }
          }
        },
        () => {
          // The API server ends watches now and then; carry on from the last resourceVersion.
          if (!stopped) setTimeout(() => start().catch(reject), 100);
        },
      );
    };
    start().catch(reject);
  });
  return {
    done,
    stop: () => {
      stopped = true;
      current?.abort();
    },
  };
}

async function runScenario(env: TestEnv, operator: Operator, round: number, workDir: string): Promise<Outcome> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const namespace = `bench-${operator.key}-${round}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });

  const port = await freePort();
  const metricsPort = await freePort();
  const logPath = join(workDir, `${namespace}.log`);
  const log = openSync(logPath, 'w');
  const child = spawn(operator.command, [...operator.args, '--namespace', namespace, '--health-probe-bind-address', `127.0.0.1:${port}`, '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--max-concurrent-reconciles', String(workers)], {
    env: { ...process.env, KUBECONFIG: env.kubeconfigPath },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitReady(port, child, logPath);
    await sleep(1000);
    const idle = memoryKb(child.pid!);

    const list = await objects.listNamespacedCustomObject({ ...widgets, namespace });
    const watcher = allReady(env.kubeConfig, namespace, count, (list as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    const started = performance.now();
    let next = 0;
    const createOne = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        await objects.createNamespacedCustomObject({
          ...widgets,
          namespace,
          body: {
            apiVersion: `${widgets.group}/${widgets.version}`,
            kind: 'Widget',
            metadata: { name: `widget-${String(i).padStart(5, '0')}` },
            spec: { data: { index: String(i), payload: 'x'.repeat(64) } },
          },
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, createOne));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not all ${count} Widgets became Ready within 10 minutes (see ${logPath})`)), 600_000);
    });
    const finished = await Promise.race([watcher.done, timeout]).finally(() => {
      clearTimeout(timer);
      watcher.stop();
    });
    const peak = memoryKb(child.pid!).peak;
    const reconciles = await reconcileStats(metricsPort);

    const configMaps = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app.kubernetes.io/managed-by=widget-operator' });
    if (configMaps.items.length !== count) throw new Error(`${operator.label}: expected ${count} ConfigMaps, found ${configMaps.items.length}`);
    for (const cm of configMaps.items) {
      const owner = cm.metadata?.ownerReferences?.find((r) => r.controller);
      const index = Number(cm.metadata?.name?.slice('widget-'.length));
      if (owner?.kind !== 'Widget' || owner.name !== cm.metadata?.name || cm.data?.index !== String(index)) {
        throw new Error(`${operator.label}: ConfigMap ${cm.metadata?.name} is not the Widget's (owner ${owner?.kind}/${owner?.name}, data.index ${cm.data?.index})`);
      }
    }
    const allConfigMaps = await core.listNamespacedConfigMap({ namespace });
    return {
      seconds: (finished - started) / 1000,
      reconciles,
      idleRssKb: idle.rss,
      peakRssKb: peak,
      cachedObjects: count + allConfigMaps.items.length,
    };
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000).then(() => child.kill('SIGKILL'))]);
    await objects.deleteCollectionNamespacedCustomObject({ ...widgets, namespace }).catch(() => {});
    await core.deleteCollectionNamespacedConfigMap({ namespace }).catch(() => {});
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const perObjectKb = (o: Outcome) => (o.peakRssKb - o.idleRssKb) / o.cachedObjects;

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'opgen-bench-runtime-'));
  try {
    await benchmark(workDir);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function benchmark(workDir: string): Promise<void> {
  const goBinary = join(workDir, 'widget-operator');
  const peerVersion = /sigs\.k8s\.io\/controller-runtime (v\S+)/.exec(readFileSync(join(peersDir, 'go.mod'), 'utf8'))?.[1] ?? '?';
  const operators: Operator[] = [
    { label: `controller-runtime ${peerVersion} (Go)`, key: 'go', command: goBinary, args: [] },
    { label: `@opgen/runtime (Node ${process.version})`, key: 'ts', command: process.execPath, args: [operatorJs] },
  ].filter((o) => values.only === undefined || o.key === values.only) as Operator[];

  if (operators.some((o) => o.key === 'go')) {
    process.stderr.write('bench/runtime: building the controller-runtime peer (bench/peers)…\n');
    try {
      await promisify(execFile)('go', ['build', '-o', goBinary, './widget-operator'], { cwd: peersDir, maxBuffer: 16 << 20 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      throw new Error(e.code === 'ENOENT' ? 'go is not installed; it builds the controller-runtime peer in bench/peers (or pass --only ts)' : `go build failed:\n${e.stderr ?? e.message}`);
    }
  }

  if (!process.env.KUBEBUILDER_ASSETS) {
    // As the test suite does: the cached kube-apiserver and etcd, built once from the Go module proxy.
    const script = join(benchDir, '..', '..', '.ci', 'test-assets.sh');
    const { stdout } = await promisify(execFile)('bash', [script], { maxBuffer: 16 << 20 });
    process.env.KUBEBUILDER_ASSETS = stdout.trim();
  }
  process.stderr.write('bench/runtime: starting envtest…\n');
  const env = await startTestEnv({ crdPaths: [join(benchDir, 'widget-crd.yaml')] });
  const results = new Map<Operator, Outcome[]>(operators.map((o) => [o, []]));
  try {
    for (let round = 1; round <= rounds; round++) {
      // Alternate who goes first, so neither always meets a fresher API server.
      const order = round % 2 === 1 ? operators : [...operators].reverse();
      for (const operator of order) {
        process.stderr.write(`bench/runtime: round ${round}/${rounds}: ${operator.label}…\n`);
        const outcome = await runScenario(env, operator, round, workDir);
        results.get(operator)!.push(outcome);
        process.stderr.write(
          `  ${outcome.seconds.toFixed(2)} s to all-Ready, peak RSS ${mb(outcome.peakRssKb)} (idle ${mb(outcome.idleRssKb)}), ${outcome.cachedObjects} cached objects, ${describeReconciles(outcome.reconciles)}\n`,
        );
      }
    }
  } finally {
    await env.stop();
  }

  const summary = operators.map((o) => {
    const runs = results.get(o)!;
    return {
      label: o.label,
      key: o.key,
      seconds: median(runs.map((r) => r.seconds)),
      idle: median(runs.map((r) => r.idleRssKb)),
      peak: median(runs.map((r) => r.peakRssKb)),
      perObject: median(runs.map(perObjectKb)),
      cached: runs[0]!.cachedObjects,
    };
  });
  const lines = [
    '',
    `bench/runtime: ${count} Widgets → ConfigMap + Ready condition, ${workers} worker(s), ${rounds} round(s) (medians), envtest kube-apiserver`,
    `${'operator'.padEnd(40)}${'all-Ready'.padStart(11)}${'Widgets/s'.padStart(11)}${'idle RSS'.padStart(11)}${'peak RSS'.padStart(11)}${'per cached object'.padStart(19)}`,
    ...summary.map(
      (s) =>
        `${s.label.padEnd(40)}${`${s.seconds.toFixed(2)} s`.padStart(11)}${(count / s.seconds).toFixed(1).padStart(11)}${mb(s.idle).padStart(11)}${mb(s.peak).padStart(11)}${`${s.perObject.toFixed(2)} KB`.padStart(19)}`,
    ),
    `(per cached object = (peak RSS − idle RSS) / ${summary[0]?.cached} cached Widgets and ConfigMaps)`,
  ];
  const ts = summary.find((s) => s.key === 'ts');
  const go = summary.find((s) => s.key === 'go');
  if (ts && go) {
    const timeRatio = ts.seconds / go.seconds;
    const memoryRatio = ts.perObject / go.perObject;
    lines.push(
      `ratio @opgen/runtime / controller-runtime: time ${timeRatio.toFixed(2)}× (target ≤ 1.25×: ${timeRatio <= 1.25 ? 'met' : 'missed'}), ` +
        `memory per cached object ${memoryRatio.toFixed(2)}× (target ≤ 2×: ${memoryRatio <= 2 ? 'met' : 'missed'}), ` +
        `peak RSS ${(ts.peak / go.peak).toFixed(2)}×`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));

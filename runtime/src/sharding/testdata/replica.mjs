// One sharded replica, run as its own process by sharding.test.ts and bench/sharding: a Guestbook
// controller whose reconciles are printed as JSON lines on stdout ({ r: replica, k: name, v:
// resourceVersion, s, e: start/end in ms since the epoch, sub-millisecond }), and once a second the
// replica's sharding gauges ({ m: { ... } }). With OPGEN_READY=1 each reconcile also writes the
// object's Ready condition for its generation (the benchmark's "all Ready").
// argv: <runtime dist index.js> <kubeconfig> <namespace> <identity>
import { KubeConfig } from '@kubernetes/client-node';

const [runtimePath, kubeconfigPath, namespace, identity] = process.argv.slice(2);
const { createManager, groupVersion, setupSignalHandler, silentLogger, createLogger, Result } = await import(runtimePath);

const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind('Guestbook');
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const now = () => performance.timeOrigin + performance.now();
const writeReady = process.env.OPGEN_READY === '1';
const lines = [];
const flush = () => {
  if (lines.length) process.stdout.write(lines.splice(0).join('\n') + '\n');
};

const mgr = await createManager({
  kubeConfig,
  logger: process.env.OPGEN_LOG ? createLogger({ level: process.env.OPGEN_LOG }) : silentLogger(),
  namespaces: [namespace],
  sharding: {
    name: 'guestbooks',
    namespace,
    identity,
    leaseDurationMs: Number(process.env.OPGEN_LEASE_MS ?? 4000),
    renewDeadlineMs: Number(process.env.OPGEN_RENEW_MS ?? 3000),
    retryPeriodMs: Number(process.env.OPGEN_RETRY_MS ?? 500),
  },
  controller: { maxConcurrentReconciles: 4 },
});
mgr.controllerFor(Guestbook).complete({
  async reconcile(req) {
    const s = now();
    const gb = await mgr.client.get(Guestbook, req);
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.OPGEN_RECONCILE_MS ?? 2)));
    if (writeReady) {
      const ready = gb.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.observedGeneration !== gb.metadata.generation) {
        await mgr.client.status().patch(Guestbook, req, { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', message: '', observedGeneration: gb.metadata.generation, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } } });
      }
    }
    lines.push(JSON.stringify({ r: identity, k: req.name, v: gb.metadata.resourceVersion, s, e: now() }));
    return Result.done();
  },
});

const gauges = ['opgen_sharding_server_side', 'opgen_sharding_active', 'opgen_sharding_objects_owned', 'opgen_sharding_ring_members', 'opgen_sharding_takeover_seconds'];
async function report() {
  const m = {};
  for (const name of gauges) {
    const text = await mgr.metrics.registry.getSingleMetricAsString(name);
    const line = text.split('\n').find((l) => l.startsWith(name));
    if (line) m[name] = Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  lines.push(JSON.stringify({ m }));
}
const timer = setInterval(() => {
  flush();
  void report().then(flush);
}, 250);
const signal = setupSignalHandler();
try {
  await mgr.start(signal);
} finally {
  clearInterval(timer);
  flush();
}

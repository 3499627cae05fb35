// One sharded replica, run as its own process by sharding.test.ts and bench/sharding: a Guestbook
// controller whose reconciles are printed as JSON lines on stdout ({ r: replica, k: name, v:
// resourceVersion, s, e: start/end in ms since the epoch, sub-millisecond }), and once a second the
// replica's sharding gauges ({ m: { ... } }). With OPGEN_READY=1 each reconcile also writes the
// object's Ready condition for its generation (the benchmark's "all Ready"). Every ownership span
// (ShardingOptions.onOwnership) is printed as { o: event }. OPGEN_SHARDING_MODE sets the mode; 'label'
// runs leader election (Lease guestbooks-leader) and, with OPGEN_OWNED=1, the controller owns a
// ConfigMap per Guestbook (created with setControllerReference, so it carries the shard label); with
// OPGEN_CM_WRITER=1 the ConfigMap names the replica that wrote it last (data.writer).
// argv: <runtime dist index.js> <kubeconfig> <namespace> <identity>
import { KubeConfig } from '@kubernetes/client-node';

const [runtimePath, kubeconfigPath, namespace, identity] = process.argv.slice(2);
const { createManager, groupVersion, setupSignalHandler, silentLogger, createLogger, Result, ConfigMap, createOrUpdate, setControllerReference } = await import(runtimePath);

const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind('Guestbook');
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const now = () => performance.timeOrigin + performance.now();
const writeReady = process.env.OPGEN_READY === '1';
const lines = [];
const flush = () => {
  if (lines.length) process.stdout.write(lines.splice(0).join('\n') + '\n');
};

const mode = process.env.OPGEN_SHARDING_MODE;
const owned = process.env.OPGEN_OWNED === '1';
const writer = process.env.OPGEN_CM_WRITER === '1';
const timings = { leaseDurationMs: Number(process.env.OPGEN_LEASE_MS ?? 4000), renewDeadlineMs: Number(process.env.OPGEN_RENEW_MS ?? 3000), retryPeriodMs: Number(process.env.OPGEN_RETRY_MS ?? 500) };
const mgr = await createManager({
  ...(mode === 'label' ? { leaderElection: true, leaderElectionID: 'guestbooks-leader', leaderElectionNamespace: namespace, ...timings } : {}),
  kubeConfig,
  logger: process.env.OPGEN_LOG ? createLogger({ level: process.env.OPGEN_LOG }) : silentLogger(),
  namespaces: [namespace],
  sharding: {
    name: 'guestbooks',
    namespace,
    identity,
    ...timings,
    ...(mode ? { mode } : {}),
    onOwnership: (o) => lines.push(JSON.stringify({ o })),
  },
  controller: { maxConcurrentReconciles: 4 },
});
const builder = mgr.controllerFor(Guestbook);
if (owned) builder.owns(ConfigMap);
builder.complete({
  async reconcile(req) {
    const s = now();
    const gb = await mgr.client.get(Guestbook, req);
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.OPGEN_RECONCILE_MS ?? 2)));
    if (owned) {
      await createOrUpdate(mgr.client, ConfigMap, { metadata: { name: `gb-${req.name}`, namespace: req.namespace } }, (cm) => {
        setControllerReference(gb, cm, Guestbook);
        cm.data = { message: String(gb.spec?.message ?? ''), ...(writer ? { writer: identity } : {}) };
      });
    }
    if (writeReady) {
      const ready = gb.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.observedGeneration !== gb.metadata.generation) {
        await mgr.client.status().patch(Guestbook, req, { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', message: '', observedGeneration: gb.metadata.generation, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } } });
      }
    }
    lines.push(JSON.stringify({ r: identity, k: req.name, u: gb.metadata.uid, v: gb.metadata.resourceVersion, s, e: now() }));
    return Result.done();
  },
});

const gauges = ['opgen_sharding_server_side', 'opgen_sharding_label_mode', 'opgen_sharding_active', 'opgen_sharding_objects_owned', 'opgen_sharding_ring_members', 'opgen_sharding_takeover_seconds', 'opgen_sharding_labels_written_total'];
// The first series of each; objects_owned of an owned kind as opgen_sharding_objects_owned:<Kind>, the labels written summed.
async function report() {
  const m = {};
  for (const name of gauges) {
    const text = await mgr.metrics.registry.getSingleMetricAsString(name);
    for (const line of text.split('\n').filter((l) => l.startsWith(name))) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      const kind = /kind="([^"]+)"/.exec(line)?.[1];
      if (name === 'opgen_sharding_labels_written_total') m[name] = (m[name] ?? 0) + value;
      else if (kind && kind !== 'Guestbook') m[`${name}:${kind}`] = value;
      else if (!(name in m)) m[name] = value;
    }
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

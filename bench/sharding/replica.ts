// One replica of bench/sharding, set up as a scaffolded operator is (templates/init/src/main.ts.hbs):
// createManager() reads the kubeconfig itself ($KUBECONFIG here) with the runtime's loader, never
// @kubernetes/client-node, whose KubeConfig alone adds ~38 MB to every process. Its Guestbook
// controller (one worker, the default) reads the Guestbook and writes its Ready condition for the
// generation. stdout: a JSON line per reconcile ({ k: name }, after the status write) and, every
// 250 ms until the ring of --replicas members has settled, the ring's gauges ({ m: { ... } }): the
// runner needs them only to start, so the measured span carries none of the benchmark's own work.
// argv: --namespace <ns> --identity <member name> --replicas <n>
import { parseArgs } from 'node:util';
import { createManager, groupVersion, type KubeObject, Result, setupSignalHandler, silentLogger } from '@opgen/runtime';

type Guestbook = KubeObject & { status?: { conditions?: { type: string; observedGeneration?: number }[] } };
const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind<Guestbook>('Guestbook');

const { values } = parseArgs({ options: { namespace: { type: 'string' }, identity: { type: 'string' }, replicas: { type: 'string' } } });
const replicas = Number(values.replicas);
const namespace = values.namespace!;
const lines: string[] = [];
const flush = () => {
  if (lines.length > 0) process.stdout.write(`${lines.splice(0).join('\n')}\n`);
};

const mgr = await createManager({
  logger: silentLogger(),
  namespaces: [namespace],
  sharding: { name: 'guestbooks', namespace, identity: values.identity },
});
mgr.controllerFor(Guestbook).complete({
  async reconcile(req) {
    const gb = await mgr.client.get(Guestbook, req);
    const generation = gb.metadata?.generation;
    if (gb.status?.conditions?.find((c) => c.type === 'Ready')?.observedGeneration !== generation) {
      const lastTransitionTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const ready = { type: 'Ready', status: 'True', reason: 'Reconciled', message: '', observedGeneration: generation, lastTransitionTime };
      await mgr.client.status().patch(Guestbook, req, { type: 'merge', body: { status: { conditions: [ready] } } });
    }
    lines.push(JSON.stringify({ k: req.name }));
    return Result.done();
  },
});

const gauges = ['opgen_sharding_ring_members', 'opgen_sharding_active'];
let settled = false;
async function report(): Promise<void> {
  if (settled) return;
  const m: Record<string, number> = {};
  for (const name of gauges) {
    const line = (await mgr.metrics.registry.getSingleMetricAsString(name)).split('\n').find((l) => l.startsWith(name));
    if (line) m[name] = Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  lines.push(JSON.stringify({ m }));
  settled = m.opgen_sharding_ring_members === replicas && m.opgen_sharding_active === 1;
}
const timer = setInterval(() => void report().then(flush), 250);
try {
  await mgr.start(setupSignalHandler());
} finally {
  clearInterval(timer);
  flush();
}

// The operator the dashboard images and test/grafana/prometheus.test.ts run: the Gadget kind that
// `opgen create api --group obs --version v1 --kind Gadget` scaffolds, reconciled by an @opgen/runtime
// manager whose conditions move the way a real operator's do, driven by a scenario of annotations:
// provisioning (Ready False/Provisioning, requeued until done) → Ready True/Available; a backend outage
// (Ready False/BackendUnavailable, Degraded True, the reconcile fails and is retried with backoff) and its
// recovery; a bad spec (Ready False/InvalidSpec, a terminal error); objects deleted.
import { type Client, type Condition, createClient, createManager, groupVersion, ignoreNotFound, type KubeConfigLike, type ObjectMeta, Result, setConditions, silentLogger, terminal } from '@opgen/runtime';

export interface Gadget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { foo?: string }; status?: { conditions?: Condition[] } }
export const Gadget = groupVersion('obs.example.com', 'v1').kind<Gadget>('Gadget', { plural: 'gadgets', namespaced: true });

/** Seconds the Gadget takes to provision, counted from its creation. */
const PROVISION = 'demo.opgen.dev/provision-seconds';
/** `down`: the backend refuses; anything else: it answers. */
const BACKEND = 'demo.opgen.dev/backend';
/** `invalid`: the spec cannot be served (a terminal error). */
const SPEC = 'demo.opgen.dev/spec';

export interface RunningOperator {
  metricsPort: number;
  stop(): Promise<void>;
}

/** Starts the manager (metrics on 127.0.0.1, an ephemeral port; leader election on) and its Gadget controller. */
export async function startOperator(kubeConfig: KubeConfigLike): Promise<RunningOperator> {
  const client = createClient(kubeConfig);
  const mgr = await createManager({
    kubeConfig, logger: silentLogger(), metricsBindAddress: '127.0.0.1:0',
    leaderElection: true, leaderElectionID: 'gadget-operator', leaderElectionNamespace: 'default',
  });
  mgr.controllerFor(Gadget).named('gadget').withOptions({ maxConcurrentReconciles: 2 }).complete({
    reconcile: async (req) => {
      const g = await client.get(Gadget, req).catch((err: unknown) => { ignoreNotFound(err); });
      if (!g) return;
      const a = g.metadata?.annotations ?? {};
      const write = async (...cs: Parameters<typeof setConditions>[1][]) => {
        if (setConditions(g, ...cs)) await client.status().update(Gadget, g);
      };
      if (a[SPEC] === 'invalid') {
        await write({ type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'spec.foo names no known size' });
        throw terminal(new Error('spec.foo names no known size'));
      }
      if (a[BACKEND] === 'down') {
        await write({ type: 'Ready', status: 'False', reason: 'BackendUnavailable', message: 'backend refused the connection' },
          { type: 'Degraded', status: 'True', reason: 'BackendUnavailable', message: 'backend refused the connection' });
        throw new Error('backend refused the connection');
      }
      const left = Date.parse(g.metadata!.creationTimestamp!) + Number(a[PROVISION] ?? 0) * 1000 - Date.now();
      if (left > 0) {
        await write({ type: 'Ready', status: 'False', reason: 'Provisioning', message: 'waiting for the backend to provision' },
          { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' });
        return Result.requeueAfter(Math.min(left, 2000));
      }
      await write({ type: 'Ready', status: 'True', reason: 'Available', message: 'serving' },
        { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' });
    },
  });
  const abort = new AbortController();
  const done = mgr.start(abort.signal);
  const deadline = Date.now() + 30_000;
  while (mgr.ports.metrics === undefined) {
    if (Date.now() > deadline) throw new Error('the manager did not serve /metrics within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { metricsPort: mgr.ports.metrics, stop: async () => { abort.abort(); await done; } };
}

type Step =
  | { at: number; create: string; namespace: string; provision: number; spec?: 'invalid' }
  | { at: number; backend: 'down' | 'up'; name: string; namespace: string }
  | { at: number; delete: string; namespace: string };

/**
 * What happens to the Gadgets, in fractions of the run's length (provisioning times too), so a 30 s test
 * and a 4 min image run go through the same states.
 */
export const scenario: Step[] = [
  { at: 0, create: 'web', namespace: 'default', provision: 0.1 },
  { at: 0, create: 'cache', namespace: 'default', provision: 0.12 },
  { at: 0.02, create: 'checkout', namespace: 'shop', provision: 0.1 },
  { at: 0.05, create: 'search', namespace: 'shop', provision: 0.25 },
  { at: 0.1, create: 'queue', namespace: 'default', provision: 0.2 },
  { at: 0.3, backend: 'down', name: 'cache', namespace: 'default' },
  { at: 0.4, create: 'billing', namespace: 'shop', provision: 0, spec: 'invalid' },
  { at: 0.45, create: 'report', namespace: 'default', provision: 0.3 },
  { at: 0.55, backend: 'down', name: 'checkout', namespace: 'shop' },
  { at: 0.7, backend: 'up', name: 'cache', namespace: 'default' },
  { at: 0.8, delete: 'search', namespace: 'shop' },
];

/** The namespaces the scenario uses besides `default`. */
export const namespaces = ['shop'];

/** Plays the scenario over `seconds`; resolves when the last step is done and `seconds` have passed. */
export async function playScenario(client: Client, seconds: number, signal?: AbortSignal): Promise<void> {
  const start = Date.now();
  const waitUntil = async (at: number) => {
    const ms = start + at * seconds * 1000 - Date.now();
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
    signal?.throwIfAborted();
  };
  for (const s of scenario) {
    await waitUntil(s.at);
    if ('create' in s) {
      const annotations: Record<string, string> = { [PROVISION]: String(Math.round(s.provision * seconds)) };
      if (s.spec) annotations[SPEC] = s.spec;
      await client.create(Gadget, { metadata: { name: s.create, namespace: s.namespace, annotations }, spec: { foo: s.create } });
    } else if ('backend' in s) {
      await client.patch(Gadget, { name: s.name, namespace: s.namespace }, { type: 'merge', body: { metadata: { annotations: { [BACKEND]: s.backend } } } });
    } else {
      await client.delete(Gadget, { name: s.delete, namespace: s.namespace });
    }
  }
  await waitUntil(1);
}

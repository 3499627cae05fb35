// The TypeScript side of the runtime benchmark: each Widget is reconciled into a ConfigMap of the
// same name (owned by the Widget) and a Ready condition, the same work as
// bench/peers/widget-operator. Run as its own process so the harness can read its memory.
// Flags: --namespace <ns> (required), --health-probe-bind-address (default ':8081'),
// --metrics-bind-address (default '0': off),
// --max-concurrent-reconciles (default 1, controller-runtime's default),
// --use-priority-queue (default true, as the runtime; false: one FIFO queue).
import { parseArgs } from 'node:util';
import {
  type Client,
  type Condition,
  ConfigMap,
  createManager,
  groupVersion,
  ignoreNotFound,
  isNotFound,
  type ObjectMeta,
  type Reconciler,
  type Request,
  Result,
  setControllerReference,
  setStatusCondition,
  setupSignalHandler,
} from '@opgen/runtime';

export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { data?: Record<string, string> };
  status?: { conditions?: Condition[] };
}
export const Widget = groupVersion('bench.opgen.dev', 'v1').kind<Widget>('Widget');

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b).length && keys.every((k) => a?.[k] === b[k]);
}

class WidgetReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  async reconcile(req: Request): Promise<Result> {
    let widget: Widget;
    try {
      widget = await this.client.get(Widget, req);
    } catch (err) {
      ignoreNotFound(err);
      return Result.done();
    }
    const data = widget.spec?.data ?? {};

    let configMap: ConfigMap | undefined;
    try {
      configMap = await this.client.get(ConfigMap, req);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (configMap === undefined) {
      configMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: req.name, namespace: req.namespace, labels: { 'app.kubernetes.io/managed-by': 'widget-operator' } },
        data,
      };
      setControllerReference(widget, configMap, Widget);
      await this.client.create(ConfigMap, configMap);
    } else if (!sameData(configMap.data, data)) {
      await this.client.update(ConfigMap, { ...configMap, data });
    }

    const { conditions, changed } = setStatusCondition(widget.status?.conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'ConfigMapReady',
      message: `ConfigMap ${req.name} holds the widget data`,
      observedGeneration: widget.metadata?.generation,
    });
    if (changed) await this.client.status().update(Widget, { ...widget, status: { ...widget.status, conditions } });
    return Result.done();
  }
}

const { values } = parseArgs({
  options: {
    namespace: { type: 'string' },
    'health-probe-bind-address': { type: 'string', default: ':8081' },
    'metrics-bind-address': { type: 'string', default: '0' },
    'max-concurrent-reconciles': { type: 'string', default: '1' },
    'use-priority-queue': { type: 'string', default: 'true' },
  },
});
if (!values.namespace) {
  process.stderr.write('widget-operator: --namespace is required\n');
  process.exit(2);
}
if (values['use-priority-queue'] !== 'true' && values['use-priority-queue'] !== 'false') {
  process.stderr.write(`widget-operator: --use-priority-queue takes true or false (got '${values['use-priority-queue']}')\n`);
  process.exit(2);
}
// As a scaffolded main.ts: the manager reads $KUBECONFIG (or in-cluster) itself.
const mgr = await createManager({
  namespaces: [values.namespace],
  healthProbeBindAddress: values['health-probe-bind-address'],
  metricsBindAddress: values['metrics-bind-address'],
  // Like for like: the controller-runtime peer records no Event when Ready turns True, while the
  // manager records one per condition transition by default (docs/observability.md).
  conditionEvents: false,
});
mgr
  .controllerFor(Widget)
  .owns(ConfigMap)
  .named('widget')
  .withOptions({ maxConcurrentReconciles: Number(values['max-concurrent-reconciles']), usePriorityQueue: values['use-priority-queue'] === 'true' })
  .complete(new WidgetReconciler(mgr.client));
mgr.addHealthzCheck('ping', () => {});
await mgr.start(setupSignalHandler());

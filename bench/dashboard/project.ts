// The project the dashboards come from, made by the real commands, and the scrape target its
// ServiceMonitor would give Prometheus.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ScrapeTarget } from './prometheus.js';

export const projectName = 'gadget-operator';

/** `opgen init`, `create api` (the Gadget kind), `edit --plugins grafana` and `generate` in `dir`. */
export async function makeProject(dir: string, opgen: (cwd: string, ...argv: string[]) => Promise<unknown>): Promise<void> {
  await opgen(dir, 'init', '--domain', 'example.com', '--skip-install');
  await opgen(dir, 'create', 'api', '--group', 'obs', '--version', 'v1', '--kind', 'Gadget');
  await opgen(dir, 'edit', '--plugins', 'grafana');
  await opgen(dir, 'generate');
}

export const crdPath = (dir: string) => join(dir, 'config/crd/bases/obs.example.com_gadgets.yaml');

/**
 * The target prometheus-operator makes of config/prometheus/monitor.yaml for the manager's metrics
 * Service: job = the Service's name, the target labels its relabeling sets (namespace, service,
 * endpoint), and honor_labels = the endpoint's honorLabels. The names are those `kubectl kustomize
 * config/default` gives (namePrefix `<project>-`, namespace `<project>-system`).
 */
export function serviceMonitorTarget(dir: string, address: string): ScrapeTarget {
  const monitor = parse(readFileSync(join(dir, 'config/prometheus/monitor.yaml'), 'utf8')) as { spec: { endpoints: { port: string; honorLabels?: boolean }[] } };
  const endpoint = monitor.spec.endpoints[0]!;
  const service = `${projectName}-controller-manager-metrics-service`;
  return { address, job: service, honorLabels: endpoint.honorLabels ?? false, labels: { namespace: `${projectName}-system`, service, endpoint: endpoint.port } };
}

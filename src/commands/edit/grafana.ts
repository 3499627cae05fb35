// `opgen edit --plugins grafana`: kubebuilder's grafana/v1-alpha for an opgen operator. Writes Grafana
// dashboards of the runtime's metrics (grafana/controller-runtime-metrics.json) and of the project's
// conditions per kind (grafana/conditions.json), and a PrometheusRule with alerts beside the
// ServiceMonitor (config/prometheus/prometheus_rule.yaml), all from templates/grafana. The dashboards
// pick the kind from the scrape (a Grafana variable), so APIs created later need no rerun; a rerun
// rewrites the dashboards (as kubebuilder's does) and keeps an existing rule file (thresholds are yours).
import { OpgenError } from '../../diag/diagnostic.js';
import type { ProjectConfig } from '../../project/index.js';
import { renderTemplates, type Tree } from '../../scaffold/index.js';

/** The PROJECT plugins key, after kubebuilder's `grafana.kubebuilder.io/v1-alpha`. */
export const GRAFANA_PLUGIN = 'grafana.opgen.dev/v1-alpha';

const KUSTOMIZATION = 'config/prometheus/kustomization.yaml';
const RULE = 'prometheus_rule.yaml';

/** The plugins `edit --plugins` knows, by the names it accepts. */
const KNOWN: Record<string, 'grafana'> = { grafana: 'grafana', 'grafana/v1-alpha': 'grafana', [GRAFANA_PLUGIN]: 'grafana' };

/** Validates --plugins' comma-separated list; returns the plugins to apply. */
export function parsePlugins(value: string): 'grafana'[] {
  const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new OpgenError('is empty', { flag: '--plugins' }, 'e.g. --plugins grafana');
  const unknown = names.find((n) => KNOWN[n] === undefined);
  if (unknown !== undefined) throw new OpgenError(`names an unknown plugin "${unknown}"`, { flag: '--plugins' }, 'the plugin edit can add is grafana (grafana/v1-alpha)');
  return [...new Set(names.map((n) => KNOWN[n]!))];
}

/** Stages the dashboards and the rule; returns the updated project and notes for the user. */
export function addGrafana(tree: Tree, project: ProjectConfig): { project: ProjectConfig; notes: string[] } {
  const data = {
    projectName: project.projectName,
    // The ServiceMonitor's scrape labels every series with job = the metrics Service's name: kustomize's
    // <project>-controller-manager-metrics-service, or the Helm chart's, prefixed with the release name.
    // (A project name is a DNS label: nothing in it is special in a regular expression.)
    job: `.*${project.projectName}-controller-manager-metrics-service`,
    alertPrefix: project.projectName.split(/[^a-zA-Z0-9]+/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(''),
  };
  renderTemplates(tree, 'grafana', { data });
  const notes = ['Import grafana/controller-runtime-metrics.json and grafana/conditions.json into Grafana (Dashboards > New > Import) and pick your Prometheus data source.'];
  const kustomization = tree.read(KUSTOMIZATION);
  if (kustomization !== undefined && !new RegExp(`^- ${RULE.replace('.', '\\.')}$`, 'm').test(kustomization)) {
    const next = kustomization.replace(/^- monitor\.yaml$/m, `- monitor.yaml\n- ${RULE}`);
    if (next !== kustomization) tree.write(KUSTOMIZATION, next);
    else notes.push(`Add ${RULE} to the resources of ${KUSTOMIZATION} to deploy the alerts.`);
  }
  return { project: { ...project, plugins: { ...project.plugins, [GRAFANA_PLUGIN]: {} } }, notes };
}

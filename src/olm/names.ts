// Name rules OLM applies (operator-framework/api's parseCSVNameFormat and bundle file naming).
import { checkDns1123Subdomain } from '../naming/validate.js';
import { groupOf, versionOf, type KubeObject } from './objects.js';

const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A CSV name (or replaces): a DNS-1123 subdomain that is also a label value (≤ 63 characters). */
export function checkCsvName(name: string): string | undefined {
  const dns = checkDns1123Subdomain(name);
  if (dns) return dns;
  if (name.length > 63) return 'must be no more than 63 characters (it is used as a label value)';
  if (!LABEL_VALUE_RE.test(name)) return 'must be a valid label value';
  return undefined;
}

/** operator-sdk's bundle file names: the CSV by package, CRDs by group and plural, others by name and GVK. */
export function bundleFileName(o: KubeObject, pkg: string): string {
  if (o.kind === 'ClusterServiceVersion') return `${pkg}.clusterserviceversion.yaml`;
  if (o.kind === 'CustomResourceDefinition') {
    const spec = o.spec as { group?: string; names?: { plural?: string } } | undefined;
    return `${spec?.group ?? ''}_${spec?.names?.plural ?? o.metadata?.name ?? ''}.yaml`;
  }
  const group = groupOf(o.apiVersion);
  const gv = group === '' ? versionOf(o.apiVersion) : `${group}_${versionOf(o.apiVersion)}`;
  return `${o.metadata?.name ?? ''}_${gv}_${(o.kind ?? '').toLowerCase()}.yaml`;
}

/** Kinds OLM accepts as bundle objects next to the CSV and CRDs (operator-registry's list). */
export const BUNDLE_KINDS = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'ConfigMap',
  'ConsoleCLIDownload',
  'ConsoleLink',
  'ConsoleQuickStart',
  'ConsoleYAMLSample',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'PriorityClass',
  'PrometheusRule',
  'Role',
  'RoleBinding',
  'Secret',
  'Service',
  'ServiceAccount',
  'ServiceMonitor',
  'VerticalPodAutoscaler',
]);

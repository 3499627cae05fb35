// The registry+v1 rules OLM v1 (operator-framework/operator-controller) applies when a ClusterExtension
// installs a bundle, checked on the bundle folder: its resolver refuses bundles that declare dependencies;
// its converter refuses API service definitions and (unless a webhook certificate provider is enabled)
// webhook definitions, runs the registry+v1 validators, and needs an install mode that fits the watch
// namespace configured (none: AllNamespaces); its renderer refuses object kinds it cannot install.
// Taken from operator-controller v1.5.1 (resolve.NoDependencyValidation, rukpak/convert, render,
// registryv1/validators and generators); the tests run that code side by side on every case.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Problem } from '../olm/validate.js';
import { CSV_KIND, isRecord, nameOf, parseYamlObjects, type KubeObject } from '../olm/objects.js';
import { checkDns1123Subdomain } from '../naming/validate.js';

export type WebhookProvider = 'cert-manager' | 'openshift-serviceca';
export const WEBHOOK_PROVIDERS: readonly WebhookProvider[] = ['cert-manager', 'openshift-serviceca'];

export interface OlmV1Options {
  /** The ClusterExtension's watchNamespace configuration; undefined or '' when none is set. */
  watchNamespace?: string;
  /** The namespace the ClusterExtension installs into (tells OwnNamespace from SingleNamespace). */
  installNamespace?: string;
  /** operator-controller runs with a webhook certificate provider (a feature gate; off by default). */
  webhookProvider?: WebhookProvider;
}

/** What OLM v1 refuses, by the step that refuses it (the tests match these against operator-controller's messages). */
export type OlmV1Check =
  | 'dependency'
  | 'olm-properties'
  | 'api-service'
  | 'webhook-unsupported'
  | 'duplicate-deployment'
  | 'deployment-name'
  | 'duplicate-crd'
  | 'owned-crd-missing'
  | 'package-name'
  | 'webhook-deployment'
  | 'duplicate-webhook'
  | 'webhook-name'
  | 'conversion-crd-shared'
  | 'conversion-crd-not-owned'
  | 'conversion-preserve-unknown-fields'
  | 'install-mode'
  | 'watch-namespace-ignored'
  | 'unsupported-kind';

export interface OlmV1Problem extends Problem {
  check: OlmV1Check;
}

// operator-registry's supported bundle kinds (pkg/lib/bundle/supported_resources.go), the renderer's list.
const SUPPORTED_KINDS = new Set([
  'ClusterServiceVersion', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'Service', 'ServiceAccount', 'Role', 'RoleBinding',
  'PrometheusRule', 'ServiceMonitor', 'Secret', 'ConfigMap', 'PodDisruptionBudget', 'PriorityClass', 'VerticalPodAutoscaler', 'ConsoleYAMLSample',
  'ConsoleQuickStart', 'ConsoleCLIDownload', 'ConsoleLink', 'ConsolePlugin', 'NetworkPolicy',
]);
// Property types the resolver refuses (resolve.NoDependencyValidation), and the dependencies.yaml types
// opm renders into them.
const DEPENDENCY_PROPERTIES = new Set(['olm.package.required', 'olm.gvk.required', 'olm.constraint']);
const DEPENDENCY_TYPES: Record<string, string> = { 'olm.package': 'olm.package.required', 'olm.gvk': 'olm.gvk.required', 'olm.constraint': 'olm.constraint' };

interface Csv {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: {
    installModes?: { type?: string; supported?: boolean }[];
    install?: { spec?: { deployments?: { name?: string; spec?: { template?: { spec?: { containers?: { name?: string; env?: { name?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[] }[] } } } }[] } };
    customresourcedefinitions?: { owned?: { name?: string }[]; required?: { name?: string; version?: string; kind?: string }[] };
    apiservicedefinitions?: { owned?: { name?: string; group?: string; version?: string; kind?: string }[]; required?: { group?: string; version?: string; kind?: string }[] };
    webhookdefinitions?: { type?: string; generateName?: string; deploymentName?: string; conversionCRDs?: string[] }[];
  };
}

/**
 * The problems OLM v1 would refuse the bundle in `dir` for, each naming the CSV (or metadata) field and
 * the fix. Structural problems (no CSV, bad YAML) are left to `bundle validate`, which runs first.
 */
export async function lintOlmV1(cwd: string, dir: string, o: OlmV1Options = {}): Promise<OlmV1Problem[]> {
  const abs = resolve(cwd, dir);
  const shown = (p: string): string => relative(cwd, p) || '.';
  const problems: OlmV1Problem[] = [];
  const add = (check: OlmV1Check, file: string, field: string, message: string, fix: string): void =>
    void problems.push({ level: 'error', check, file, field, message, fix });

  const manifests = join(abs, 'manifests');
  if (!existsSync(manifests) || !statSync(manifests).isDirectory()) return problems;
  let csv: Csv | undefined;
  let csvFile = shown(manifests);
  const crds: { file: string; object: KubeObject }[] = [];
  const others: { file: string; object: KubeObject }[] = [];
  for (const name of readdirSync(manifests).sort()) {
    const path = join(manifests, name);
    if (name.startsWith('.') || statSync(path).isDirectory()) continue;
    let objects: KubeObject[];
    try {
      objects = await parseYamlObjects(readFileSync(path, 'utf8'));
    } catch {
      continue; // bundle validate reports it
    }
    for (const obj of objects) {
      if (obj.kind === CSV_KIND) {
        csv = obj as Csv;
        csvFile = shown(path);
      } else if (obj.kind === 'CustomResourceDefinition') crds.push({ file: shown(path), object: obj });
      else others.push({ file: shown(path), object: obj });
    }
  }
  if (!csv) return problems;
  const spec = csv.spec ?? {};
  const metadataDir = join(abs, 'metadata');

  // Resolution: dependencies in any of the places opm reads them from.
  const depFix = 'OLM v1 installs no dependencies: remove it and document that the other operator must be installed first';
  for (const [i, r] of (spec.customresourcedefinitions?.required ?? []).entries()) {
    add('dependency', csvFile, `spec.customresourcedefinitions.required[${i}]`, `requires CRD ${r.name ?? '?'} (becomes an olm.gvk.required dependency)`, depFix);
  }
  for (const [i, r] of (spec.apiservicedefinitions?.required ?? []).entries()) {
    add('dependency', csvFile, `spec.apiservicedefinitions.required[${i}]`, `requires API ${r.group ?? ''}/${r.version ?? ''} ${r.kind ?? ''} (becomes an olm.gvk.required dependency)`, depFix);
  }
  const olmProperties = csv.metadata?.annotations?.['olm.properties'];
  if (olmProperties !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(olmProperties);
    } catch (e) {
      // opm only warns; operator-controller's bundle loader refuses it.
      add('olm-properties', csvFile, 'metadata.annotations["olm.properties"]', `is not a JSON list of properties: ${(e as Error).message}`, 'write a JSON array such as [{"type":"olm.maxOpenShiftVersion","value":"4.20"}], or remove the annotation');
    }
    if (Array.isArray(parsed)) {
      for (const [i, p] of parsed.entries()) {
        if (isRecord(p) && DEPENDENCY_PROPERTIES.has(String(p.type))) add('dependency', csvFile, `metadata.annotations["olm.properties"][${i}]`, `declares a ${String(p.type)} property`, depFix);
      }
    }
  }
  for (const [file, key, types] of [['properties.yaml', 'properties', null], ['dependencies.yaml', 'dependencies', DEPENDENCY_TYPES]] as const) {
    const path = join(metadataDir, file);
    if (!existsSync(path)) continue;
    let docs: KubeObject[];
    try {
      docs = await parseYamlObjects(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    const list = (docs[0] as Record<string, unknown> | undefined)?.[key];
    if (!Array.isArray(list)) continue;
    for (const [i, p] of list.entries()) {
      if (!isRecord(p)) continue;
      const type = String(p.type);
      const becomes = types === null ? (DEPENDENCY_PROPERTIES.has(type) ? type : undefined) : types[type];
      if (becomes) add('dependency', shown(path), `${key}[${i}]`, `declares a ${type} ${types === null ? 'property' : `dependency (rendered as ${becomes})`}`, depFix);
    }
  }

  // Conversion to installable objects.
  for (const [i, a] of (spec.apiservicedefinitions?.owned ?? []).entries()) {
    add('api-service', csvFile, `spec.apiservicedefinitions.owned[${i}]`, `owns API service ${a.name ?? a.group ?? '?'}; OLM v1 does not install API services`, 'serve the API as a CRD instead, or ship this operator through OLM v0');
  }
  const webhooks = spec.webhookdefinitions ?? [];
  if (webhooks.length > 0 && o.webhookProvider === undefined) {
    add('webhook-unsupported', csvFile, 'spec.webhookdefinitions', `declares ${webhooks.length} webhook${webhooks.length > 1 ? 's' : ''}; OLM v1 installs webhooks only when operator-controller runs with a certificate provider (feature gate WebhookProviderCertManager or WebhookProviderOpenshiftServiceCA)`, 'enable that feature gate and lint with --webhook-provider cert-manager, or bundle without webhooks');
  }

  // registryv1 validators, in operator-controller's order.
  const deployments = spec.install?.spec?.deployments ?? [];
  const seenDeployments = new Set<string>();
  for (const [i, d] of deployments.entries()) {
    const name = d.name ?? '';
    if (seenDeployments.has(name)) add('duplicate-deployment', csvFile, `spec.install.spec.deployments[${i}].name`, `deployment '${name}' appears twice`, 'give each deployment its own name');
    seenDeployments.add(name);
    const bad = checkDns1123Subdomain(name);
    if (bad) add('deployment-name', csvFile, `spec.install.spec.deployments[${i}].name`, `'${name}' ${bad}`, 'rename the deployment');
  }
  const crdNames = new Set<string>();
  for (const c of crds) {
    if (crdNames.has(nameOf(c.object))) add('duplicate-crd', c.file, 'metadata.name', `CRD ${nameOf(c.object)} is in the bundle twice`, 'keep one manifest per CRD');
    crdNames.add(nameOf(c.object));
  }
  const owned = new Set<string>();
  for (const [i, c] of (spec.customresourcedefinitions?.owned ?? []).entries()) {
    owned.add(c.name ?? '');
    if (!crdNames.has(c.name ?? '')) add('owned-crd-missing', csvFile, `spec.customresourcedefinitions.owned[${i}]`, `owned CRD ${c.name ?? ''} is not in the bundle`, 'add its manifest to manifests/ or remove the entry');
  }
  const annotationsPath = join(metadataDir, 'annotations.yaml');
  const packageName = await readPackageName(annotationsPath);
  if (!packageName) add('package-name', shown(annotationsPath), 'annotations["operators.operatorframework.io.bundle.package.v1"]', 'the package name is empty', 'set it to the package name (opgen generate bundle --package)');
  const seenWebhooks = new Map<string, Set<string>>();
  for (const [i, w] of webhooks.entries()) {
    const field = `spec.webhookdefinitions[${i}]`;
    const name = w.generateName ?? '';
    if (!seenDeployments.has(w.deploymentName ?? '')) add('webhook-deployment', csvFile, `${field}.deploymentName`, `webhook '${name}' names deployment '${w.deploymentName ?? ''}', which the CSV does not install`, `name one of: ${[...seenDeployments].join(', ') || '(none)'}`);
    const sameType = seenWebhooks.get(w.type ?? '') ?? new Set<string>();
    if (sameType.has(name)) add('duplicate-webhook', csvFile, `${field}.generateName`, `two ${w.type ?? ''} webhooks are named '${name}'`, 'give each webhook of a type its own generateName');
    sameType.add(name);
    seenWebhooks.set(w.type ?? '', sameType);
    const bad = checkDns1123Subdomain(name);
    if (bad) add('webhook-name', csvFile, `${field}.generateName`, `'${name}' ${bad}`, 'rename the webhook');
  }
  const conversionBy = new Map<string, string[]>();
  for (const [i, w] of webhooks.entries()) {
    if (w.type !== 'ConversionWebhook') continue;
    for (const crd of w.conversionCRDs ?? []) {
      conversionBy.set(crd, [...(conversionBy.get(crd) ?? []), w.generateName ?? '']);
      if (!owned.has(crd)) add('conversion-crd-not-owned', csvFile, `spec.webhookdefinitions[${i}].conversionCRDs`, `conversion webhook '${w.generateName ?? ''}' converts ${crd}, which the CSV does not own`, 'list only CRDs under spec.customresourcedefinitions.owned');
    }
  }
  for (const [crd, names] of [...conversionBy].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (names.length > 1) add('conversion-crd-shared', csvFile, 'spec.webhookdefinitions', `conversion webhooks ${[...names].sort().join(', ')} all convert ${crd}`, 'let one conversion webhook serve each CRD');
  }

  // Target namespaces: the watchNamespace configuration (none: all namespaces) against the install modes.
  const supported = new Set((spec.installModes ?? []).filter((m) => m.supported === true).map((m) => m.type ?? ''));
  const watch = o.watchNamespace ?? '';
  const modes = [...supported].sort().join(', ') || 'none';
  if (watch === '') {
    if (!supported.has('AllNamespaces')) {
      add('install-mode', csvFile, 'spec.installModes', `AllNamespaces is not supported (supported: ${modes}); OLM v1 installs a bundle for all namespaces unless the ClusterExtension configures a watchNamespace`, 'support AllNamespaces, or install with spec.config.inline.watchNamespace set (lint with --watch-namespace)');
    }
  } else {
    // Without the install namespace either mode may fit; with it, OLM v1 picks OwnNamespace for it, SingleNamespace for another.
    const needed = o.installNamespace === undefined ? ['OwnNamespace', 'SingleNamespace'] : [watch === o.installNamespace ? 'OwnNamespace' : 'SingleNamespace'];
    const ok = needed.some((m) => supported.has(m));
    if (!ok) add('install-mode', csvFile, 'spec.installModes', `watchNamespace '${watch}' needs ${needed.join(' or ')} (supported: ${modes})`, `mark ${needed.join(' or ')} supported, or install without a watchNamespace`);
    // opgen's own (operator-controller installs it): OLM v1 passes the watchNamespace to the operator only as
    // the pod annotation olm.targetNamespaces, so a manager reading WATCH_NAMESPACE from its own namespace
    // watches the install namespace instead.
    if (watch !== o.installNamespace) {
      for (const [i, d] of deployments.entries()) {
        for (const [j, c] of (d.spec?.template?.spec?.containers ?? []).entries()) {
          const k = (c.env ?? []).findIndex((e) => e.name === 'WATCH_NAMESPACE' && e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace');
          if (k < 0) continue;
          problems.push({
            level: 'warning', check: 'watch-namespace-ignored', file: csvFile, field: `spec.install.spec.deployments[${i}].spec.template.spec.containers[${j}].env[${k}]`,
            message: `container ${c.name ?? ''} takes WATCH_NAMESPACE from its own namespace, so it would watch the install namespace, not '${watch}'`,
            fix: "take it from fieldPath: metadata.annotations['olm.targetNamespaces'] in config/manager, which OLM v1 sets to the watchNamespace",
          });
        }
      }
    }
  }

  // Rendering: conversion CRDs must let the API server call the webhook; other objects must be of kinds OLM installs.
  if (o.webhookProvider !== undefined) {
    for (const c of crds) {
      const cs = (c.object.spec ?? {}) as { preserveUnknownFields?: boolean };
      if (conversionBy.has(nameOf(c.object)) && cs.preserveUnknownFields === true) {
        add('conversion-preserve-unknown-fields', c.file, 'spec.preserveUnknownFields', `${nameOf(c.object)} keeps preserveUnknownFields, so the API server would not call its conversion webhook`, 'set spec.preserveUnknownFields: false');
      }
    }
  }
  for (const x of others) {
    if (!SUPPORTED_KINDS.has(String(x.object.kind))) add('unsupported-kind', x.file, 'kind', `${String(x.object.kind)} ${nameOf(x.object)} is not a kind OLM installs from a bundle`, 'remove it from the bundle (create it from the operator, or document it as a prerequisite)');
  }
  return problems;
}

async function readPackageName(path: string): Promise<string> {
  if (!existsSync(path)) return '';
  try {
    const [doc] = await parseYamlObjects(readFileSync(path, 'utf8'));
    const ann = (doc as Record<string, unknown> | undefined)?.annotations;
    return isRecord(ann) ? String(ann['operators.operatorframework.io.bundle.package.v1'] ?? '') : '';
  } catch {
    return '';
  }
}

// What doctor compares the cluster with: PROJECT, the generated manifests under config/, and the
// +kubebuilder:rbac markers in src/ (with their positions, so a finding can point at one).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { OpgenError } from '../diag/diagnostic.js';
import { parseProject, PROJECT_FILE, type ProjectConfig } from '../project/index.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface RbacMarker {
  /** `src/controller/memcached-controller.ts:9:1` */
  position: string;
  text: string;
  groups: string[];
  resources: string[];
  verbs: string[];
  namespace?: string;
}

export interface DoctorProject {
  root: string;
  config: ProjectConfig;
  /** CustomResourceDefinitions of config/crd/bases. */
  crds: KubeObject[];
  /** Mutating/ValidatingWebhookConfigurations of config/webhook/manifests.yaml. */
  webhookConfigurations: KubeObject[];
  markers: RbacMarker[];
  /** The operator's identity once deployed: config/default's namespace and namePrefix, config/rbac's ServiceAccount. */
  serviceAccount: { namespace: string; name: string };
}

export function loadDoctorProject(root: string): DoctorProject {
  const projectFile = join(root, PROJECT_FILE);
  if (!existsSync(projectFile)) {
    throw new OpgenError(`no ${PROJECT_FILE} in ${root}`, { file: PROJECT_FILE }, 'run opgen doctor in an opgen project (where opgen init wrote PROJECT)');
  }
  const config = parseProject(readFileSync(projectFile, 'utf8'));
  const crds = yamlObjects(join(root, 'config/crd/bases')).filter((o) => o.kind === 'CustomResourceDefinition');
  const webhookConfigurations = yamlObjects(join(root, 'config/webhook/manifests.yaml'))
    .filter((o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration');
  const defaults = yamlObjects(join(root, 'config/default/kustomization.yaml'))[0] as { namespace?: string; namePrefix?: string } | undefined;
  const sa = yamlObjects(join(root, 'config/rbac/service_account.yaml')).find((o) => o.kind === 'ServiceAccount');
  return {
    root,
    config,
    crds,
    webhookConfigurations,
    markers: scanRbacMarkers(root),
    serviceAccount: {
      namespace: defaults?.namespace ?? `${config.projectName}-system`,
      name: `${defaults?.namePrefix ?? ''}${sa?.metadata?.name ?? 'controller-manager'}`,
    },
  };
}

/** Every object of a YAML file, or of the .yaml/.yml files of a folder (sorted); nothing when absent. */
export function yamlObjects(path: string): KubeObject[] {
  if (!existsSync(path)) return [];
  const files = statSync(path).isDirectory()
    ? readdirSync(path).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(path, f))
    : [path];
  return files.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as KubeObject).filter((o) => o !== null && typeof o === 'object'));
}

const MARKER = /\/\/\s*\+kubebuilder:rbac:(\S+)/;

/** The RBAC markers under src/, in file order. */
export function scanRbacMarkers(root: string): RbacMarker[] {
  const out: RbacMarker[] = [];
  for (const file of tsFiles(join(root, 'src'))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const m = MARKER.exec(line);
      if (!m) return;
      const args = parseArgs(m[1]!);
      out.push({
        position: `${relative(root, file)}:${i + 1}:${m.index + 1}`,
        text: `// +kubebuilder:rbac:${m[1]}`,
        groups: (args.groups ?? ['']).map((g) => (g === 'core' ? '' : g)),
        resources: args.resources ?? [],
        verbs: args.verbs ?? [],
        ...(args.namespace?.[0] ? { namespace: args.namespace[0] } : {}),
      });
    });
  }
  return out;
}

function parseArgs(text: string): Record<string, string[]> {
  const args: Record<string, string[]> = {};
  for (const part of text.split(',')) {
    const [k, v] = part.split('=') as [string, string | undefined];
    if (v !== undefined) args[k] = v.replace(/^\{|\}$/g, '').split(';').map((s) => s.trim());
  }
  return args;
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(p);
      return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
    });
}

// The bundle's metadata and files: annotations.yaml, bundle.Dockerfile's labels (the user's kept), the
// previous run's values, and staging bundle/ (stale manifests removed).
import { opgenVersion } from '../common/version.js';
import { OpgenError } from '../diag/diagnostic.js';
import { LAYOUT } from '../project/index.js';
import { renderTemplates, type Tree } from '../scaffold/index.js';
import type { BundleInputs } from './bundle-model.js';
import { byKey, isRecord, parseYamlDocument, yamlDocument, type KubeObject } from './objects.js';

export const ANNOTATION = {
  mediatype: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  package: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
  builder: 'operators.operatorframework.io.metrics.builder',
  metricsMediatype: 'operators.operatorframework.io.metrics.mediatype.v1',
  layout: 'operators.operatorframework.io.metrics.project_layout',
  testMediatype: 'operators.operatorframework.io.test.mediatype.v1',
  testConfig: 'operators.operatorframework.io.test.config.v1',
} as const;

/** annotations.yaml: opgen's keys set, the user's other keys kept. */
export function bundleAnnotations(inputs: BundleInputs, existing: Record<string, string>): Record<string, string> {
  return {
    ...existing,
    [ANNOTATION.mediatype]: 'registry+v1',
    [ANNOTATION.manifests]: 'manifests/',
    [ANNOTATION.metadata]: 'metadata/',
    [ANNOTATION.package]: inputs.package,
    [ANNOTATION.channels]: inputs.channels.join(','),
    [ANNOTATION.defaultChannel]: inputs.defaultChannel,
    [ANNOTATION.builder]: `opgen-v${opgenVersion()}`,
    [ANNOTATION.metricsMediatype]: 'metrics+v1',
    [ANNOTATION.layout]: LAYOUT,
    [ANNOTATION.testMediatype]: 'scorecard+v1',
    [ANNOTATION.testConfig]: 'tests/scorecard/',
  };
}

/** `LABEL k=v` pairs of a Dockerfile (one per line, or several on one LABEL line). */
export function dockerfileLabels(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const joined = text.replace(/\\\r?\n/g, ' ');
  for (const line of joined.split(/\r?\n/)) {
    const m = /^\s*LABEL\s+(.*)$/i.exec(line);
    if (!m) continue;
    const re = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
    for (const pair of m[1]!.matchAll(re)) {
      const raw = pair[2]!;
      out.set(pair[1]!, raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
    }
  }
  return out;
}

/** The values `generate bundle` needs from the files a previous run left (channels, user labels). */
export async function readPreviousMetadata(tree: Tree, outputDir: string): Promise<{ annotations: Record<string, string>; dockerLabels: Map<string, string> }> {
  let annotations: Record<string, string> = {};
  const path = `${outputDir}/metadata/annotations.yaml`;
  const text = tree.read(path);
  if (text !== undefined) {
    let doc: unknown;
    try {
      doc = await parseYamlDocument(text);
    } catch (err) {
      throw new OpgenError(`cannot read it: ${(err as Error).message.split('\n')[0]}`, { file: path }, 'fix its YAML or delete it');
    }
    const a = isRecord(doc) && isRecord(doc.annotations) ? doc.annotations : {};
    annotations = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, String(v)]));
  }
  const docker = tree.read('bundle.Dockerfile');
  return { annotations, dockerLabels: docker === undefined ? new Map() : dockerfileLabels(docker) };
}

/** Stages bundle/manifests (stale files removed), metadata, tests and bundle.Dockerfile. */
export async function stageBundle(
  tree: Tree,
  built: { files: Map<string, KubeObject>; scorecard?: KubeObject },
  inputs: BundleInputs,
  previous: { annotations: Record<string, string>; dockerLabels: Map<string, string> },
): Promise<void> {
  const dir = inputs.outputDir;
  const manifests = `${dir}/manifests`;
  for (const stale of tree.list(manifests)) {
    if (!built.files.has(stale.slice(manifests.length + 1))) tree.delete(stale);
  }
  for (const [name, obj] of [...built.files].sort(byKey)) tree.write(`${manifests}/${name}`, await yamlDocument(obj));
  const annotations = bundleAnnotations(inputs, previous.annotations);
  tree.write(`${dir}/metadata/annotations.yaml`, await yamlDocument({ annotations }));
  if (built.scorecard) tree.write(`${dir}/tests/scorecard/config.yaml`, await yamlDocument(built.scorecard));
  // Labels: the annotations, then LABELs the user added to the Dockerfile alone.
  const owned = Object.values(ANNOTATION) as string[];
  const labels = new Map<string, string>(owned.map((k) => [k, annotations[k]!]));
  for (const k of Object.keys(annotations).filter((k) => !owned.includes(k)).sort()) labels.set(k, annotations[k]!);
  for (const [k, v] of [...previous.dockerLabels].sort(byKey)) if (!labels.has(k)) labels.set(k, v);
  const rows = [...labels].map(([key, value]) => ({ key, value: /^[^\s"'\\$]*$/.test(value) && value !== '' ? value : JSON.stringify(value) }));
  renderTemplates(tree, 'olm/bundle', { data: { labels: rows, bundleDir: dir } });
}

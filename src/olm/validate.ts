// `opgen bundle validate`: the checks operator-framework/api's default bundle validators run (and the
// operatorframework suite's, on request), plus what they leave out but OLM or opm refuse later: a
// SemVer skipRange, alm-examples that fit the CRD schemas, Dockerfile labels equal to the annotations,
// well-formed relatedImages. Reads files only; needs no cluster. One Problem per finding.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ANNOTATION, dockerfileLabels } from './bundle-metadata.js';
import { checkCsvName } from './names.js';
import { CSV_KIND, groupOf, isRecord, nameOf, parseYamlObjects, versionOf, type KubeObject } from './objects.js';
import { checkAgainstSchema, type Schema } from './schema-check.js';
import { parseRange, parseSemVer } from './semver.js';
import { checkDns1123Label } from '../naming/validate.js';

export interface Problem {
  level: 'error' | 'warning';
  /** Path as the user typed it (relative to the working directory). */
  file: string;
  /** The field, e.g. spec.installModes; '' when the whole file is meant. */
  field: string;
  message: string;
  fix: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}: ${p.level}: ${p.field === '' ? '' : `${p.field}: `}${p.message} (${p.fix})`;
}

export const MAX_BUNDLE_SIZE = 1 << 20;
const INSTALL_MODES = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'];
const CAPABILITIES = ['Basic Install', 'Seamless Upgrades', 'Full Lifecycle', 'Deep Insights', 'Auto Pilot'];
const CATEGORIES = [
  'AI/Machine Learning', 'Application Runtime', 'Big Data', 'Cloud Provider', 'Developer Tools', 'Database', 'Integration & Delivery', 'Logging & Tracing',
  'Monitoring', 'Modernization & Migration', 'Networking', 'OpenShift Optional', 'Security', 'Storage', 'Streaming & Messaging', 'Observability',
];
const ICON_TYPES = ['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml'];
// Case-sensitive annotation keys OLM reads (operator-framework/api's CaseSensitiveAnnotationKeySet).
const CASE_SENSITIVE = ['olm.operatorGroup', 'olm.operatorNamespace', 'olm.targetNamespaces', 'olm.providedAPIs', 'olm.skipRange'];
// distribution/reference's grammar, simplified: [registry/]path[:tag][@digest].
const IMAGE_RE = /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$/;

export interface ValidateOptions {
  optional?: 'operatorframework';
}

interface Ref { name?: string; optional?: boolean }
interface PodSpec {
  volumes?: { name?: string; secret?: { secretName?: string; optional?: boolean }; configMap?: Ref; projected?: { sources?: { secret?: Ref; configMap?: Ref }[] } }[];
  containers?: { name?: string; envFrom?: { secretRef?: Ref; configMapRef?: Ref }[] }[];
  initContainers?: { name?: string; envFrom?: { secretRef?: Ref; configMapRef?: Ref }[] }[];
}

interface Loaded {
  file: string;
  object: KubeObject;
}

export async function validateBundleDir(cwd: string, dir: string, o: ValidateOptions = {}): Promise<Problem[]> {
  const abs = resolve(cwd, dir);
  const shown = (p: string): string => relative(cwd, p) || '.';
  const problems: Problem[] = [];
  const add = (level: Problem['level'], file: string, field: string, message: string, fix: string): void => void problems.push({ level, file, field, message, fix });
  const err = (file: string, field: string, message: string, fix: string): void => add('error', file, field, message, fix);
  const warn = (file: string, field: string, message: string, fix: string): void => add('warning', file, field, message, fix);

  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    err(shown(abs), '', 'no such bundle directory', 'run opgen generate bundle, or pass the bundle directory');
    return problems;
  }
  const manifestsDir = join(abs, 'manifests');
  const annotationsFile = join(abs, 'metadata', 'annotations.yaml');
  if (!existsSync(manifestsDir)) err(shown(manifestsDir), '', 'missing', 'a bundle keeps its CSV and CRDs in manifests/');

  // Objects, one per file as OLM reads them.
  const loaded: Loaded[] = [];
  if (existsSync(manifestsDir)) {
    for (const name of readdirSync(manifestsDir).sort()) {
      const path = join(manifestsDir, name);
      if (name.startsWith('.')) {
        err(shown(path), '', 'hidden file in manifests/', 'remove it; OLM refuses hidden files in a bundle');
        continue;
      }
      if (statSync(path).isDirectory()) {
        err(shown(path), '', 'directory in manifests/', 'keep manifests/ flat; OLM refuses sub-directories');
        continue;
      }
      let objects: KubeObject[];
      try {
        objects = await parseYamlObjects(readFileSync(path, 'utf8'));
      } catch (e) {
        err(shown(path), '', `not valid YAML: ${(e as Error).message.split('\n')[0]}`, 'fix the YAML');
        continue;
      }
      if (objects.length === 0) {
        err(shown(path), '', 'holds no object', 'remove the file or put one manifest in it');
        continue;
      }
      if (objects.length > 1) err(shown(path), '', `holds ${objects.length} objects; OLM reads only the first`, 'put each object in a file of its own');
      loaded.push({ file: shown(path), object: objects[0]! });
    }
  }
  const csvs = loaded.filter((l) => l.object.kind === CSV_KIND);
  if (existsSync(manifestsDir) && csvs.length === 0) err(shown(manifestsDir), '', 'no ClusterServiceVersion', 'run opgen generate bundle (it writes <package>.clusterserviceversion.yaml)');
  if (csvs.length > 1) err(csvs[1]!.file, '', `a second ClusterServiceVersion (the first is ${csvs[0]!.file})`, 'keep one CSV per bundle');
  const crds = loaded.filter((l) => l.object.kind === 'CustomResourceDefinition');
  for (const c of crds) {
    const v = c.object.apiVersion;
    if (v !== 'apiextensions.k8s.io/v1' && v !== 'apiextensions.k8s.io/v1beta1') err(c.file, 'apiVersion', `CRD apiVersion ${v} is not supported`, 'use apiextensions.k8s.io/v1');
  }

  // metadata/annotations.yaml and the Dockerfile's labels.
  let annotations: Record<string, string> = {};
  if (!existsSync(annotationsFile)) {
    err(shown(annotationsFile), '', 'missing', 'run opgen generate bundle (it writes metadata/annotations.yaml)');
  } else {
    const { parse } = await import('yaml');
    let doc: unknown;
    try {
      doc = parse(readFileSync(annotationsFile, 'utf8'));
    } catch (e) {
      err(shown(annotationsFile), '', `not valid YAML: ${(e as Error).message.split('\n')[0]}`, 'fix the YAML');
    }
    if (doc !== undefined) {
      if (!isRecord(doc) || !isRecord(doc.annotations)) err(shown(annotationsFile), 'annotations', 'missing', 'put the bundle labels under annotations:');
      else annotations = Object.fromEntries(Object.entries(doc.annotations).map(([k, v]) => [k, String(v)]));
    }
    const required: [string, string][] = [
      [ANNOTATION.mediatype, 'registry+v1'],
      [ANNOTATION.manifests, 'manifests/'],
      [ANNOTATION.metadata, 'metadata/'],
      [ANNOTATION.package, '<package>'],
      [ANNOTATION.channels, '<channel,…>'],
    ];
    for (const [key, example] of required) {
      if (isRecord(doc) && isRecord(doc.annotations) && !(key in annotations)) err(shown(annotationsFile), `annotations["${key}"]`, 'missing', `add ${key}: ${example}`);
    }
    const mediatype = annotations[ANNOTATION.mediatype];
    if (mediatype !== undefined && !['registry+v1', 'plain+v0', 'helm'].includes(mediatype)) err(shown(annotationsFile), `annotations["${ANNOTATION.mediatype}"]`, `unknown media type ${mediatype}`, 'write registry+v1');
    const pkg = annotations[ANNOTATION.package];
    if (pkg !== undefined && checkDns1123Label(pkg)) err(shown(annotationsFile), `annotations["${ANNOTATION.package}"]`, `package '${pkg}' ${checkDns1123Label(pkg)!}`, 'use a DNS-1123 label');
    const channels = (annotations[ANNOTATION.channels] ?? '').split(',').map((c) => c.trim());
    if (annotations[ANNOTATION.channels] !== undefined && channels.some((c) => c === '')) err(shown(annotationsFile), `annotations["${ANNOTATION.channels}"]`, 'has an empty channel name', 'list channel names separated by commas');
    const def = annotations[ANNOTATION.defaultChannel];
    if (def !== undefined && annotations[ANNOTATION.channels] !== undefined && !channels.includes(def)) {
      err(shown(annotationsFile), `annotations["${ANNOTATION.defaultChannel}"]`, `default channel '${def}' is not one of the channels (${channels.join(', ')})`, 'name one of the channels');
    }
    // The Dockerfile that builds this bundle: bundle.Dockerfile next to the bundle folder, or inside it.
    const dockerfile = [join(dirname(abs), 'bundle.Dockerfile'), join(abs, 'bundle.Dockerfile'), join(abs, 'Dockerfile')].find((p) => existsSync(p));
    if (dockerfile) {
      const labels = dockerfileLabels(readFileSync(dockerfile, 'utf8'));
      for (const [k, v] of Object.entries(annotations)) {
        if (!labels.has(k)) err(shown(dockerfile), `LABEL ${k}`, `missing; metadata/annotations.yaml sets it to '${v}'`, `add LABEL ${k}=${v}, or rerun opgen generate bundle`);
        else if (labels.get(k) !== v) err(shown(dockerfile), `LABEL ${k}`, `is '${labels.get(k)}' but metadata/annotations.yaml says '${v}'`, 'make them equal, or rerun opgen generate bundle');
      }
    }
  }

  const csvEntry = csvs[0];
  if (csvEntry) checkCsv(csvEntry, crds, loaded, err, warn, o);
  if (o.optional === 'operatorframework' && existsSync(annotationsFile)) {
    // OLM's channel naming convention (good practices): candidate*, stable*, fast*.
    const channels = [...(annotations[ANNOTATION.channels] ?? '').split(','), annotations[ANNOTATION.defaultChannel] ?? ''].map((c) => c.trim()).filter((c) => c !== '');
    const odd = [...new Set(channels)].filter((c) => !['candidate', 'stable', 'fast'].some((p) => c.startsWith(p)));
    if (odd.length > 0) warn(shown(annotationsFile), `annotations["${ANNOTATION.channels}"]`, `channel${odd.length > 1 ? 's' : ''} ${odd.join(', ')} do${odd.length > 1 ? '' : 'es'} not follow OLM's naming convention`, 'name channels candidate…, stable… or fast… (https://olm.operatorframework.io/docs/best-practices/channel-naming)');
  }

  // Size: gzip+base64 of every file, as OLM stages the bundle in a ConfigMap.
  let compressed = 0;
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else compressed += Math.ceil(gzipSync(readFileSync(p)).length / 3) * 4;
    }
  };
  walk(abs);
  if (compressed > MAX_BUNDLE_SIZE) err(shown(abs), '', `compressed size ${compressed} bytes exceeds the 1 MiB OLM can stage`, 'move large objects out of the bundle (e.g. shorten CRD descriptions)');
  else if (compressed > MAX_BUNDLE_SIZE * 0.85) warn(shown(abs), '', `compressed size ${compressed} bytes is over 85 % of the 1 MiB limit`, 'keep an eye on the bundle size');
  return problems;
}

type Report = (file: string, field: string, message: string, fix: string) => void;

function checkCsv(entry: Loaded, crds: Loaded[], all: Loaded[], err: Report, warn: Report, o: ValidateOptions): void {
  const { file, object: csv } = entry;
  const spec = (isRecord(csv.spec) ? csv.spec : {}) as Record<string, unknown>;
  const meta = csv.metadata ?? {};
  const annotations = (isRecord(meta.annotations) ? meta.annotations : {}) as Record<string, string>;
  if (csv.apiVersion !== 'operators.coreos.com/v1alpha1') err(file, 'apiVersion', `is ${csv.apiVersion ?? 'missing'}`, 'write apiVersion: operators.coreos.com/v1alpha1');
  const name = nameOf(csv);
  const badName = name === '' ? 'is missing' : checkCsvName(name);
  if (badName) err(file, 'metadata.name', `'${name}' ${badName}`, 'name the CSV <package>.v<version>, e.g. memcached-operator.v0.1.0');
  if (typeof spec.replaces === 'string' && spec.replaces !== '') {
    const bad = checkCsvName(spec.replaces);
    if (bad) err(file, 'spec.replaces', `'${spec.replaces}' ${bad}`, 'name the CSV this one replaces, e.g. memcached-operator.v0.0.1');
  }
  if (spec.version === undefined || spec.version === '') err(file, 'spec.version', 'missing', 'set the operator version (SemVer), e.g. 0.1.0');
  else if (!parseSemVer(String(spec.version))) err(file, 'spec.version', `'${String(spec.version)}' is not SemVer`, 'write MAJOR.MINOR.PATCH, e.g. 0.1.0');
  if (typeof spec.displayName !== 'string' || spec.displayName === '') err(file, 'spec.displayName', 'missing', 'set the name OLM consoles show, in the base CSV');
  const install = (isRecord(spec.install) ? spec.install : undefined) as { strategy?: string; spec?: { deployments?: unknown[]; permissions?: unknown[]; clusterPermissions?: unknown[] } } | undefined;
  if (!install) err(file, 'spec.install', 'missing', 'rerun opgen generate bundle (it writes the install strategy from the manager Deployment)');
  else {
    if (!install.strategy) err(file, 'spec.install.strategy', 'missing', "write strategy: deployment");
    if (!Array.isArray(install.spec?.deployments) || install.spec.deployments.length === 0) err(file, 'spec.install.spec.deployments', 'missing: the CSV installs nothing', 'rerun opgen generate bundle with the manager Deployment in config/default');
  }
  for (const [k] of Object.entries(annotations)) {
    const known = CASE_SENSITIVE.find((c) => c.toLowerCase() === k.toLowerCase());
    if (known && known !== k) err(file, `metadata.annotations["${k}"]`, `wrong case; OLM reads ${known}`, `rename it to ${known}`);
  }
  if (annotations['olm.skipRange'] !== undefined) {
    const r = parseRange(annotations['olm.skipRange']);
    if (!r.ok) err(file, 'metadata.annotations["olm.skipRange"]', `'${annotations['olm.skipRange']}' is not a version range: ${r.reason}`, "write comparators such as '>=0.1.0 <0.2.0'");
  }
  if ('olm.properties' in annotations) warn(file, 'metadata.annotations["olm.properties"]', 'properties in a CSV annotation', 'define them in metadata/properties.yaml instead');

  // installModes.
  const modes = (Array.isArray(spec.installModes) ? spec.installModes : []) as { type?: string; supported?: boolean }[];
  if (modes.length === 0) err(file, 'spec.installModes', 'missing', 'list the install modes (OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces) with supported: true|false in the base CSV');
  else {
    const seen = new Set<string>();
    for (const m of modes) {
      if (!INSTALL_MODES.includes(m.type ?? '')) err(file, 'spec.installModes', `unknown install mode '${m.type}'`, `use one of ${INSTALL_MODES.join(', ')}`);
      if (seen.has(m.type ?? '')) err(file, 'spec.installModes', `${m.type} is listed twice`, 'list each install mode once');
      seen.add(m.type ?? '');
    }
    if (!modes.some((m) => m.supported === true)) err(file, 'spec.installModes', 'none is supported', 'set supported: true on at least one (AllNamespaces for a cluster-wide operator)');
    const webhooks = (Array.isArray(spec.webhookdefinitions) ? spec.webhookdefinitions : []) as { conversionCRDs?: string[] }[];
    if (webhooks.some((w) => (w.conversionCRDs ?? []).length > 0)) {
      const onlyAll = modes.every((m) => (m.type === 'AllNamespaces') === (m.supported === true));
      if (!onlyAll) err(file, 'spec.installModes', 'conversion webhooks are declared, so only AllNamespaces may be supported', 'set supported: true on AllNamespaces alone');
    }
  }
  const minKube = typeof spec.minKubeVersion === 'string' ? spec.minKubeVersion.trim() : '';
  if (minKube === '') warn(file, 'spec.minKubeVersion', 'missing; OLM will install on any Kubernetes version', 'set the oldest Kubernetes version you support in the base CSV, e.g. 1.28.0');
  else if (!parseSemVer(minKube)) err(file, 'spec.minKubeVersion', `'${minKube}' is not SemVer`, 'write e.g. 1.28.0 (no leading v)');

  // Owned CRDs against the bundle's CRDs, both ways.
  const owned = (isRecord(spec.customresourcedefinitions) && Array.isArray(spec.customresourcedefinitions.owned) ? spec.customresourcedefinitions.owned : []) as {
    name?: string;
    version?: string;
    kind?: string;
    description?: string;
  }[];
  const bundleKeys = new Map<string, string>();
  for (const c of crds) {
    const cs = (c.object.spec ?? {}) as { group?: string; names?: { kind?: string }; versions?: { name: string }[]; version?: string };
    const versions = cs.versions?.map((v) => v.name) ?? (cs.version ? [cs.version] : []);
    for (const v of versions) {
      const key = `${cs.group}/${v}/${cs.names?.kind}`;
      if (bundleKeys.has(key)) err(c.file, 'spec', `CRD ${key} is also in ${bundleKeys.get(key)}`, 'keep one CRD per kind in the bundle');
      bundleKeys.set(key, c.file);
    }
  }
  const provided = new Set<string>();
  const ownedGroupKinds = new Set<string>();
  owned.forEach((e, i) => {
    const field = `spec.customresourcedefinitions.owned[${i}]`;
    for (const k of ['name', 'version', 'kind'] as const) if (!e[k]) err(file, `${field}.${k}`, 'missing', 'rerun opgen generate bundle (it lists every CRD of the bundle)');
    const dot = (e.name ?? '').indexOf('.');
    if (e.name && dot < 0) err(file, `${field}.name`, `'${e.name}' is not <plural>.<group>`, 'write the CRD name, e.g. memcacheds.cache.example.com');
    const group = dot < 0 ? e.name ?? '' : (e.name ?? '').slice(dot + 1);
    const key = `${group}/${e.version}/${e.kind}`;
    provided.add(key);
    if (e.name && e.version && e.kind && !bundleKeys.has(key)) err(file, `${field}`, `owned CRD ${e.name} ${e.version} ${e.kind} is not in the bundle`, 'add its CRD to manifests/ or drop the entry (rerun opgen generate bundle)');
    else ownedGroupKinds.add(`${group}/${e.kind}`);
    if (o.optional && !e.description) warn(file, `${field}.description`, `owned CRD ${e.name} has no description`, 'document the kind (its doc comment becomes the description)');
  });
  for (const [key, crdFile] of bundleKeys) {
    const [group, , kind] = key.split('/');
    if (!ownedGroupKinds.has(`${group}/${kind}`)) err(crdFile, '', `CRD ${key} is in the bundle but the CSV does not own it`, 'list it under spec.customresourcedefinitions.owned (rerun opgen generate bundle)');
  }
  if (isRecord(spec.apiservicedefinitions) && Array.isArray(spec.apiservicedefinitions.owned)) {
    for (const a of spec.apiservicedefinitions.owned as { group?: string; version?: string; kind?: string }[]) provided.add(`${a.group}/${a.version}/${a.kind}`);
  }

  // alm-examples.
  const examplesText = annotations['alm-examples'] ?? annotations['olm.examples'];
  if (Object.keys(annotations).length === 0) warn(file, 'metadata.annotations', 'missing', 'rerun opgen generate bundle (it writes alm-examples from config/samples)');
  else if (examplesText === undefined) warn(file, 'metadata.annotations["alm-examples"]', 'missing', 'add samples to config/samples and rerun opgen generate bundle');
  else if (examplesText.trim() !== '') {
    let examples: unknown;
    try {
      examples = JSON.parse(examplesText);
    } catch (e) {
      err(file, 'metadata.annotations["alm-examples"]', `not valid JSON: ${(e as Error).message}`, 'fix the JSON (a list of example objects)');
    }
    if (examples !== undefined && !Array.isArray(examples)) err(file, 'metadata.annotations["alm-examples"]', 'is not a JSON list', 'write a list of example objects: [{...}]');
    else if (Array.isArray(examples)) {
      const seen = new Set<string>();
      examples.forEach((ex: unknown, i) => {
        const field = `metadata.annotations["alm-examples"][${i}]`;
        if (!isRecord(ex)) return void err(file, field, 'is not an object', 'each example is a custom resource');
        const key = `${groupOf(ex.apiVersion as string)}/${versionOf(ex.apiVersion as string)}/${ex.kind as string}`;
        seen.add(key);
        if (!provided.has(key)) return void err(file, field, `example of ${key}, which the CSV does not provide`, 'give examples only of owned CRDs (remove it from config/samples, or own its CRD)');
        const crd = crds.find((c) => {
          const cs = (c.object.spec ?? {}) as { group?: string; names?: { kind?: string } };
          return cs.group === groupOf(ex.apiVersion as string) && cs.names?.kind === ex.kind;
        });
        const version = ((crd?.object.spec ?? {}) as { versions?: { name: string; schema?: { openAPIV3Schema?: Schema } }[] }).versions?.find((v) => v.name === versionOf(ex.apiVersion as string));
        const schema = version?.schema?.openAPIV3Schema;
        if (schema) {
          for (const problem of checkAgainstSchema(ex, schema)) err(file, field, `${ex.kind as string} ${(isRecord(ex.metadata) ? ex.metadata.name : '') as string}: ${problem}`, 'fix the sample in config/samples so the API server would accept it');
        }
      });
      for (const p of provided) if (!seen.has(p)) warn(file, 'metadata.annotations["alm-examples"]', `no example of ${p}`, 'add a sample to config/samples and rerun opgen generate bundle');
    }
  }

  // Service accounts OLM creates may not be bundled.
  const accounts = new Set(
    ((install?.spec?.deployments ?? []) as { spec?: { template?: { spec?: { serviceAccountName?: string } } } }[]).map((d) => d.spec?.template?.spec?.serviceAccountName ?? ''),
  );
  for (const l of all) {
    if (l.object.kind === 'ServiceAccount' && accounts.has(nameOf(l.object))) {
      err(l.file, 'metadata.name', `ServiceAccount ${nameOf(l.object)} is the one the CSV's deployment runs as; OLM creates it`, 'remove this file from the bundle, or rename one of the two');
    }
  }

  // Secrets and ConfigMaps the pods need: shipped in the bundle, optional, or OLM's own (it mounts the
  // serving certificate of a CSV's webhooks and API services itself); anything else never arrives, and
  // the pod waits in ContainerCreating for ever.
  const shipped = { Secret: new Set<string>(), ConfigMap: new Set<string>() };
  for (const l of all) if (l.object.kind === 'Secret' || l.object.kind === 'ConfigMap') shipped[l.object.kind].add(nameOf(l.object));
  ((install?.spec?.deployments ?? []) as { name?: string; spec?: { template?: { spec?: PodSpec } } }[]).forEach((d, i) => {
    const pod = d.spec?.template?.spec;
    const at = `spec.install.spec.deployments[${i}]`;
    const need = (kind: 'Secret' | 'ConfigMap', name: string | undefined, optional: boolean | undefined, field: string, how: string): void => {
      if (!name || optional || shipped[kind].has(name)) return;
      const certHint = kind === 'Secret' && /cert/.test(name) ? '; for webhook certificates drop the volume: OLM mounts its own at /tmp/k8s-webhook-server/serving-certs (tls.crt, tls.key)' : '';
      err(file, field, `Deployment ${d.name ?? ''} ${how} ${kind} ${name}, which neither the bundle nor OLM provides: the pod would never start`, `ship the ${kind} in manifests/, or mark it optional: true${certHint}`);
    };
    (pod?.volumes ?? []).forEach((v, j) => {
      const field = `${at}.spec.template.spec.volumes[${j}]`;
      need('Secret', v.secret?.secretName, v.secret?.optional, field, 'mounts');
      need('ConfigMap', v.configMap?.name, v.configMap?.optional, field, 'mounts');
      for (const src of v.projected?.sources ?? []) {
        need('Secret', src.secret?.name, src.secret?.optional, field, 'mounts');
        need('ConfigMap', src.configMap?.name, src.configMap?.optional, field, 'mounts');
      }
    });
    for (const [k, c] of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].entries()) {
      for (const from of c.envFrom ?? []) {
        const field = `${at}.spec.template.spec.containers[${c.name ?? k}].envFrom`;
        need('Secret', from.secretRef?.name, from.secretRef?.optional, field, 'reads');
        need('ConfigMap', from.configMapRef?.name, from.configMapRef?.optional, field, 'reads');
      }
    }
  });

  // relatedImages.
  const related = (Array.isArray(spec.relatedImages) ? spec.relatedImages : []) as { name?: string; image?: string }[];
  related.forEach((r, i) => {
    const field = `spec.relatedImages[${i}]`;
    if (!r.image) err(file, `${field}.image`, 'missing', 'give the image reference');
    else if (!IMAGE_RE.test(r.image)) err(file, `${field}.image`, `'${r.image}' is not an image reference`, 'write registry/path:tag or registry/path@sha256:<digest>');
    if (!r.name) err(file, `${field}.name`, 'missing', 'name the image (e.g. the container name)');
  });

  if (o.optional === 'operatorframework') checkOperatorFramework(file, csv, spec, annotations, install, err, warn);
}

/** operator-sdk's `--select-optional suite=operatorframework`: OperatorHub fields, capabilities, categories, good practices. */
function checkOperatorFramework(
  file: string,
  csv: KubeObject,
  spec: Record<string, unknown>,
  annotations: Record<string, string>,
  install: { spec?: { deployments?: unknown[]; permissions?: unknown[]; clusterPermissions?: unknown[] } } | undefined,
  err: Report,
  warn: Report,
): void {
  const provider = (isRecord(spec.provider) ? spec.provider : {}) as { name?: string };
  if (!provider.name) err(file, 'spec.provider.name', 'missing', 'name the publisher in the base CSV');
  for (const [i, m] of ((Array.isArray(spec.maintainers) ? spec.maintainers : []) as { name?: string; email?: string }[]).entries()) {
    if (!m.name || !m.email) err(file, `spec.maintainers[${i}]`, 'needs both name and email', 'fill both in the base CSV');
    else if (!/^[^\s@<>]+@[^\s@<>]+$/.test(m.email)) err(file, `spec.maintainers[${i}].email`, `'${m.email}' is not an email address`, 'write name@example.com');
  }
  for (const [i, l] of ((Array.isArray(spec.links) ? spec.links : []) as { name?: string; url?: string }[]).entries()) {
    if (!l.name || !l.url) err(file, `spec.links[${i}]`, 'needs both name and url', 'fill both in the base CSV');
    else if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/?\/?\S*$/.test(l.url) && !l.url.startsWith('/')) err(file, `spec.links[${i}].url`, `'${l.url}' is not a URL`, 'write https://…');
  }
  const icons = (Array.isArray(spec.icon) ? spec.icon : []) as { base64data?: string; mediatype?: string }[];
  if (icons.length === 0) warn(file, 'spec.icon', 'missing', 'add an icon (base64data + mediatype) to the base CSV');
  else if (icons.length > 1) err(file, 'spec.icon', 'has more than one element', 'keep one icon');
  else if (!icons[0]!.base64data || !icons[0]!.mediatype) err(file, 'spec.icon[0]', 'needs both base64data and mediatype', 'fill both in the base CSV');
  else if (!ICON_TYPES.includes(icons[0]!.mediatype)) err(file, 'spec.icon[0].mediatype', `'${icons[0]!.mediatype}' is not an image type OperatorHub shows`, `use one of ${ICON_TYPES.join(', ')}`);
  if (annotations.capabilities !== undefined && !CAPABILITIES.includes(annotations.capabilities)) {
    err(file, 'metadata.annotations["capabilities"]', `'${annotations.capabilities}' is not a capability level`, `use one of ${CAPABILITIES.join(', ')}`);
  }
  if (annotations.categories !== undefined) {
    for (const c of annotations.categories.split(',').map((x) => x.trim())) {
      if (!CATEGORIES.includes(c)) err(file, 'metadata.annotations["categories"]', `'${c}' is not a standard category`, `use some of ${CATEGORIES.join(', ')}`);
    }
  }
  for (const d of (install?.spec?.deployments ?? []) as { spec?: { template?: { spec?: { containers?: { name?: string; resources?: { requests?: { cpu?: unknown; memory?: unknown } } }[] } } } }[]) {
    for (const c of d.spec?.template?.spec?.containers ?? []) {
      const req = c.resources?.requests;
      if (!req || req.cpu === undefined || req.memory === undefined) warn(file, 'spec.install.spec.deployments', `container ${c.name} has no CPU and memory requests`, 'set resources.requests in config/manager/manager.yaml');
    }
  }
  const rules = [...(install?.spec?.permissions ?? []), ...(install?.spec?.clusterPermissions ?? [])].flatMap((p) => ((p as { rules?: unknown[] }).rules ?? []) as { apiGroups?: string[]; resources?: string[]; verbs?: string[] }[]);
  if (rules.some((r) => r.apiGroups?.includes('apiextensions.k8s.io') && r.resources?.some((x) => ['customresourcedefinitions', '*'].includes(x)) && r.verbs?.some((v) => ['create', '*', 'patch'].includes(v)))) {
    warn(file, 'spec.install.spec', 'the operator may create CRDs; OLM should manage CRDs', 'drop create/patch on customresourcedefinitions from its roles');
  }
  const csvName = nameOf(csv);
  if (!/\.v\d+\.\d+\.\d+/.test(csvName)) warn(file, 'metadata.name', `'${csvName}' does not follow <package>.v<semver>`, 'name it e.g. memcached-operator.v0.1.0');
}

// Reading and merging kubeconfig files with client-go's rules (k8s.io/client-go/tools/clientcmd
// loader.go): for a $KUBECONFIG list, the first file that defines a cluster, user or context name
// wins, and so does the first file that sets current-context.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { KubeConfigError, displayPath } from './errors.js';

// yaml is loaded with the first kubeconfig file read, not with the runtime: an operator in a pod reads
// its service account and no file, and never pays for it (~2.5 MB of idle RSS beside prom-client,
// docs/runtime-performance.md). yaml's "node" export is CommonJS, so require() loads it synchronously.
// A JSON kubeconfig (envtest writes one, so do many tools) never loads it either: YAML 1.2 is a superset
// of JSON, so JSON.parse reads the same document; text that only looks like JSON goes to yaml, whose
// error messages name the line.
const requireHere = createRequire(import.meta.url);
let yamlParse: ((text: string) => unknown) | undefined;
function parse(text: string): unknown {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // a YAML flow mapping, or broken: yaml decides
    }
  }
  yamlParse ??= (requireHere('yaml') as typeof import('yaml')).parse;
  return yamlParse(text);
}

export interface RawCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  extensions?: { name?: string; extension?: unknown }[];
}

export interface RawExec {
  command?: string;
  args?: string[];
  env?: { name?: string; value?: string }[] | null;
  apiVersion?: string;
  interactiveMode?: string;
  provideClusterInfo?: boolean;
  installHint?: string;
}

export interface RawUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  /** client-node's spelling of tokenFile (client-go's key is tokenFile); read too. */
  'token-file'?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-groups'?: string[];
  'as-uid'?: string;
  exec?: RawExec;
  'auth-provider'?: { name?: string; config?: Record<string, string> };
}

export interface RawContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** An entry and the file that defined it (relative paths in it resolve against that file's folder). */
export interface Named<T> {
  name: string;
  file: string;
  value: T;
}

export interface MergedConfig {
  files: string[];
  clusters: Map<string, Named<RawCluster>>;
  users: Map<string, Named<RawUser>>;
  contexts: Map<string, Named<RawContext>>;
  currentContext?: { name: string; file: string };
}

/** Reads and merges `files` in order; `origin` says where the list came from, for the error message. */
export function readKubeConfigFiles(files: string[], origin: string): MergedConfig {
  const merged: MergedConfig = { files, clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    const doc = readOne(file, origin);
    if (!merged.currentContext && typeof doc['current-context'] === 'string' && doc['current-context'] !== '') {
      merged.currentContext = { name: doc['current-context'], file };
    }
    addEntries(merged.clusters, doc.clusters, 'clusters', 'cluster', file);
    addEntries(merged.users, doc.users, 'users', 'user', file);
    addEntries(merged.contexts, doc.contexts, 'contexts', 'context', file);
  }
  return merged;
}

function readOne(file: string, origin: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KubeConfigError(`${displayPath(file)}: does not exist (${origin}); fix the path or unset KUBECONFIG`);
    throw new KubeConfigError(`${displayPath(file)}: cannot be read (${code ?? (err as Error).message}); check its permissions`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KubeConfigError(`${displayPath(file)}: is not valid YAML (${(err as Error).message.split('\n')[0]}); fix the file`);
  }
  if (doc === null || doc === undefined) return {}; // an empty file is an empty config, as in client-go
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new KubeConfigError(`${displayPath(file)}: is not a kubeconfig (expected a mapping with clusters, users, contexts); fix the file`);
  }
  return doc as Record<string, unknown>;
}

function addEntries<T>(into: Map<string, Named<T>>, list: unknown, listKey: string, key: string, file: string): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw new KubeConfigError(`${displayPath(file)}: ${listKey} is not a list; fix the file`);
  list.forEach((entry: unknown, i) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.name !== 'string' || e.name === '') {
      throw new KubeConfigError(`${displayPath(file)}: ${listKey}[${i}] has no name; add one`);
    }
    if (!into.has(e.name)) into.set(e.name, { name: e.name, file, value: ((e[key] as T | undefined) ?? {}) as T });
  });
}

// Reads Kubernetes objects from the files and folders given as crdPaths / webhookPaths:
// .yaml, .yml and .json files, multi-document YAML, folders read one level deep like envtest.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
// Not client-node's loadAllYaml: it maps objects onto its typed models, which drops fields such as
// x-kubernetes-validations inside CRD schemas.
import { parseAllDocuments } from 'yaml';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** An object, the file it came from and the crdPaths/webhookPaths entry that led to that file. */
export interface SourcedObject { object: KubeObject; file: string; entry: string }

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

function manifestFiles(path: string, option: string): string[] {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new Error(`envtest: ${option} entry ${path} does not exist; pass existing files or folders (paths are relative to ${process.cwd()}; in an opgen project, \`opgen generate\` writes the CRDs to config/crd/bases)`);
  }
  if (stats.isFile()) return [path];
  return readdirSync(path)
    .filter((name) => MANIFEST_EXTENSIONS.has(extname(name)))
    .sort()
    .map((name) => join(path, name))
    .filter((file) => statSync(file).isFile());
}

export function readObjects(paths: string[], option: string): SourcedObject[] {
  const out: SourcedObject[] = [];
  for (const path of paths) {
    for (const file of manifestFiles(path, option)) {
      const docs: unknown[] = [];
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), { prettyErrors: true })) {
        const error = doc.errors[0];
        if (error) {
          const at = error.linePos?.[0];
          throw new Error(`envtest: ${file}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML: ${error.message.split('\n')[0]}`);
        }
        docs.push(doc.toJS());
      }
      for (const doc of docs) {
        if (doc && typeof doc === 'object' && !Array.isArray(doc)) out.push({ object: doc as KubeObject, file, entry: path });
      }
    }
  }
  return out;
}

/** Every entry must contribute something: a path holding nothing usable is a mistake, not a no-op. */
export function requireEachEntry(paths: string[], used: { entry: string }[], option: string, what: string): void {
  for (const path of paths) {
    if (!used.some((u) => u.entry === path)) {
      throw new Error(`envtest: ${option} entry ${path} holds no ${what}; folders are read one level deep for .yaml, .yml and .json files`);
    }
  }
}

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

export interface SourcedObject { object: KubeObject; file: string }

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
        if (doc && typeof doc === 'object' && !Array.isArray(doc)) out.push({ object: doc as KubeObject, file });
      }
    }
  }
  return out;
}

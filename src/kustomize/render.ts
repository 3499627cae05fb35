// Renders a kustomize directory with the real `kubectl kustomize` (the build users run themselves) and
// parses its output into objects. Shared by the commands that start from a rendered config/ tree
// (`opgen generate bundle`, the Helm chart generator).
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};

export interface RenderKustomizeOptions {
  /** Working directory the user sees paths from (for messages). */
  cwd: string;
  /** The kustomization directory, relative to cwd or absolute. */
  dir: string;
  /** The flag that named the directory, when a flag did (for the error line). */
  flag?: string;
  /** kubectl binary; default `kubectl` on PATH. */
  kubectl?: string;
}

/** `kubectl kustomize <dir>` as objects, in output order. Throws a one-line OpgenError on failure. */
export async function renderKustomize(o: RenderKustomizeOptions): Promise<KubeObject[]> {
  const abs = resolve(o.cwd, o.dir);
  const shown = relative(o.cwd, abs) || '.';
  const where = o.flag ? { flag: o.flag } : { file: shown };
  if (!['kustomization.yaml', 'kustomization.yml', 'Kustomization'].some((f) => existsSync(join(abs, f)))) {
    throw new OpgenError(`${shown} has no kustomization.yaml`, where, o.flag ? `point ${o.flag} at a kustomize directory` : `create ${shown}/kustomization.yaml`);
  }
  const { execa } = await import('execa');
  const kubectl = o.kubectl ?? 'kubectl';
  let result;
  try {
    result = await execa(kubectl, ['kustomize', abs], { reject: false, stripFinalNewline: false });
  } catch {
    throw new OpgenError(`could not run ${kubectl}`, where, 'install kubectl (it renders kustomize directories) and put it on PATH');
  }
  if (result.exitCode !== 0 || result.failed) {
    const first = String(result.stderr || result.message).split('\n').map((l) => l.trim()).find((l) => l !== '') ?? 'unknown error';
    throw new OpgenError(`kubectl kustomize ${shown} failed: ${first.replace(/^error: /i, '')}`, where, `fix ${shown} until \`kubectl kustomize ${shown}\` succeeds`);
  }
  const { parseAllDocuments } = await import('yaml');
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(String(result.stdout))) {
    const value: unknown = doc.toJS({ maxAliasCount: -1 });
    if (value && typeof value === 'object' && !Array.isArray(value)) objects.push(value as KubeObject);
  }
  return objects;
}

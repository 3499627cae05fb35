// Which version of a kind the API server stores: +kubebuilder:storageversion on one root type. `create api`
// keeps the first version as the storage version when a second arrives (so `generate` still has exactly
// one), and `create webhook --conversion` moves it to the hub.
import { OpgenError } from '../../diag/diagnostic.js';
import type { Tree } from '../../scaffold/index.js';

const MARKER = '+kubebuilder:storageversion';
/** A comment line holding only the marker, in a JSDoc block or a line comment. */
const MARKER_LINE = /^\s*(?:\*|\/\/)\s*\+kubebuilder:storageversion\s*$/;

export function hasStorageVersion(tree: Tree, typesPath: string): boolean {
  return (tree.read(typesPath) ?? '').split('\n').some((l) => MARKER_LINE.test(l));
}

/** Adds the marker to the doc comment of the root type `kind` (as kubebuilder does); a no-op when present. */
export function markStorageVersion(tree: Tree, typesPath: string, kind: string): void {
  const text = tree.read(typesPath);
  if (text === undefined) throw new OpgenError(`${typesPath} not found`, { file: typesPath }, `restore the types module PROJECT records for ${kind}`);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^export interface ${kind}\\b`).test(l));
  const close = at - 1;
  if (at < 0 || !/^\s*\*\/\s*$/.test(lines[close] ?? '')) {
    throw new OpgenError(
      `cannot find the doc comment of \`export interface ${kind}\``,
      { file: typesPath },
      `add \`${MARKER}\` to the doc comment of ${kind} yourself`,
    );
  }
  let open = close;
  while (open > 0 && !/^\s*\/\*\*/.test(lines[open] ?? '')) open--;
  if (lines.slice(open, close).some((l) => l.includes(MARKER))) return;
  lines.splice(close, 0, ` * ${MARKER}`);
  tree.write(typesPath, lines.join('\n'));
}

/** Removes the marker lines from a types module; true when there was one. */
export function unmarkStorageVersion(tree: Tree, typesPath: string): boolean {
  const text = tree.read(typesPath);
  if (text === undefined) return false;
  const lines = text.split('\n');
  const kept = lines.filter((l) => !MARKER_LINE.test(l));
  if (kept.length === lines.length) return false;
  tree.write(typesPath, kept.join('\n'));
  return true;
}

// Named insertion points: later commands add code to files the user owns only above marker lines such as
// `// +opgen:scaffold:controllers` (TypeScript) or `# +opgen:scaffold:crdkustomizeresource` (YAML).
import { OpgenError } from '../diag/diagnostic.js';
import type { Tree } from './tree.js';

/** The marker line for `name`, in the comment syntax of `path`'s file type. */
export function markerFor(path: string, name: string): string {
  return `${/\.ya?ml$/.test(path) ? '#' : '//'} +opgen:scaffold:${name}`;
}

/**
 * Returns `content` with `fragment` inserted on the lines just above the marker `name`, indented like the
 * marker. Idempotent: when the fragment's lines (whitespace-trimmed) already appear consecutively anywhere
 * in the file, the content is returned unchanged. Returns undefined when the marker is missing.
 */
export function insertAtMarker(content: string, name: string, fragment: string): string | undefined {
  const lines = content.split('\n');
  const markerRe = new RegExp(`^(\\s*)(?://|#)\\s*\\+opgen:scaffold:${escapeRegExp(name)}\\s*$`);
  const at = lines.findIndex((l) => markerRe.test(l));
  if (at < 0) return undefined;
  const indent = markerRe.exec(lines[at] ?? '')?.[1] ?? '';
  const newLines = fragment.replace(/\n+$/, '').split('\n');
  if (containsBlock(lines, newLines)) return content;
  const indented = newLines.map((l) => (l.trim() === '' ? '' : indent + l));
  return [...lines.slice(0, at), ...indented, ...lines.slice(at)].join('\n');
}

/**
 * Inserts `fragment` above marker `name` in the tree's `path`; returns true when the file changed.
 * A missing file or marker is a user-facing error: the user removed what a command relies on.
 */
export function insertInto(tree: Tree, path: string, name: string, fragment: string): boolean {
  const content = tree.read(path);
  if (content === undefined) {
    throw new OpgenError(`${path} not found`, { file: path }, 'restore it or re-run `opgen init` in a fresh directory');
  }
  const next = insertAtMarker(content, name, fragment);
  if (next === undefined) {
    const line = markerFor(path, name);
    throw new OpgenError(`insertion point "${line}" is missing`, { file: path }, `add the line \`${line}\` where opgen should add code`);
  }
  return tree.write(path, next);
}

function containsBlock(lines: string[], block: string[]): boolean {
  const want = block.map((l) => l.trim());
  const have = lines.map((l) => l.trim());
  outer: for (let i = 0; i + want.length <= have.length; i++) {
    for (let j = 0; j < want.length; j++) if (have[i + j] !== want[j]) continue outer;
    return true;
  }
  return false;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

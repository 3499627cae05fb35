// Names derived from a kind for scaffolded files and code, shared by `create api` and `create webhook`.
import { posix } from 'node:path';

/** `CronJob` → `cron-job`: file names are kebab-case. */
export function kebab(kind: string): string {
  return kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

const RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval undefined').split(' '),
);

/** `CronJob` → `cronJob`, the local variable holding the object; never a reserved word. */
export function variableName(kind: string): string {
  const name = kind.charAt(0).toLowerCase() + kind.slice(1);
  return RESERVED.has(name) ? `${name}Object` : name;
}

/** A relative ESM import specifier from a folder to a .ts module (as its .js output). */
export function importPath(fromDir: string, toFile: string): string {
  const rel = posix.relative(fromDir, toFile).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

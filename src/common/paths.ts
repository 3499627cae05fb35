// `--paths`: directories (recursive), files, globs (`src/api/**/*.ts`) or Go-style `./api/...`, separated by
// `,` or `;`. Only TypeScript sources count: no declaration files, tests or node_modules.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);

function isSource(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.(test|spec)\.ts$/.test(name);
}

function walk(dir: string, into: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name), into);
    } else if (isSource(entry.name)) into.push(join(dir, entry.name));
  }
}

/** `dir` and every folder below it that a scan searches (no node_modules, dist or hidden folders). */
export function sourceFolders(dir: string): string[] {
  const out = [dir];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) out.push(...sourceFolders(join(dir, entry.name)));
  }
  return out;
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Absolute, sorted source files named by `spec`. */
export function expandPaths(cwd: string, spec: string, flag = '--paths'): string[] {
  const files = new Set<string>();
  for (const raw of spec.split(/[;,]/).map((s) => s.trim()).filter(Boolean)) {
    const part = raw.replace(/\/\.\.\.$/, '').replace(/^\.\.\.$/, '.');
    if (/[*?[]/.test(part)) {
      const wildcard = part.search(/[*?[]/);
      const base = part.slice(0, part.lastIndexOf('/', wildcard) + 1) || '.';
      const root = resolve(cwd, base);
      const re = globToRegExp(resolve(cwd, part).split(sep).join('/'));
      const found: string[] = [];
      if (existsSync(root)) walk(root, found);
      const matched = found.filter((f) => re.test(f.split(sep).join('/')));
      if (matched.length === 0) throw new OpgenError(`${raw} matches no TypeScript sources`, { flag }, 'check the pattern; quote it so the shell does not expand it');
      for (const f of matched) files.add(f);
      continue;
    }
    const abs = resolve(cwd, part);
    if (!existsSync(abs)) throw new OpgenError(`${raw} does not exist`, { flag }, 'pass a folder, file or glob of TypeScript sources');
    if (statSync(abs).isDirectory()) {
      const found: string[] = [];
      walk(abs, found);
      if (found.length === 0) throw new OpgenError(`${raw} holds no TypeScript sources`, { flag }, 'pass the folder of your API types, e.g. src/api');
      for (const f of found) files.add(f);
    } else files.add(abs);
  }
  return [...files].sort();
}

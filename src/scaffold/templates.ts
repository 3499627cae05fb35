// Renders a folder of templates/ into a Tree. Each template mirrors its output path (with `__name__`
// placeholders in file and folder names, `.hbs` stripped) and starts with a header line that declares
// what happens when the target exists: `{{!-- opgen: ifExists=error|skip|overwrite --}}`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type HandlebarsNamespace from 'handlebars';
import type { IfExists, Tree } from './tree.js';

/** templates/ at the package root (src/scaffold and dist/scaffold are both two levels below it). */
export const templatesRoot = fileURLToPath(new URL('../../templates/', import.meta.url));

const HEADER_RE = /^\{\{!-- opgen: ifExists=(error|skip|overwrite) --\}\}\r?\n/;
const PARTIALS_DIR = '_partials';

export interface RenderOptions {
  /** Values the templates use; handlebars runs in strict mode, so every name a template uses must be here. */
  data: Record<string, unknown>;
  /** `__name__` in template paths becomes placeholders[name]; `__dot__` always becomes '.'. */
  placeholders?: Record<string, string>;
  /** Overwrite files whose templates say ifExists=error (the user asked with --force). */
  force?: boolean;
}

export interface Template {
  /** Path of the template relative to its set's folder, e.g. `src/api/__version__/__kindFile__-types.ts.hbs`. */
  source: string;
  ifExists: IfExists;
  body: string;
}

/** Every template in templates/<set>, sorted by path. */
export function loadTemplates(set: string): Template[] {
  const dir = join(templatesRoot, set);
  const files = walk(dir, '').filter((f) => f.endsWith('.hbs')).sort();
  return files.map((source) => {
    const text = readFileSync(join(dir, source), 'utf8');
    const header = HEADER_RE.exec(text);
    if (!header) throw new Error(`template ${set}/${source} lacks its "{{!-- opgen: ifExists=... --}}" header line`);
    return { source, ifExists: header[1] as IfExists, body: text.slice(header[0].length) };
  });
}

/** Renders templates/<set> into the tree; returns the output paths in order. */
export function renderTemplates(tree: Tree, set: string, options: RenderOptions): string[] {
  const written: string[] = [];
  for (const f of renderTemplateFiles(set, options)) {
    const ifExists = options.force && f.ifExists === 'error' ? 'overwrite' : f.ifExists;
    tree.write(f.path, f.content, { ifExists });
    written.push(f.path);
  }
  return written;
}

/** Renders templates/<set> in memory (for commands that merge the output with the user's files). */
export function renderTemplateFiles(set: string, options: Omit<RenderOptions, 'force'>): { path: string; content: string; ifExists: IfExists }[] {
  const hb = handlebars();
  return loadTemplates(set).map((t) => ({
    path: outputPath(t.source, options.placeholders ?? {}),
    content: hb.compile(t.body, { noEscape: true, strict: true })(options.data),
    ifExists: t.ifExists,
  }));
}

/** Renders one named partial from templates/_partials (e.g. a code fragment to insert at a marker). */
export function renderPartial(name: string, data: Record<string, unknown>): string {
  return handlebars().compile(`{{> ${name}}}`, { noEscape: true, strict: true })(data);
}

/** Relative POSIX paths of the files under dir (a hand-rolled walk: recursive readdir varies across Node 20 minors). */
function walk(dir: string, prefix: string): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = prefix === '' ? e.name : posix.join(prefix, e.name);
    return e.isDirectory() ? walk(dir, rel) : e.isFile() ? [rel] : [];
  });
}

/** printWidth of the scaffold's .prettierrc.json (templates/init). */
const PRINT_WIDTH = 120;

/**
 * `{{#fits}}one line{{else fits}}hugged{{else}}broken{{/fits}}`: the first layout whose lines all fit the
 * scaffold's print width, the last one otherwise. A statement whose length depends on a name (a kind,
 * a group) lists the layouts prettier picks from, in its order, so the file passes `prettier --check`
 * for any name.
 */
function fits(this: unknown, options: HandlebarsNamespace.HelperOptions): string {
  const text = options.fn(this);
  return text.split('\n').every((line) => line.length <= PRINT_WIDTH) ? text : options.inverse(this);
}

function outputPath(source: string, placeholders: Record<string, string>): string {
  return source.replace(/\.hbs$/, '').replace(/__([a-zA-Z]+)__/g, (whole, name: string) => {
    if (name === 'dot') return '.';
    const value = placeholders[name];
    if (value === undefined) throw new Error(`template path ${source} uses ${whole}, which has no value`);
    return value;
  });
}

let instance: typeof HandlebarsNamespace | undefined;

/**
 * A private handlebars instance with templates/_partials registered. Loaded on first use (a synchronous
 * require of the CommonJS package), so importing the Tree from this folder stays cheap for `opgen generate`.
 */
function handlebars(): typeof HandlebarsNamespace {
  if (instance) return instance;
  const hb = (createRequire(import.meta.url)('handlebars') as typeof HandlebarsNamespace).create();
  const dir = join(templatesRoot, PARTIALS_DIR);
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.hbs')).sort()) {
    hb.registerPartial(name.replace(/\.hbs$/, ''), readFileSync(join(dir, name), 'utf8'));
  }
  hb.registerHelper('fits', fits);
  instance = hb;
  return hb;
}

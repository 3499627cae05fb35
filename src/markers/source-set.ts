// Loads TypeScript files syntactically (ts-morph's compiler, no type checker, node_modules never read),
// collects their markers once, and answers "what does this name refer to" from declarations and imports.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpgenError } from '../diag/diagnostic.js';
import { collectMarkers, type FileMarkers } from './collector.js';
import type { Registry } from './registry.js';

export type TopLevelDeclaration = TS.InterfaceDeclaration | TS.TypeAliasDeclaration | TS.EnumDeclaration;

export interface LoadedFile {
  abs: string;
  /** Path as shown to the user (relative to the working directory). */
  display: string;
  sf: TS.SourceFile;
  markers: FileMarkers;
  declarations: Map<string, TopLevelDeclaration>;
  /** Top-level `const` declarations, for `typeof list[number]` over an `as const` array. */
  constants: Map<string, TS.VariableDeclaration>;
  /** Local name → where it is imported from (`name` is '*' for a namespace import). */
  imports: Map<string, { module: string; name: string }>;
}

/** A parsed file kept between runs (watch mode): reused while the file's text is the same. */
export interface ParsedFile {
  text: string;
  file: LoadedFile;
  /** What loading it reported (marker errors, a syntax error), reported again on every reuse. */
  errors: OpgenError[];
  syntaxErrors: OpgenError[];
}

export type Resolved =
  | { kind: 'declaration'; file: LoadedFile; decl: TopLevelDeclaration; name: string }
  | { kind: 'constant'; file: LoadedFile; decl: TS.VariableDeclaration; name: string }
  | { kind: 'module'; module: string; name: string }
  | { kind: 'unresolved'; reason: string };

export class SourceSet {
  private readonly files_ = new Map<string, LoadedFile>();
  /** Answers of resolve() per file and name: every field of every kind asks again for the same few types. */
  private readonly resolved = new Map<LoadedFile, Map<string, { r: Resolved; touched: LoadedFile[] }>>();
  /** Files read while answering, for whoever is recording what a result depends on (see track()). */
  private touched: Set<LoadedFile> | undefined;
  /** How many files this run parsed (the others were an earlier run's parse of the same text). */
  parsedCount = 0;
  /** Syntax errors: when there are any, other findings are noise from half-parsed files. */
  readonly syntaxErrors: OpgenError[] = [];

  constructor(
    readonly ts: typeof TS,
    private readonly registry: Registry,
    private readonly cwd: string,
    /** Marker and syntax errors found while loading, reported together. */
    readonly errors: OpgenError[],
    /** Files parsed by earlier runs, by absolute path (watch mode); this run adds to it. */
    private readonly parsed?: Map<string, ParsedFile>,
  ) {}

  /**
   * Runs `build` and returns, with its result, every file it loaded or resolved a name through (the
   * re-exporting files on the way included): what the result depends on. Calls may nest.
   */
  track<T>(build: () => T): { value: T; files: Set<LoadedFile> } {
    const outer = this.touched;
    const files = new Set<LoadedFile>();
    this.touched = files;
    try {
      return { value: build(), files };
    } finally {
      this.touched = outer;
      if (outer) for (const f of files) outer.add(f);
    }
  }

  /** Records `file` as read by the build being tracked. */
  touch(file: LoadedFile): void {
    this.touched?.add(file);
  }

  /** Every file read so far (scanned or imported). */
  files(): LoadedFile[] {
    return [...this.files_.values()];
  }

  load(abs: string): LoadedFile {
    const existing = this.files_.get(abs);
    if (existing) {
      this.touch(existing);
      return existing;
    }
    const text = readFileSync(abs, 'utf8');
    const earlier = this.parsed?.get(abs);
    if (earlier && earlier.text === text) {
      this.errors.push(...earlier.errors);
      this.syntaxErrors.push(...earlier.syntaxErrors);
      this.files_.set(abs, earlier.file);
      this.touch(earlier.file);
      return earlier.file;
    }
    const errors: OpgenError[] = [];
    const syntaxErrors: OpgenError[] = [];
    const file = this.parse(abs, text, errors, syntaxErrors);
    this.parsedCount++;
    this.errors.push(...errors);
    this.syntaxErrors.push(...syntaxErrors);
    this.parsed?.set(abs, { text, file, errors, syntaxErrors });
    this.files_.set(abs, file);
    this.touch(file);
    return file;
  }

  private parse(abs: string, text: string, errors: OpgenError[], syntaxErrors: OpgenError[]): LoadedFile {
    const ts = this.ts;
    // JSDoc is read from the comment text by the collector; the parser need not build JSDoc nodes. No
    // parent pointers either (a walk over every node): opgen goes down the tree and passes `sf` wherever
    // the compiler would otherwise climb to the source file.
    const sf = ts.createSourceFile(abs, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
    const rel = relative(this.cwd, abs);
    const display = rel.startsWith('..') ? abs : rel;
    const declarations = new Map<string, TopLevelDeclaration>();
    const constants = new Map<string, TS.VariableDeclaration>();
    const imports = new Map<string, { module: string; name: string }>();
    for (const st of sf.statements) {
      if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) {
        declarations.set(st.name.text, st);
      } else if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) constants.set(d.name.text, d);
      } else if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && st.importClause) {
        const module = st.moduleSpecifier.text;
        const clause = st.importClause;
        if (clause.name) imports.set(clause.name.text, { module, name: 'default' });
        const nb = clause.namedBindings;
        if (nb && ts.isNamespaceImport(nb)) imports.set(nb.name.text, { module, name: '*' });
        if (nb && ts.isNamedImports(nb)) {
          for (const el of nb.elements) imports.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
        }
      }
    }
    // The parser recovers from syntax errors; reading declarations out of a broken file would mislead.
    const syntax = (sf as unknown as { parseDiagnostics?: TS.DiagnosticWithLocation[] }).parseDiagnostics?.[0];
    if (syntax) {
      const lc = sf.getLineAndCharacterOfPosition(syntax.start);
      syntaxErrors.push(
        new OpgenError(`syntax error: ${ts.flattenDiagnosticMessageText(syntax.messageText, ' ')}`, { file: display, line: lc.line + 1, column: lc.character + 1 }, 'fix the TypeScript; tsc --noEmit reports the same'),
      );
    }
    const markers = collectMarkers(ts, sf, display, this.registry, errors);
    return { abs, display, sf, markers, declarations, constants, imports };
  }

  /** What `name` (as written in `file`, maybe `ns.Name`) refers to. */
  resolve(file: LoadedFile, name: string): Resolved {
    let byName = this.resolved.get(file);
    if (!byName) {
      byName = new Map();
      this.resolved.set(file, byName);
    }
    let answer = byName.get(name);
    if (!answer) {
      const { value, files } = this.track(() => this.resolveUncached(file, name, new Set()));
      answer = { r: value, touched: [...files] };
      byName.set(name, answer);
    } else {
      for (const f of answer.touched) this.touch(f);
    }
    return answer.r;
  }

  private resolveUncached(file: LoadedFile, name: string, seen: Set<string>): Resolved {
    const dot = name.indexOf('.');
    if (dot >= 0) {
      const ns = file.imports.get(name.slice(0, dot));
      // `import type { corev1 } from '@opgen/runtime/kubernetes'`: a group-version namespace, as its own entry point.
      if (ns && ns.module === KUBERNETES_TYPES_MODULE && ns.name !== '*' && ns.name !== 'default') {
        return { kind: 'module', module: `${KUBERNETES_TYPES_MODULE}/${ns.name}`, name: name.slice(dot + 1) };
      }
      if (!ns || ns.name !== '*') return { kind: 'unresolved', reason: `${name.slice(0, dot)} is not a namespace import` };
      return this.fromModule(file, ns.module, name.slice(dot + 1), seen);
    }
    const local = file.declarations.get(name);
    if (local) return { kind: 'declaration', file, decl: local, name };
    const constant = file.constants.get(name);
    if (constant) return { kind: 'constant', file, decl: constant, name };
    const imp = file.imports.get(name);
    if (!imp) return { kind: 'unresolved', reason: `${name} is neither declared in ${file.display} nor imported` };
    return this.fromModule(file, imp.module, imp.name, seen);
  }

  private fromModule(file: LoadedFile, module: string, name: string, seen: Set<string>): Resolved {
    if (!module.startsWith('.')) return { kind: 'module', module, name };
    const base = resolve(dirname(file.abs), module);
    const candidates = [base.replace(/\.(m|c)?js$/, '.$1ts'), base, `${base}.ts`, resolve(base, 'index.ts')];
    for (const c of candidates) {
      if (!c.endsWith('.ts')) continue;
      let target: LoadedFile;
      try {
        target = this.load(c);
      } catch {
        continue;
      }
      const key = `${c}#${name}`;
      if (seen.has(key)) return { kind: 'unresolved', reason: `${name} is re-exported in a cycle` };
      seen.add(key);
      const decl = target.declarations.get(name);
      if (decl) return { kind: 'declaration', file: target, decl, name };
      const constant = target.constants.get(name);
      if (constant) return { kind: 'constant', file: target, decl: constant, name };
      // Re-exports: `export { X } from './x.js'` and `export * from './x.js'`.
      for (const st of target.sf.statements) {
        if (!this.ts.isExportDeclaration(st) || !st.moduleSpecifier || !this.ts.isStringLiteral(st.moduleSpecifier)) continue;
        const clause = st.exportClause;
        if (clause && this.ts.isNamedExports(clause)) {
          const el = clause.elements.find((e) => e.name.text === name);
          if (el) return this.fromModule(target, st.moduleSpecifier.text, (el.propertyName ?? el.name).text, seen);
        } else if (!clause) {
          const r = this.fromModule(target, st.moduleSpecifier.text, name, seen);
          if (r.kind !== 'unresolved') return r;
        }
      }
      const imp = target.imports.get(name);
      if (imp) return this.fromModule(target, imp.module, imp.name, seen);
      return { kind: 'unresolved', reason: `${module} does not declare ${name}` };
    }
    return { kind: 'unresolved', reason: `cannot find ${module} from ${file.display}` };
  }
}

/** @opgen/runtime's typed built-in kinds: one namespace per group-version (corev1, appsv1, ...). */
export const KUBERNETES_TYPES_MODULE = '@opgen/runtime/kubernetes';

/** Position of a node as file:line:col. */
export function positionOf(file: LoadedFile, node: TS.Node): { file: string; line: number; column: number } {
  const lc = file.sf.getLineAndCharacterOfPosition(node.getStart(file.sf));
  return { file: file.display, line: lc.line + 1, column: lc.character + 1 };
}

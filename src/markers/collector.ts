// Ties `+marker` comment lines to the declarations they describe, with exact file:line:col positions
// (the column points at the marker's `+`, or into its arguments for argument errors).
//
// Rules (controller-gen's, adapted to TypeScript):
// - a marker is a comment line starting with `+`, in a `//` comment or inside a `/* */` block;
// - the leading comments of an interface, type alias or enum hold its type markers; those of a property,
//   its field markers; a marker there that is defined only for packages moves to the folder (package);
// - every other comment in the file holds package markers (`+groupName`, `+kubebuilder:rbac`, ...);
// - other generators' markers (./foreign.ts) are known and ignored; an unknown name under opgen's prefixes
//   is a typo.
import type { ts as TS } from 'ts-morph';
import { OpgenError, type Position } from '../diag/diagnostic.js';
import type { MarkerDefinition, Target } from './definition.js';
import { foreignMarkerTool } from './foreign.js';
import { MarkerSyntaxError, parseArguments, splitMarker } from './grammar.js';
import type { Registry } from './registry.js';

export interface CollectedMarker {
  definition: MarkerDefinition;
  value: unknown;
  /** Position of the `+`. */
  where: Position;
  text: string;
}

export interface DeclarationInfo {
  markers: CollectedMarker[];
  /** Description per controller-gen's rules, or undefined when there is none. */
  description?: string;
}

/** A marker another generator defines (client-gen's +genclient …), which opgen's generators ignore. */
export interface IgnoredMarker {
  text: string;
  tool: string;
  /** Position of the `+`. */
  where: Position;
}

export interface FileMarkers {
  package: CollectedMarker[];
  ignored: IgnoredMarker[];
  /** Keyed by the interface/alias/enum/property node. */
  declarations: Map<TS.Node, DeclarationInfo>;
}

interface RawComment {
  pos: number;
  end: number;
  block: boolean;
}

interface RawMarker {
  text: string;
  /** File offset of the `+`. */
  pos: number;
}

const TARGET_NOUN: Record<Target, string> = { package: 'a folder (any free comment)', type: 'a type', field: 'a field' };

export function collectMarkers(ts: typeof TS, sf: TS.SourceFile, file: string, registry: Registry, errors: OpgenError[]): FileMarkers {
  const text = sf.text;
  const result: FileMarkers = { package: [], ignored: [], declarations: new Map() };
  const owned = new Set<number>();
  const all = new Map<number, RawComment>();

  const remember = (ranges: TS.CommentRange[] | undefined): RawComment[] =>
    (ranges ?? []).map((r) => {
      const c = { pos: r.pos, end: r.end, block: r.kind === ts.SyntaxKind.MultiLineCommentTrivia };
      all.set(c.pos, c);
      return c;
    });

  const where = (pos: number): Position => {
    const lc = sf.getLineAndCharacterOfPosition(pos);
    return { file, line: lc.line + 1, column: lc.character + 1 };
  };

  const parse = (raw: RawMarker, target: Target | 'free', sink: CollectedMarker[], pkgSink: CollectedMarker[], subject?: () => string | undefined): void => {
    const aboutOf = (): string => {
      const s = subject?.();
      return s ? `${s}: ` : '';
    };
    const split = splitMarker(raw.text, (n) => registry.lookup(n));
    if (!split) {
      // A marker is one word; what follows a space is not part of its name.
      const word = raw.text.split(/[\s=]/)[0]!;
      const known = word !== raw.text.split('=')[0] ? registry.lookup(word) : undefined;
      if (known) {
        errors.push(
          new OpgenError(
            `${aboutOf()}+${word} is followed by text that is not its arguments`,
            where(raw.pos + 1 + word.length),
            'write +name or +name:arg=value without spaces; start a prose comment with something other than +',
          ),
        );
        return;
      }
      const tool = foreignMarkerTool(word);
      if (tool) {
        result.ignored.push({ text: raw.text, tool, where: where(raw.pos) });
        return;
      }
      const d = registry.diagnoseUnknown(word);
      if (d.owned) {
        errors.push(
          new OpgenError(`${aboutOf()}unknown marker +${word}`, where(raw.pos), d.suggestion ? `did you mean +${d.suggestion}?` : 'run `opgen markers` for the catalog'),
        );
      }
      return;
    }
    const name = split.definition.name;
    let dest: CollectedMarker[];
    let def: MarkerDefinition | undefined;
    if (target === 'free') {
      def = registry.lookup(name, 'package');
      dest = pkgSink;
    } else {
      def = registry.lookup(name, target);
      dest = sink;
      if (!def && target === 'type' && (name === 'kubebuilder:validation:Optional' || name === 'kubebuilder:validation:Required')) {
        // controller-gen silently widens this to the whole package, which is rarely what was meant.
        errors.push(
          new OpgenError(
            `${aboutOf()}+${name} above a type would apply to every field of the folder`,
            where(raw.pos),
            'put it on the fields it is meant for, or in a comment of groupversion-info.ts for the whole folder',
          ),
        );
        return;
      }
      if (!def && target === 'type' && name === 'kubebuilder:skip') {
        // A folder marker: above a type it reads as "skip this type" but would drop every CRD of the folder
        // (controller-gen ignores it in a type's doc comment, and skips the package from a block above it).
        errors.push(
          new OpgenError(
            `${aboutOf()}+kubebuilder:skip above a type would leave out every kind of the folder, not this type`,
            where(raw.pos),
            'drop it (a type no kind uses is not in any CRD), or put it in a comment of groupversion-info.ts to skip the whole folder',
          ),
        );
        return;
      }
      // A package marker written above a type or field still applies to the folder, as controller-gen reads it.
      const pkg = def ? undefined : registry.lookup(name, 'package');
      if (pkg) {
        def = pkg;
        dest = pkgSink;
      }
    }
    if (!def) {
      const targets = registry.definitionsOf(name).flatMap((d) => d.targets);
      const here = target === 'free' ? 'here (not directly above a type or field)' : `on ${TARGET_NOUN[target]}`;
      errors.push(
        new OpgenError(`${aboutOf()}+${name} cannot stand ${here}`, where(raw.pos), `move it directly above ${targets.map((t) => TARGET_NOUN[t]).join(' or ')}`),
      );
      return;
    }
    try {
      const value = parseArguments({ ...split, definition: def });
      dest.push({ definition: def, value, where: where(raw.pos), text: raw.text });
    } catch (err) {
      if (!(err instanceof MarkerSyntaxError)) throw err;
      const message = err.message.startsWith(`+${name} `) ? err.message : `+${name}: ${err.message}`;
      errors.push(new OpgenError(`${aboutOf()}${message}`, where(raw.pos + 1 + err.offset), err.fix));
    }
  };

  const declare = (node: TS.Node, target: Target, subject: string): void => {
    const start = node.getStart(sf);
    // A block comment on the line of the previous token (`{ /** doc */ a: string }`) is TypeScript's
    // "trailing" comment of that token, but it documents this declaration when nothing but spaces follow.
    const sameLine = (ts.getTrailingCommentRanges(text, node.getFullStart()) ?? []).filter(
      (r) => r.kind === ts.SyntaxKind.MultiLineCommentTrivia && !/\n/.test(text.slice(r.end, start)),
    );
    const comments = remember([...sameLine, ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [])]);
    const info: DeclarationInfo = { markers: [] };
    for (const c of comments) {
      owned.add(c.pos);
      for (const m of markerLines(text, c)) parse(m, target, info.markers, result.package, () => subject);
    }
    info.description = describe(text, comments, start);
    result.declarations.set(node, info);
  };

  // Properties of a declaration's type, at any depth of nested type literals.
  const fields = (node: TS.Node, subject: string): void => {
    ts.forEachChild(node, (child) => {
      if (ts.isPropertySignature(child)) {
        const name = `${subject}.${child.name.getText(sf)}`;
        declare(child, 'field', name);
        if (child.type) fields(child.type, name);
      } else if (!ts.isBlock(child)) {
        fields(child, subject);
      }
    });
  };

  // Like controller-gen, markers count at top level only: above statements, class members and the end of
  // the file. Comments inside function bodies are not read.
  for (const st of sf.statements) {
    if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) {
      declare(st, 'type', st.name.text);
      fields(st, st.name.text);
    } else {
      remember(ts.getLeadingCommentRanges(text, st.getFullStart()));
      if (ts.isClassDeclaration(st)) for (const member of st.members) remember(ts.getLeadingCommentRanges(text, member.getFullStart()));
    }
  }
  remember(ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()));

  for (const c of [...all.values()].sort((a, b) => a.pos - b.pos)) {
    if (owned.has(c.pos)) continue;
    for (const m of markerLines(text, c)) parse(m, 'free', result.package, result.package);
  }
  return result;
}

/** The `+marker` lines of one comment, each with the file offset of its `+`. */
function markerLines(text: string, c: RawComment): RawMarker[] {
  const body = text.slice(c.pos, c.end);
  if (!body.includes('+')) return [];
  const out: RawMarker[] = [];
  if (!c.block) {
    const m = /^\/\/\s*\+/.exec(body);
    if (m) out.push({ text: body.slice(m[0].length).trim(), pos: c.pos + m[0].length - 1 });
    return out;
  }
  let offset = 2; // after `/*`
  const inner = body.slice(2, body.length - 2);
  for (const line of inner.split('\n')) {
    const m = /^[\s*]*\+/.exec(line);
    if (m && !/^\*+\+/.test(line)) {
      out.push({ text: line.slice(m[0].length).replace(/\*+$/, '').trim(), pos: c.pos + offset + m[0].length - 1 });
    }
    offset += line.length + 1;
  }
  return out;
}

const DIRECTIVE = /^(@ts-(ignore|expect-error|nocheck|check)\b|eslint-(disable|enable)|prettier-ignore|biome-ignore|istanbul ignore|c8 ignore)/;

/**
 * controller-gen's description rules on TypeScript comments: the last JSDoc block, or else the `//` lines
 * directly above the declaration; marker lines removed; blank-line runs collapsed; `TODO` lines dropped and a
 * `---` line ending the text (outside ``` fences); newlines kept.
 */
function describe(text: string, comments: RawComment[], nodeStart: number): string | undefined {
  let lines: string[] = [];
  const jsdoc = [...comments].reverse().find((c) => c.block && text.startsWith('/**', c.pos));
  if (jsdoc) {
    const inner = text.slice(jsdoc.pos + 3, jsdoc.end - 2);
    // Like `//` comments in Go: the comment syntax and one space go, further indentation stays (code blocks).
    lines = inner.split('\n').map((l, i) => {
      const starred = /^\s*\*/.exec(l);
      if (starred) return l.slice(starred[0].length).replace(/^ /, '').trimEnd();
      return i === 0 ? l.replace(/^ /, '').trimEnd() : l.trim();
    });
  } else {
    // The run of `//` comments that touches the declaration (no blank line in between).
    let next = nodeStart;
    const run: string[] = [];
    for (const c of [...comments].reverse()) {
      if (c.block) break;
      const gap = text.slice(c.end, next);
      if ((gap.match(/\n/g) ?? []).length > 1) break;
      run.unshift(text.slice(c.pos + 2, c.end).replace(/^ /, '').trimEnd());
      next = c.pos;
    }
    lines = run;
  }
  // Marker lines, and tool directives (Go drops `//go:generate`; TypeScript's are these), are not prose.
  // A line written `\+` is prose starting with `+` (a Go block comment's marker-like line, after migrate).
  lines = lines.filter((l) => !l.trimStart().startsWith('+') && !DIRECTIVE.test(l.trimStart())).map((l) => l.replace(/^([\s*]*)\\\+/, '$1+'));
  // Go's CommentGroup.Text: trim blank lines at both ends, collapse runs of blank lines.
  const collapsed: string[] = [];
  for (const l of lines) {
    if (l === '' && (collapsed.length === 0 || collapsed[collapsed.length - 1] === '')) continue;
    collapsed.push(l);
  }
  while (collapsed.length > 0 && collapsed[collapsed.length - 1] === '') collapsed.pop();
  const out: string[] = [];
  let fenced = false;
  for (const l of collapsed) {
    // controller-gen tests the start of the line as written (after `// `): an indented TODO is text.
    if (l.startsWith('```') || l.startsWith('~~~')) fenced = !fenced;
    if (!fenced && l.startsWith('TODO')) continue;
    if (!fenced && l.startsWith('---')) break;
    out.push(l);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  const desc = out.join('\n');
  return desc === '' ? undefined : desc;
}

// The marker grammar, independent of what any marker means:
//   +path:to:marker                       a flag
//   +path:to:marker=value                 one anonymous value
//   +path:to:marker:arg=value,arg2=value  named arguments (the last `:segment` is the first argument)
// Values: "Go-quoted" and `raw` strings, bare strings up to `,` `;` `}`, integers, numbers, true/false,
// lists `{a,b}` or `a;b`, maps `{k: v}`; `any` values are typed by their spelling, as controller-gen does.
import { JsonRef, type ArgSpec, type ArgType, type MarkerDefinition } from './definition.js';

/** A syntax or argument error at `offset` characters into the marker text (after the `+`). */
export class MarkerSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly fix?: string,
  ) {
    super(message);
  }
}

export interface SplitMarker {
  definition: MarkerDefinition;
  /** The argument text and where it starts in the marker text. */
  args: string;
  argsOffset: number;
  hasArgs: boolean;
}

/**
 * Finds the definition a marker text names. `lookup` answers whether a name is defined at all.
 * Returns undefined when neither the name nor its parent is defined.
 */
export function splitMarker(text: string, lookup: (name: string) => MarkerDefinition | undefined): SplitMarker | undefined {
  const eq = text.indexOf('=');
  const head = eq < 0 ? text : text.slice(0, eq);
  const direct = lookup(head);
  if (direct) {
    return { definition: direct, args: eq < 0 ? '' : text.slice(eq + 1), argsOffset: eq + 1, hasArgs: eq >= 0 };
  }
  const colon = head.lastIndexOf(':');
  if (colon < 0) return undefined;
  const parent = lookup(head.slice(0, colon));
  if (!parent) return undefined;
  if (parent.shape === 'struct' || parent.shape === 'anchor') {
    // `+kubebuilder:printcolumn:name="Age",type=date`: the dropped segment is the first argument.
    return { definition: parent, args: text.slice(colon + 1), argsOffset: colon + 1, hasArgs: true };
  }
  if (parent.shape === 'value' && head.slice(colon + 1) === '' && eq >= 0) {
    // `+kubebuilder:default:={}`
    return { definition: parent, args: text.slice(eq + 1), argsOffset: eq + 1, hasArgs: true };
  }
  return undefined;
}

/** Parses a marker's arguments per its definition: `true` for flags, the value, or a record of named arguments. */
export function parseArguments(split: SplitMarker): unknown {
  const def = split.definition;
  const s = new Scanner(split.args, split.argsOffset);
  switch (def.shape) {
    case 'flag':
      if (split.hasArgs) throw new MarkerSyntaxError(`+${def.name} takes no arguments`, split.argsOffset - 1, `write +${def.name}`);
      return true;
    case 'anchor':
      if (!split.hasArgs || split.args.trim() === '') throw new MarkerSyntaxError(`+${def.name} needs a name`, 0, `write +${def.name}:<name>`);
      return split.args.trim();
    case 'value': {
      const type = def.value!;
      if (!split.hasArgs || s.atEnd()) {
        if (type.kind === 'bool' && !split.hasArgs) return true;
        if (type.kind === 'string' && split.hasArgs) return ''; // `+groupName=` is the empty group
        throw new MarkerSyntaxError(`+${def.name} needs a value`, split.argsOffset > 0 ? split.argsOffset - 1 : 0, `write +${def.name}=<${type.kind}>`);
      }
      const value = s.value(type, false);
      s.expectEnd();
      return value;
    }
    case 'struct':
      return parseStruct(def, s);
  }
}

function parseStruct(def: MarkerDefinition, s: Scanner): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const specs = def.args ?? [];
  if (!s.atEnd()) {
    for (;;) {
      const at = s.offset();
      const name = s.ident();
      const spec = specs.find((a) => a.name === name);
      if (!spec) {
        const known = specs.map((a) => a.name);
        const close = closest(name, known);
        throw new MarkerSyntaxError(
          `+${def.name} has no argument "${name}"`,
          at,
          close ? `did you mean ${close}?` : `arguments: ${known.join(', ')}`,
        );
      }
      if (name in out) throw new MarkerSyntaxError(`argument "${name}" given twice`, at);
      s.expectChar('=', 'an "=" after the argument name');
      out[name] = s.value(spec.type, false);
      if (s.atEnd()) break;
      s.expectChar(',', 'a "," between arguments');
    }
  }
  const missing = specs.filter((a: ArgSpec) => !a.optional && !(a.name in out));
  if (missing.length > 0) {
    throw new MarkerSyntaxError(
      `+${def.name} is missing argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => `"${a.name}"`).join(', ')}`,
      s.offset(),
      `add ${missing.map((a) => `${a.name}=<${a.type.kind}>`).join(',')}`,
    );
  }
  return out;
}

const EOF = '';

class Scanner {
  private i = 0;
  constructor(
    private readonly src: string,
    /** Where src starts in the marker text, so errors point into the marker. */
    private readonly base: number,
  ) {}

  offset(): number {
    return this.base + this.i;
  }

  private skipSpace(): void {
    while (this.i < this.src.length && /\s/.test(this.src[this.i]!)) this.i++;
  }

  peek(): string {
    this.skipSpace();
    return this.src[this.i] ?? EOF;
  }

  atEnd(): boolean {
    return this.peek() === EOF;
  }

  fail(message: string, fix?: string): never {
    throw new MarkerSyntaxError(message, this.offset(), fix);
  }

  expectChar(c: string, what: string): void {
    if (this.peek() !== c) this.fail(`expected ${what}, got ${this.describeNext()}`);
    this.i++;
  }

  expectEnd(): void {
    if (!this.atEnd()) this.fail(`unexpected ${JSON.stringify(this.src.slice(this.i))} after the value`, 'quote values that contain "," ";" or "}"');
  }

  private describeNext(): string {
    const c = this.peek();
    return c === EOF ? 'end of marker' : JSON.stringify(this.src.slice(this.i, this.i + 12));
  }

  ident(): string {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.i));
    if (!m) this.fail(`expected an argument name, got ${this.describeNext()}`);
    this.i += m[0].length;
    return m[0];
  }

  value(type: ArgType, inList: boolean): unknown {
    switch (type.kind) {
      case 'string':
        return this.string(false);
      case 'int':
        return this.int();
      case 'number':
        return this.number();
      case 'bool':
        return this.bool();
      case 'json':
        return this.json();
      case 'list':
        return this.list(type.of);
      case 'map':
        return this.map(type.of);
      case 'any':
        return this.value(this.guess(!inList), inList);
    }
  }

  private json(): unknown {
    this.skipSpace();
    const at = this.offset();
    const text = this.src.slice(this.i);
    this.i = this.src.length;
    if (text.startsWith('ref(')) return new JsonRef(text);
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new MarkerSyntaxError(`not valid JSON: ${(err as Error).message}`, at, 'write the value as JSON, e.g. "text", 3 or {"a":1}');
    }
  }

  private string(inMap: boolean): string {
    const c = this.peek();
    if (c === '"') return this.quoted();
    if (c === '`') {
      const end = this.src.indexOf('`', this.i + 1);
      if (end < 0) this.fail('unterminated `raw string`');
      const out = this.src.slice(this.i + 1, end);
      this.i = end + 1;
      return out;
    }
    const start = this.i;
    while (this.i < this.src.length) {
      const ch = this.src[this.i]!;
      if (ch === ',' || ch === ';' || ch === '}' || (inMap && ch === ':')) break;
      this.i++;
    }
    return this.src.slice(start, this.i).trimEnd();
  }

  /** A Go double-quoted string (strconv.Unquote rules). */
  private quoted(): string {
    const start = this.i;
    let out = '';
    this.i++;
    for (;;) {
      const ch = this.src[this.i];
      if (ch === undefined) {
        this.i = start;
        this.fail('unterminated quoted string');
      }
      this.i++;
      if (ch === '"') return out;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const e = this.src[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        continue;
      }
      const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (hexLen > 0 && /^[0-9a-fA-F]+$/.test(this.src.slice(this.i, this.i + hexLen)) && this.i + hexLen <= this.src.length) {
        out += String.fromCodePoint(parseInt(this.src.slice(this.i, this.i + hexLen), 16));
        this.i += hexLen;
        continue;
      }
      if (e !== undefined && /[0-7]/.test(e) && /^[0-7]{2}$/.test(this.src.slice(this.i, this.i + 2))) {
        out += String.fromCharCode(parseInt(e + this.src.slice(this.i, this.i + 2), 8));
        this.i += 2;
        continue;
      }
      this.i -= 2;
      this.fail(`invalid escape \\${e ?? ''} in a quoted string`, 'write a backslash as \\\\ inside "...", or use a `raw string`');
    }
  }

  private int(): number {
    this.skipSpace();
    const m = /^-?[0-9]+/.exec(this.src.slice(this.i));
    if (!m || /^[.eE]/.test(this.src.slice(this.i + m[0].length))) this.fail(`expected an integer, got ${this.describeNext()}`);
    this.i += m[0].length;
    return Number(m[0]);
  }

  private number(): number {
    this.skipSpace();
    const m = /^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/.exec(this.src.slice(this.i));
    if (!m) this.fail(`expected a number, got ${this.describeNext()}`);
    this.i += m[0].length;
    return Number(m[0]);
  }

  private bool(): boolean {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.i));
    if (!m || (m[0] !== 'true' && m[0] !== 'false')) this.fail(`expected true or false, got ${this.describeNext()}`);
    this.i += m[0].length;
    return m[0] === 'true';
  }

  private list(of: ArgType): unknown[] {
    const out: unknown[] = [];
    if (this.peek() === '{') {
      this.i++;
      while (this.peek() !== '}' && this.peek() !== EOF) {
        out.push(this.value(of, true));
        if (this.peek() === '}') break;
        this.expectChar(',', 'a "," between list items');
      }
      this.expectChar('}', 'a closing "}"');
      return out;
    }
    // legacy form: a;b;c
    while (!['', ',', '}'].includes(this.peek())) {
      out.push(this.value(of, true));
      const c = this.peek();
      if (c === ',' || c === '}' || c === EOF) break;
      this.expectChar(';', 'a ";" between list items');
    }
    return out;
  }

  private map(of: ArgType): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.expectChar('{', 'a map such as {key: value}');
    while (this.peek() !== '}' && this.peek() !== EOF) {
      const key = this.string(true);
      this.expectChar(':', 'a ":" after the map key');
      out[key] = this.value(of, false);
      if (this.peek() === '}') break;
      this.expectChar(',', 'a "," between map entries');
    }
    this.expectChar('}', 'a closing "}"');
    return out;
  }

  /** controller-gen's guessType: decide how an `any` value is spelled without consuming it. */
  private guess(allowLegacyList: boolean): ArgType {
    if (allowLegacyList) {
      const item = this.guess(false);
      return this.separatorAhead() === ';' ? { kind: 'list', of: item } : item;
    }
    const c = this.peek();
    if (c === '"' || c === '`' || c === "'") return { kind: 'string' };
    if (c === '{') {
      const save = this.i;
      this.i++;
      const inner = this.peek();
      const first = this.guess(false);
      let isMap = inner === '}';
      if (!isMap && first.kind === 'string') {
        try {
          this.string(true);
          isMap = this.peek() === ':';
        } catch {
          isMap = false;
        }
      }
      this.i = save;
      return isMap ? { kind: 'map', of: { kind: 'any' } } : { kind: 'list', of: first };
    }
    const rest = this.src.slice(this.i);
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (word) {
      if (word[0] === 'true' || word[0] === 'false') return { kind: 'bool' };
      return { kind: 'string' };
    }
    const num = /^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/.exec(rest);
    if (num && /^\s*([,;}]|$)/.test(rest.slice(num[0].length))) {
      return /[.eE]/.test(num[0]) ? { kind: 'number' } : { kind: 'int' };
    }
    return { kind: 'string' };
  }

  /** The first top-level `,` or `;` ahead (quoted strings skipped), or '' at the end. */
  private separatorAhead(): string {
    let j = this.i;
    while (j < this.src.length) {
      const ch = this.src[j]!;
      if (ch === '"' || ch === '`') {
        const end = ch === '`' ? this.src.indexOf('`', j + 1) : findQuoteEnd(this.src, j);
        if (end < 0) return EOF;
        j = end + 1;
        continue;
      }
      if (ch === ',' || ch === ';') return ch;
      j++;
    }
    return EOF;
  }
}

function findQuoteEnd(s: string, start: number): number {
  for (let j = start + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j;
  }
  return -1;
}

/** Levenshtein distance, case-insensitive, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest candidate within a distance that still reads as a typo, if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

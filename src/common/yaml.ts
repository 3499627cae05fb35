// The one serialiser for generated manifests: objects → YAML laid out as controller-gen's yaml.v2 lays it
// out, so opgen's files diff cleanly against controller-gen's: keys sorted by yaml.v2's comparator,
// sequences not indented under their key, yaml.v2's choice of plain/single/double/literal style per string,
// and its line folding (break at the first space once a line passes column 80). Each document is preceded
// by `---`. Same input, same bytes.

/** yaml.v2's keyList.Less for string keys: letters by code point, a non-letter before a letter, digit runs numerically. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isLetter = (c: string): boolean => /\p{L}/u.test(c);
  const isDigit = (c: string | undefined): boolean => c !== undefined && /\p{Nd}/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i]!;
    const bc = br[i]!;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac.codePointAt(0)! < bc.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac.codePointAt(0)! < bc.codePointAt(0)!;
  }
  return ar.length < br.length;
}

export function yamlKeyCompare(a: string, b: string): number {
  return yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0;
}

type Style = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL';

const BOOL_NULL = new Set(
  ['y', 'yes', 'n', 'no', 'true', 'false', 'on', 'off', 'null'].flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]).concat(['~', '']),
);

/** Whether yaml.v2 would read this plain text as something other than a string (YAML 1.1 resolution). */
function resolvesToNonString(s: string): boolean {
  if (BOOL_NULL.has(s) || s === '<<') return true;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s)) return true;
  const plain = s.replaceAll('_', '');
  if (/^[-+]?(0b[01]+|0x[0-9a-fA-F]+|0o?[0-7]+|[0-9]+)$/.test(plain)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) return true;
  if (/^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s)) return true; // base 60
  // Timestamps yaml.v2 accepts: 2006-1-2, with optional T/t/space time part.
  if (/^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt ]|\s+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?(\s*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$/.test(s)) return true;
  return false;
}

/**
 * yaml.v2's is_printable, for the characters that force double quotes. It reads UTF-8 bytes and admits no
 * four-byte sequence, so characters beyond the BMP (emoji) are escaped, and neither is U+0085.
 */
function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

const ESCAPES: Record<number, string> = {
  0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
  0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
};

/** yaml.v2's write_double_quoted, unfolded (foldLikeYamlV2 folds it): its escapes, not JSON's. */
function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const printable = isPrintable(c) && c !== 0x0a && c !== 0x22 && c !== 0x5c;
    if (printable) out += ch;
    else if (ESCAPES[c] !== undefined) out += `\\${ESCAPES[c]}`;
    else if (c <= 0xff) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${c.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * A number as yaml.v2 writes a json.Number: an integer that fits int64 as written, anything else as Go's
 * strconv.FormatFloat(f, 'g', -1, 64) (exponent form below 1e-4 and from 1e6, two-digit exponents).
 */
function goNumber(n: number): string {
  if (Object.is(n, -0)) return '-0';
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return String(n);
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // Shortest 'g' decides with precision 6.
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** The style yaml.v2 (encoder.stringv + emitter analysis) gives a string in block context. */
export function yamlV2Style(s: string): Style {
  const chars = [...s];
  const special = chars.some((ch) => !isPrintable(ch.codePointAt(0)!));
  if (s.includes('\n')) {
    // A literal block is impossible with special characters or spaces next to line breaks at the ends of lines.
    if (special || / \n/.test(s) || s.endsWith(' ')) return 'QUOTE_DOUBLE';
    return 'BLOCK_LITERAL';
  }
  if (resolvesToNonString(s)) return 'QUOTE_DOUBLE';
  if (special) return 'QUOTE_DOUBLE';
  const first = chars[0]!;
  const second = chars[1];
  const blankAfter = (c: string | undefined): boolean => c === undefined || c === ' ';
  let plain = true;
  if ('#,[]{}&*!|>\'"%@`'.includes(first)) plain = false;
  if ((first === '-' || first === '?' || first === ':') && blankAfter(second)) plain = false;
  if (s.startsWith('---') || s.startsWith('...')) plain = plain && !blankAfter(chars[3]) ? plain : false;
  if (/: |:$/.test(s) || / #/.test(s)) plain = false;
  if (s.startsWith(' ') || s.endsWith(' ')) plain = false;
  return plain ? 'PLAIN' : 'QUOTE_SINGLE';
}

const BEST_WIDTH = 80;

/** yaml.v2's folding of one flow scalar written after `prefix` (its column), continuing at `indent`. */
function foldScalar(prefixWidth: number, raw: string, indent: number): string {
  const chars = [...raw];
  const style = chars[0] === '"' ? 'double' : chars[0] === "'" ? 'single' : 'plain';
  let col = prefixWidth;
  let out = '';
  let spaces = false;
  const first = style === 'plain' ? 0 : 1;
  const last = style === 'plain' ? chars.length - 1 : chars.length - 2;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const inside = i >= first && i <= last;
    if (ch === ' ' && inside) {
      const next = chars[i + 1];
      const edge = style !== 'plain' && (i === first || i === last);
      const nextIsSpace = next === ' ' && i + 1 <= last;
      const mayBreak = !spaces && col > BEST_WIDTH && !edge && (style === 'double' || !nextIsSpace);
      if (mayBreak) {
        out += `\n${' '.repeat(indent)}`;
        col = indent;
        if (style === 'double' && nextIsSpace) {
          out += '\\';
          col++;
        }
      } else {
        out += ch;
        col++;
      }
      spaces = true;
      continue;
    }
    if (style === 'double' && ch === '\\' && inside) {
      // An escape sequence is written as a unit.
      const m = /^\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/u.exec(chars.slice(i).join(''));
      const seq = m ? m[0] : ch;
      out += seq;
      col += [...seq].length;
      i += [...seq].length - 1;
      spaces = false;
      continue;
    }
    out += ch;
    col++;
    spaces = false;
  }
  return out;
}

// A key ends at `: ` or at a `:` ending the line; a plain value may hold `:` (`http://x`), never `: `.
const LINE = /^( *)((?:- )*)((?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^'"\s-][^:]*?)(?:: |:$))?(.*)$/u;

/** Re-folds the long scalar lines of unfolded output the way yaml.v2 folds them. */
function foldLikeYamlV2(text: string): string {
  const lines = text.split('\n');
  let blockIndent = -1;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (blockIndent >= 0) {
      if (line.length === 0 || line.length - line.trimStart().length >= blockIndent) continue;
      blockIndent = -1;
    }
    if (mayEndBlockHeader(line) && BLOCK_HEADER.test(line)) {
      const m = LINE.exec(line);
      // The block's lines are indented past the key, or at least to the item's column after `- `.
      if (m) blockIndent = m[1]!.length + m[2]!.length + (m[3] ? 1 : 0);
      continue;
    }
    if (line.length <= BEST_WIDTH) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const [, spaces, dashes, key, value] = m as unknown as [string, string, string, string | undefined, string];
    if (value === '' || value === '{}' || value === '[]' || [...line].length <= BEST_WIDTH) continue;
    const keyStart = spaces.length + dashes.length;
    const prefix = line.slice(0, line.length - value.length);
    lines[n] = prefix + foldScalar([...prefix].length, value, key ? keyStart + 2 : keyStart);
  }
  return lines.join('\n');
}

const BLOCK_HEADER = /(?:^ *|: |- )[|>][0-9]?[-+]?$/;

/** A cheap pre-check for BLOCK_HEADER (run on every line): a header ends in `|`, `>`, `-`, `+` or a digit. */
function mayEndBlockHeader(line: string): boolean {
  const c = line.charCodeAt(line.length - 1);
  return c === 0x7c || c === 0x3e || c === 0x2d || c === 0x2b || (c >= 0x30 && c <= 0x39);
}

const styles = new Map<string, Style>();

function styleOf(s: string): Style {
  let style = styles.get(s);
  if (style === undefined) {
    style = yamlV2Style(s);
    styles.set(s, style);
  }
  return style;
}

// Schemas repeat the same key sets (properties, type, description ...) thousands of times: sort each set once.
const keyOrders = new Map<string, string[]>();

function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  const signature = keys.join('\0');
  let order = keyOrders.get(signature);
  if (order === undefined) {
    order = [...keys].sort(yamlKeyCompare);
    keyOrders.set(signature, order);
  }
  return order;
}

type YamlModule = typeof import('yaml');

/** The yaml node for a JSON-like value: keys sorted by yaml.v2's comparator, each string in yaml.v2's style. */
function toNode(y: YamlModule, value: unknown): unknown {
  if (Array.isArray(value)) {
    const seq = new y.YAMLSeq();
    seq.items = value.map((v) => toNode(y, v));
    return seq;
  }
  if (value !== null && typeof value === 'object') {
    const map = new y.YAMLMap();
    const obj = value as Record<string, unknown>;
    for (const k of sortedKeys(obj)) {
      if (obj[k] === undefined) continue;
      const key = new y.Scalar(k);
      key.type = styleOf(k);
      map.items.push(new y.Pair(key, toNode(y, obj[k])));
    }
    return map;
  }
  if (typeof value === 'string') {
    const scalar = new y.Scalar(value);
    scalar.type = styleOf(value);
    return scalar;
  }
  // Numbers, booleans and null are written as the text yaml.v2 writes, plain; the document uses the
  // failsafe schema, so the serialiser does not test each plain string against every YAML 1.2 tag.
  const scalar = new y.Scalar(typeof value === 'number' ? goNumber(value) : value == null ? 'null' : String(value));
  scalar.type = 'PLAIN';
  return scalar;
}

type Tags = NonNullable<import('yaml').SchemaOptions['customTags']>;
let failsafeTags: Tags | undefined;

/**
 * The failsafe schema's tags, with a string tag that calls the string serialiser directly: the stock one
 * copies the whole stringify context for every string only to flag it for checks against YAML 1.2's
 * other tags, which the failsafe schema does not have.
 */
async function tags(): Promise<Tags> {
  if (!failsafeTags) {
    const { stringTag, stringifyString } = await import('yaml/util');
    // Double-quoted strings are written here with yaml.v2's escapes; the rest by the yaml package.
    const direct = {
      ...stringTag,
      stringify: ((item, ctx, onComment, onChompKeep) =>
        (item as { type?: string }).type === 'QUOTE_DOUBLE' ? doubleQuoted(String((item as { value: unknown }).value)) : stringifyString(item, ctx, onComment, onChompKeep)) as typeof stringifyString,
    };
    failsafeTags = (all) => all.map((t) => (t === stringTag ? direct : t));
  }
  return failsafeTags;
}

/** Serialises each object as a YAML document preceded by `---`, optionally after a header. */
export async function toYaml(docs: readonly object[], header = ''): Promise<string> {
  const y = await import('yaml');
  const customTags = await tags();
  let out = header;
  for (const value of docs) {
    const doc = new y.Document(undefined, { schema: 'failsafe', customTags });
    doc.contents = toNode(y, value) as typeof doc.contents;
    const text = doc.toString({ indent: 2, indentSeq: false, lineWidth: 0, blockQuote: 'literal', doubleQuotedAsJSON: true, directives: false });
    out += `---\n${foldLikeYamlV2(text)}`;
  }
  return out;
}

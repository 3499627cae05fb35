// SemVer 2.0.0 versions and the range syntax OLM's skipRange uses (blang/semver's ParseRange: comparators
// joined by spaces mean AND, `||` means OR, `1.x` wildcards).

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: string[];
  build: string;
}

const NUM = '0|[1-9]\\d*';
const PRE_ID = `(?:${NUM}|\\d*[a-zA-Z-][0-9a-zA-Z-]*)`;
const SEMVER_RE = new RegExp(`^(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$`);

export function parseSemVer(s: string): SemVer | undefined {
  const m = SEMVER_RE.exec(s);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ? m[4].split('.') : [], build: m[5] ?? '' };
}

/** SemVer precedence (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) < Number(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

type Comparator = { op: '<' | '<=' | '>' | '>=' | '=' | '!='; v: SemVer; wildcard?: 'minor' | 'patch' };

/** A parsed range: OR of ANDs. Undefined (with a reason) when blang/semver would refuse it. */
export function parseRange(s: string): { ok: true; test: (v: SemVer) => boolean } | { ok: false; reason: string } {
  if (s.trim() === '') return { ok: false, reason: 'the range is empty' };
  const alternatives: Comparator[][] = [];
  for (const part of s.split('||')) {
    const words = part.trim().split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) return { ok: false, reason: `"||" needs a range on both sides` };
    const ands: Comparator[] = [];
    for (const w of words) {
      const m = /^(<=|>=|!=|==|=|<|>)?(.*)$/.exec(w)!;
      const op = (m[1] === '==' ? '=' : m[1] ?? '=') as Comparator['op'];
      let text = m[2]!;
      let wildcard: Comparator['wildcard'];
      const wm = /^(\d+)\.(x|X|\*)(?:\.(x|X|\*))?$/.exec(text) ?? /^(\d+)\.(\d+)\.(x|X|\*)$/.exec(text);
      if (wm) {
        wildcard = /^\d+$/.test(wm[2]!) ? 'patch' : 'minor';
        text = wildcard === 'patch' ? `${wm[1]}.${wm[2]}.0` : `${wm[1]}.0.0`;
      }
      const v = parseSemVer(text);
      if (!v) return { ok: false, reason: `"${w}" is not a comparator such as >=1.0.0` };
      ands.push({ op, v, wildcard });
    }
    alternatives.push(ands);
  }
  return { ok: true, test: (v) => alternatives.some((ands) => ands.every((c) => matches(c, v))) };
}

function matches(c: Comparator, v: SemVer): boolean {
  if (c.wildcard && (c.op === '=' || c.op === '!=')) {
    const inside = v.major === c.v.major && (c.wildcard === 'minor' || v.minor === c.v.minor);
    return c.op === '=' ? inside : !inside;
  }
  const d = compareSemVer(v, c.v);
  switch (c.op) {
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    case '=':
      return d === 0;
    case '!=':
      return d !== 0;
  }
}

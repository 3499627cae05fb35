// Label selectors as kubectl and the API server read them: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
// `a notin (x)`, `a`, `!a`, joined by commas. The cache filters in memory with the same meaning.

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

interface Requirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!exists';
  values: string[];
}

export class LabelSelectorError extends Error {
  constructor(selector: string, why: string) {
    super(`invalid label selector "${selector}": ${why}`);
    this.name = 'LabelSelectorError';
  }
}

/** Parses a selector string or an equality map into a matcher; the empty selector matches everything. */
export function parseLabelSelector(selector: string | Record<string, string> | undefined): LabelMatcher {
  if (selector === undefined) return () => true;
  const reqs: Requirement[] =
    typeof selector === 'string'
      ? parseRequirements(selector)
      : Object.entries(selector).map(([key, value]) => ({ key, op: 'in', values: [value] }));
  return (labels) => reqs.every((r) => matches(r, labels ?? {}));
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
      // As in apimachinery: a missing label satisfies `notin` and `!=`.
      return !has || !r.values.includes(labels[r.key]!);
  }
}

function parseRequirements(selector: string): Requirement[] {
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(selector, selector)) {
    const term = part.trim();
    if (term === '') {
      if (selector.trim() === '') continue;
      throw new LabelSelectorError(selector, 'empty requirement between commas');
    }
    let m: RegExpMatchArray | null;
    if ((m = term.match(/^!\s*([^\s!=(),]+)$/))) reqs.push({ key: checkKey(selector, m[1]!), op: '!exists', values: [] });
    else if ((m = term.match(/^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/)))
      reqs.push({ key: checkKey(selector, m[1]!), op: m[2] === '!=' ? 'notin' : 'in', values: [checkValue(selector, m[3]!)] });
    else if ((m = term.match(/^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/))) {
      const values = m[3]!.split(',').map((v) => checkValue(selector, v.trim()));
      reqs.push({ key: checkKey(selector, m[1]!), op: m[2] as 'in' | 'notin', values });
    } else if ((m = term.match(/^([^\s!=(),]+)$/))) reqs.push({ key: checkKey(selector, m[1]!), op: 'exists', values: [] });
    else throw new LabelSelectorError(selector, `cannot read "${term}"`);
  }
  return reqs;
}

// Commas inside `in (a,b)` belong to the value list, not the requirement list.
function splitTopLevel(text: string, selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < 0) throw new LabelSelectorError(selector, 'unbalanced ")"');
    } else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new LabelSelectorError(selector, 'unbalanced "("');
  parts.push(text.slice(start));
  return parts;
}

const keyPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const valuePattern = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function checkKey(selector: string, key: string): string {
  if (!keyPattern.test(key)) throw new LabelSelectorError(selector, `"${key}" is not a valid label key`);
  return key;
}

function checkValue(selector: string, value: string): string {
  if (!valuePattern.test(value)) throw new LabelSelectorError(selector, `"${value}" is not a valid label value`);
  return value;
}

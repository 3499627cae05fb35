// The API server's static cost estimate of a CEL expression: cel-go's checker/cost.go with
// Kubernetes' library estimator (k8s.io/apiserver/pkg/cel/library/cost.go) and the CRD size estimator
// (apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go), ported to cel-js's checked AST.
// Macros are costed as cel-go expands them (all → fold with `@not_strictly_false(accu)` and `accu && p` …).
// Only the maximum is kept for costs: that is what the API server compares with its budgets.
import type { DeclType } from './decl-type.js';

export const U64_MAX = 2 ** 64;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

const add = (a: number, b: number): number => Math.min(U64_MAX, a + b);
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(U64_MAX, a * b));
const byFactor = (a: number, f: number): number => (a >= U64_MAX ? U64_MAX : Math.min(U64_MAX, Math.ceil(a * f)));

interface Size {
  min: number;
  max: number;
}
const UNKNOWN: Size = { min: 0, max: U64_MAX };
const fixed = (n: number): Size => ({ min: n, max: n });
const union = (a: Size, b: Size): Size => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const addSize = (a: Size, b: Size): Size => ({ min: add(a.min, b.min), max: add(a.max, b.max) });

interface EntrySize {
  container: 'list' | 'map';
  key: Size;
  val: Size;
}

export interface CelType {
  kind: string;
  name: string;
  keyType?: CelType;
  valueType?: CelType;
}
export interface Node {
  op: string;
  args: unknown;
  checkedType?: CelType;
}

interface LocalVar {
  path?: string[];
  size?: Size;
  entry?: EntrySize;
}

const NAMESPACES = new Set(['sets', 'lists', 'strings', 'format', 'ip', 'optional', 'cel']);
const MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'sortBy', 'optMap', 'optFlatMap']);
const ONE = new Set(['masked', 'prefixLength', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'format.named', 'sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub', 'major', 'minor', 'patch', 'getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery']);

const isScalar = (t: CelType | undefined): boolean =>
  !!t && (['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp'].includes(t.name) || (t.kind === 'optional' && isScalar(t.valueType)));

/** The worst-case cost of `root`, an expression checked in an environment where `self` (and `oldSelf`) have type `decl`. */
export function estimateCost(root: Node, decl: DeclType): number {
  return new Coster(decl).cost(root);
}

class Coster {
  private readonly paths = new Map<Node, string[]>();
  private readonly sizes = new Map<Node, Size>();
  private readonly entries = new Map<Node, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(private readonly decl: DeclType) {}

  cost(e: Node): number {
    switch (e.op) {
      case 'value':
        return 0;
      case 'id': {
        const v = this.peek(e.args as string);
        this.paths.set(e, v ? (v.path ?? []) : [e.args as string]);
        return 1;
      }
      case '.': {
        const [operand, field] = e.args as [Node, string];
        let sum = this.cost(operand);
        const k = operand.checkedType?.kind;
        if (k === 'map' || k === 'message' || k === 'param') sum = add(sum, 1);
        const p = this.path(operand);
        if (p) this.paths.set(e, [...p, field]);
        return sum;
      }
      case '.?': {
        const [operand] = e.args as [Node, string];
        return add(1, this.cost(operand));
      }
      case '[]':
      case '[?]': {
        const [container, index] = e.args as [Node, Node];
        const sum = add(add(this.cost(container), this.cost(index)), 1);
        if (e.op === '[]') {
          const k = container.checkedType?.kind;
          let size = this.entrySize(container)?.val;
          if (k === 'list' || k === 'map') {
            const p = this.path(container);
            if (p) this.paths.set(e, [...p, k === 'list' ? '@items' : '@values']);
          }
          size ??= this.size(e);
          if (size) this.sizes.set(e, size);
        }
        return sum;
      }
      case 'list': {
        const elems = e.args as Node[];
        let sum = 0;
        let item: Size = elems.length === 0 ? fixed(0) : { min: U64_MAX, max: 0 };
        for (const x of elems) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOrUnknown(x));
        }
        this.entries.set(e, { container: 'list', key: fixed(1), val: item });
        return add(sum, LIST_CREATE);
      }
      case 'map': {
        const ents = e.args as Array<[Node, Node]>;
        let sum = 0;
        let key: Size = ents.length === 0 ? fixed(0) : { min: U64_MAX, max: 0 };
        let val: Size = key;
        for (const [k, v] of ents) {
          sum = add(add(sum, this.cost(k)), this.cost(v));
          key = union(key, this.sizeOrUnknown(k));
          val = union(val, this.sizeOrUnknown(v));
        }
        this.entries.set(e, { container: 'map', key, val });
        return add(sum, MAP_CREATE);
      }
      case '?:': {
        const [c, t, f] = e.args as [Node, Node, Node];
        const cost = add(this.cost(c), Math.max(this.cost(t), this.cost(f)));
        this.sizes.set(e, union(this.sizeOrUnknown(t), this.sizeOrUnknown(f)));
        const et = this.entrySize(t);
        const ef = this.entrySize(f);
        if (et && ef) this.entries.set(e, { container: et.container, key: union(et.key, ef.key), val: union(et.val, ef.val) });
        return cost;
      }
      case '&&':
      case '||': {
        const [l, r] = e.args as [Node, Node];
        return add(this.cost(l), this.cost(r));
      }
      case '!_':
      case '-_':
        return add(1, this.cost(e.args as Node));
      case 'call': {
        const [name, args] = e.args as [string, Node[]];
        if (name === 'has') return this.costHas(args[0]!);
        if (name === 'dyn') {
          const c = add(1, this.cost(args[0]!));
          this.copySizes(e, args[0]!);
          return c;
        }
        return this.costCall(e, name, undefined, args);
      }
      case 'rcall': {
        const [name, receiver, args] = e.args as [string, Node, Node[]];
        if (receiver.op === 'id' && NAMESPACES.has(receiver.args as string) && !this.peek(receiver.args as string)) {
          return this.costCall(e, `${receiver.args as string}.${name}`, undefined, args);
        }
        if (MACROS.has(name) && args.every((a, i) => i === args.length - 1 || a.op === 'id')) return this.costMacro(e, name, receiver, args);
        return this.costCall(e, name, receiver, args);
      }
      default:
        // binary operators
        return this.costCall(e, e.op, undefined, e.args as Node[]);
    }
  }

  private costHas(sel: Node): number {
    // PresenceTestHasCost(false): has() costs its operand only.
    if (sel.op === '.' || sel.op === '.?') return this.cost((sel.args as [Node, string])[0]);
    return this.cost(sel);
  }

  private costCall(e: Node, fn: string, target: Node | undefined, args: Node[]): number {
    const argCosts = args.map((a) => this.cost(a));
    const argSum = argCosts.reduce(add, 0);
    let sum = target ? this.cost(target) : 0;
    const est = this.functionCost(e, fn, target, args, argCosts, argSum);
    sum = add(sum, est.cost);
    let resultSize = est.size;
    if (!resultSize) resultSize = this.size(e);
    if (resultSize) this.sizes.set(e, resultSize);
    return sum;
  }

  private functionCost(e: Node, fn: string, target: Node | undefined, args: Node[], argCosts: number[], argSum: number): { cost: number; size?: Size } {
    const sz = (n: Node): Size => this.sizeOrUnknown(n);
    const t = target ? sz(target) : UNKNOWN;
    const a0 = args[0] ? sz(args[0]) : UNKNOWN;
    const plus = (cost: number, size?: Size) => ({ cost: add(cost, argSum), ...(size ? { size } : {}) });
    const elemType = target?.checkedType?.kind === 'list' ? target.checkedType.valueType : undefined;
    // cel-go extension estimators (sets, lists)
    switch (fn) {
      case 'sets.contains':
      case 'sets.intersects':
        return plus(add(byFactor(mul(a0.max, args[1] ? sz(args[1]).max : U64_MAX), 1), 1));
      case 'sets.equivalent':
        return plus(add(byFactor(mul(a0.max, args[1] ? sz(args[1]).max : U64_MAX), 2), 1));
      case 'slice':
        if (target && args.length === 2) {
          const start = literalInt(args[0]!, 0);
          const end = literalInt(args[1]!, t.max);
          return plus(allocating(1, fixed(Math.max(0, end - start))).cost, fixed(Math.max(0, end - start)));
        }
        break;
      case 'lists.range': {
        const n = literalInt(args[0]!, U64_MAX);
        return plus(allocating(1, fixed(n)).cost, fixed(n));
      }
      case 'reverse':
        if (elemType) return plus(allocating(1, t).cost, t);
        break;
      case 'flatten':
        if (target) return plus(allocating(args.length === 1 ? literalInt(args[0]!, U64_MAX) : 1, t).cost, t);
        break;
      case 'distinct':
        return plus(allocating(2, { min: mul(t.min, t.min), max: mul(t.max, t.max) }).cost, t);
      case 'sort': {
        const f = elemType && (elemType.name === 'string' || elemType.name === 'bytes') ? 2 + STRING_TRAVERSAL : 2;
        return plus(allocating(f, { min: mul(t.min, t.min), max: mul(t.max, t.max) }).cost, t);
      }
    }
    // Kubernetes' estimator
    switch (fn) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (target) {
          if (elemType) {
            let el = 1;
            if (elemType.name === 'string' || elemType.name === 'bytes') el = add(el, byFactor(this.elementSize(target).max, STRING_TRAVERSAL));
            return plus(mul(t.max, el));
          }
          return plus(byFactor(t.max, STRING_TRAVERSAL));
        }
        break;
      case 'url':
        if (args.length === 1) return plus(byFactor(a0.max, STRING_TRAVERSAL), a0);
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target) return plus(byFactor(t.max, STRING_TRAVERSAL), t);
        break;
      case 'replace':
        if (target && args.length >= 2) return plus(byFactor(t.max, 2 * STRING_TRAVERSAL), replaceSize(t, a0, sz(args[1]!)));
        break;
      case 'split':
        if (target) return plus(byFactor(t.max, 2 * STRING_TRAVERSAL), { min: 0, max: args.length > 1 && args[1]!.op === 'value' ? Number(args[1]!.args) : t.max });
        break;
      case 'join':
        if (target) {
          const el = elemType ? this.elementSize(target) : undefined;
          let s: Size = el ? { min: mul(t.min, el.min), max: mul(t.max, el.max) } : fixed(0);
          if (args.length > 0) s = addSize(s, { min: mul(a0.min, Math.max(0, t.min - 1)), max: mul(a0.max, Math.max(0, t.max - 1)) });
          return plus(byFactor(s.max, STRING_TRAVERSAL), s);
        }
        break;
      case 'find':
      case 'findAll':
        if (target && args.length >= 1) return plus(mul(byFactor(add(t.max, 1), STRING_TRAVERSAL), byFactor(a0.max, REGEX_LENGTH)), { min: 0, max: t.max });
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        if (args.length >= 1) return plus(byFactor(a0.max, STRING_TRAVERSAL));
        break;
      case 'ip':
        if (target) return plus(1);
        if (args.length >= 1) return plus(byFactor(a0.max, STRING_TRAVERSAL));
        break;
      case 'ip.isCanonical':
        if (args.length >= 1) return plus(byFactor(a0.max, 2 * STRING_TRAVERSAL));
        break;
      case 'containsIP':
        if (args.length >= 1) return plus(add(4, args[0]!.checkedType?.name === 'string' ? byFactor(a0.max, STRING_TRAVERSAL) : 0));
        break;
      case 'containsCIDR':
        if (args.length >= 1) return plus(add(7, args[0]!.checkedType?.name === 'string' ? byFactor(a0.max, STRING_TRAVERSAL) : 0));
        break;
      case 'validate':
        if (args.length >= 1) return plus(byFactor(byFactor(a0.max, STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH));
        break;
      case '==':
      case '!=': {
        const l = args[0]!.checkedType;
        const r = args[1]!.checkedType;
        if (fn === '==' && l && r && l.name === r.name && ['IP', 'CIDR', 'Quantity', 'Semver'].includes(l.name)) return plus(1);
        if (fn === '==' && l && r && l.name === r.name && l.name === 'Format') return plus(byFactor(64, STRING_TRAVERSAL));
        if (fn === '==' && l && r && l.name === r.name && l.name === 'URL') return plus(byFactor(Math.max(1, sz(args[1]!).max), STRING_TRAVERSAL));
        break;
      }
    }
    if (ONE.has(fn) && (target || fn === 'format.named')) return plus(1);
    // cel-go's own estimates
    switch (fn) {
      case 'format':
        if (target) return plus(byFactor(t.max, STRING_TRAVERSAL));
        break;
      case 'bytes':
        if (args.length === 1 && args[0]!.checkedType?.name === 'string') return plus(byFactor(a0.max, STRING_TRAVERSAL), { min: a0.min, max: mul(a0.max, 4) });
        break;
      case 'string':
        if (args.length === 1 && args[0]!.checkedType?.name === 'bytes') return plus(byFactor(a0.max, STRING_TRAVERSAL), { min: Math.floor(a0.min / 4), max: a0.max });
        break;
      case 'strings.quote':
        if (args.length === 1) return plus(byFactor(a0.max, STRING_TRAVERSAL), { min: a0.min + 2, max: add(mul(a0.max, 2), 2) });
        break;
      case 'startsWith':
      case 'endsWith':
        if (target && args.length === 1) return plus(byFactor(a0.max, STRING_TRAVERSAL));
        break;
      case 'in':
        if (args[1]?.checkedType?.kind === 'list') return plus(sz(args[1]).max);
        break;
      case 'matches':
        if (target && args.length === 1) return plus(mul(byFactor(add(t.max, 1), STRING_TRAVERSAL), byFactor(a0.max, REGEX_LENGTH)));
        break;
      case 'contains':
        if (target && args.length === 1) return plus(mul(byFactor(t.max, STRING_TRAVERSAL), byFactor(a0.max, STRING_TRAVERSAL)));
        break;
      case '+': {
        const k = args[0]!.checkedType;
        if (k && (k.name === 'string' || k.name === 'bytes' || k.kind === 'list')) {
          const s = addSize(sz(args[0]!), sz(args[1]!));
          const l = this.entrySize(args[0]!);
          const r = this.entrySize(args[1]!);
          if (l && r) this.entries.set(e, { container: l.container, key: union(l.key, r.key), val: union(l.val, r.val) });
          if (k.kind === 'list') return plus(1, s);
          return plus(byFactor(s.max, STRING_TRAVERSAL), s);
        }
        break;
      }
      case '<':
      case '<=':
      case '>':
      case '>=':
      case '==':
      case '!=': {
        const k = args[0]!.checkedType?.name;
        if (fn === '==' || fn === '!=' || k === 'string' || k === 'bytes') {
          const smallest = Math.min(sz(args[0]!).max, sz(args[1]!).max);
          return plus(byFactor(smallest, STRING_TRAVERSAL));
        }
        break;
      }
    }
    void argCosts;
    return plus(1);
  }

  /** Macros, costed as cel-go's expansion into a fold: range + init + result + |range| × (condition + step). */
  private costMacro(e: Node, name: string, range: Node, args: Node[]): number {
    let sum = this.cost(range);
    const rangeType = range.checkedType;
    const container: 'list' | 'map' = rangeType?.kind === 'map' ? 'map' : 'list';
    const rp = this.path(range);
    const entry = this.entrySize(range);
    const ident = (n: Node | undefined): string => (n?.args as string) ?? '';
    const vars: string[] = [];
    const push = (v: string, local: LocalVar): void => {
      vars.push(v);
      this.locals.set(v, [...(this.locals.get(v) ?? []), local]);
    };
    const body = args[args.length - 1]!;
    if (name === 'optMap' || name === 'optFlatMap') {
      // opt.hasValue() ? optional.of(cel.bind(x, opt.value(), t)) : optional.none()
      const opt = this.cost(range);
      push(ident(args[0]), {});
      const t = this.cost(body);
      this.pop(vars);
      return add(add(sum, opt), add(name === 'optMap' ? 4 : 3, t));
    }
    if (name === 'sortBy') {
      // lists.@sortByAssociatedKeys(range, range.map(x, key)): one map plus a sort of the keys.
      push(ident(args[0]), { path: rp ? [...rp, '@items'] : undefined, size: entry?.val });
      const key = this.cost(body);
      this.pop(vars);
      const n = this.sizeOrUnknown(range);
      sum = add(sum, add(this.cost(range), add(LIST_CREATE + 1, mul(n.max, add(12, key)))));
      const cost = add(sum, allocating(2, { min: mul(n.min, n.min), max: mul(n.max, n.max) }).cost);
      this.sizes.set(e, n);
      return cost;
    }
    const twoVars = args.length >= 3 && name !== 'map';
    if (twoVars) {
      push(ident(args[0]), { path: rp ? [...rp, container === 'list' ? '@indices' : '@keys'] : undefined, size: container === 'list' ? undefined : entry?.key });
      push(ident(args[1]), { path: rp ? [...rp, container === 'list' ? '@items' : '@values'] : undefined, size: entry?.val });
    } else {
      push(ident(args[0]), { path: rp ? [...rp, container === 'list' ? '@items' : '@keys'] : undefined, size: container === 'list' ? entry?.val : entry?.key });
    }
    const filter = (name === 'map' && args.length === 3) || (name.startsWith('transform') && args.length === 4) ? this.cost(args[args.length - 2]!) : 0;
    const b = this.cost(body);
    this.pop(vars);
    let perItem: number;
    let init = 0;
    let result = 1;
    let resultSize: Size | undefined;
    const n = this.sizeOrUnknown(range);
    switch (name) {
      case 'all':
        perItem = add(2, add(1, b)); // @not_strictly_false(accu) ; accu && p
        resultSize = fixed(1);
        break;
      case 'exists':
        perItem = add(3, add(1, b)); // @not_strictly_false(!accu) ; accu || p
        resultSize = fixed(1);
        break;
      case 'exists_one':
      case 'existsOne':
        perItem = add(b, 2); // p ? accu + 1 : accu
        result = 2; // accu == 1
        resultSize = fixed(1);
        break;
      case 'filter':
        init = LIST_CREATE;
        perItem = add(b, 13); // p ? accu + [x] : accu
        resultSize = n;
        break;
      case 'map':
      case 'transformList':
        init = LIST_CREATE;
        perItem = add(filter, add(12, b)); // [f ?] accu + [t] [: accu]
        resultSize = n;
        this.entries.set(e, { container: 'list', key: fixed(1), val: this.sizeOrUnknown(body) });
        break;
      case 'transformMap':
        init = MAP_CREATE;
        perItem = add(filter, add(3, b)); // cel.@mapInsert(accu, k, t)
        resultSize = n;
        break;
      default: // transformMapEntry
        init = MAP_CREATE;
        perItem = add(filter, add(2, b)); // cel.@mapInsert(accu, t)
        resultSize = n;
        break;
    }
    sum = add(add(add(sum, init), result), mul(n.max, perItem));
    if (resultSize) this.sizes.set(e, resultSize);
    return sum;
  }

  private pop(vars: string[]): void {
    for (const v of vars) this.locals.get(v)!.pop();
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack && stack.length > 0 ? stack[stack.length - 1] : undefined;
  }

  private path(e: Node): string[] | undefined {
    if (e.op === 'id') {
      const v = this.peek(e.args as string);
      if (v) return v.path;
    }
    return this.paths.get(e);
  }

  private copySizes(dst: Node, src: Node): void {
    const s = this.size(src);
    if (s) this.sizes.set(dst, s);
    const en = this.entrySize(src);
    if (en) this.entries.set(dst, en);
  }

  private entrySize(e: Node): EntrySize | undefined {
    const en = this.entries.get(e);
    if (en) return en;
    if (e.op === 'id') return this.peek(e.args as string)?.entry;
    return undefined;
  }

  private sizeOrUnknown(e: Node): Size {
    return this.size(e) ?? UNKNOWN;
  }

  /** cel-go's computeSize: computed, literal, schema-estimated, scalar, then a local variable's. */
  private size(e: Node): Size | undefined {
    const known = this.sizes.get(e);
    if (known) return known;
    const literal = literalSize(e);
    if (literal) return literal;
    const p = this.path(e);
    if (p && p.length > 0) {
      const est = this.estimateSize(p);
      if (est) {
        this.sizes.set(e, est);
        return est;
      }
    }
    if (isScalar(e.checkedType)) return fixed(1);
    if (e.op === 'id') return this.peek(e.args as string)?.size;
    return undefined;
  }

  /** The size of the elements of list `target` (for isSorted, join …). */
  private elementSize(target: Node): Size {
    const p = this.path(target);
    if (p) {
      const est = this.estimateSize([...p, '@items']);
      if (est) return est;
    }
    return UNKNOWN;
  }

  /** The CRD size estimator: follow the path from `self` through the declaration. */
  private estimateSize(path: string[]): Size | undefined {
    // As the API server's estimator: the first element (the variable) is dropped unread, so any
    // identifier (even `int` in `type(x) == int`) resolves to the rule's own schema.
    if (path.length === 0) return undefined;
    let d: DeclType | undefined = this.decl;
    for (const step of path.slice(1)) {
      if (!d) return undefined;
      if (step === '@items' || step === '@values') d = d.elem;
      else if (step === '@keys') {
        if (d.kind !== 'map') return undefined;
        return fixed(0);
      } else d = d.fields?.get(step);
    }
    return d ? { min: 0, max: d.maxElements } : undefined;
  }
}

function allocating(factor: number, size: Size): { cost: number } {
  return { cost: add(add(byFactor(size.max, factor), 1), LIST_CREATE) };
}

function literalInt(n: Node, fallback: number): number {
  if (n.op === 'value' && typeof n.args === 'bigint') return Number(n.args);
  return fallback;
}

function literalSize(e: Node): Size | undefined {
  switch (e.op) {
    case 'value': {
      const v = e.args;
      if (typeof v === 'string') return fixed([...v].length);
      if (v instanceof Uint8Array) return fixed(v.length);
      if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'object' && v !== null)) return fixed(1);
      return undefined;
    }
    case 'list':
      return fixed((e.args as unknown[]).length);
    case 'map':
      return fixed((e.args as unknown[]).length);
  }
  return undefined;
}

function replaceSize(sz: Size, toReplace: Size, replaceWith: Size): Size {
  const count: Size = { min: 0, max: 0 };
  const retained: Size = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < U64_MAX ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = Math.ceil(sz.max / toReplace.min);
  }
  if (toReplace.max === 0) {
    count.min = sz.min < U64_MAX ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = Math.ceil(sz.min / toReplace.max);
  }
  return addSize({ min: mul(count.min, replaceWith.min), max: mul(count.max, replaceWith.max) }, retained);
}

// The CEL environment the API server compiles CRD rules in (k8s.io/apiserver/pkg/cel/environment/base.go
// at the compatibility version of Kubernetes 1.35): the standard library, optional types, cel-go's
// strings (v2), sets, lists (v3) and two-variable comprehension extensions, and Kubernetes' URL, regex,
// lists, quantity, IP, CIDR, format and semver libraries. cel-js brings the standard library; this file
// declares the rest (signatures only: rules are checked, never evaluated here).
import { Environment } from '@marcbachmann/cel-js';

const notEvaluated = (): never => {
  throw new Error('opgen only type-checks CEL rules');
};

/** Functions cel-js offers that the API server's environment does not: a rule using one is refused there. */
export const NOT_IN_KUBERNETES = new Map<string, string>([
  ['bind', 'cel.bind is not in the API server\'s CEL environment; repeat the expression or move it to a field'],
  ['json', 'bytes.json() is not in the API server\'s CEL environment'],
  ['hex', 'bytes.hex() is not in the API server\'s CEL environment'],
  ['base64', 'bytes.base64() is not in the API server\'s CEL environment'],
  ['at', 'bytes.at() is not in the API server\'s CEL environment'],
  ['string', 'bytes.string() is not in the API server\'s CEL environment; use string(b)'],
]);

// Opaque Kubernetes types and namespaces (a namespace is a constant whose methods are the namespaced functions).
class Opaque {}
const TYPES = ['URL', 'Quantity', 'IP', 'CIDR', 'Semver', 'Format'];
const NAMESPACES = { sets: 'SetsNamespace', lists: 'ListsNamespace', strings: 'StringsNamespace', format: 'FormatNamespace', ip: 'IPNamespace' } as const;

const FUNCTIONS = [
  // cel-go strings extension v2 (cel-js has the rest)
  'string.charAt(int): string',
  'string.replace(string, string): string',
  'string.replace(string, string, int): string',
  'string.format(list<dyn>): string',
  'StringsNamespace.quote(string): string',
  // regex
  'string.find(string): string',
  'string.findAll(string): list<string>',
  'string.findAll(string, int): list<string>',
  // Kubernetes lists + cel-go lists v3
  // isSorted/min/max for comparable element types, sum for summable ones (lists.go's templatedOverloads)
  ...['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'].flatMap((t) => [
    `list<${t}>.isSorted(): bool`,
    `list<${t}>.min(): ${t}`,
    `list<${t}>.max(): ${t}`,
  ]),
  ...['int', 'uint', 'double', 'google.protobuf.Duration'].map((t) => `list<${t}>.sum(): ${t}`),
  'list<A>.indexOf(A): int',
  'list<A>.lastIndexOf(A): int',
  'list<A>.slice(int, int): list<A>',
  'list<dyn>.flatten(): list<dyn>',
  'list<dyn>.flatten(int): list<dyn>',
  'list<A>.distinct(): list<A>',
  'list<A>.reverse(): list<A>',
  'list<A>.sort(): list<A>',
  'list<A>.first(): optional<A>',
  'list<A>.last(): optional<A>',
  'ListsNamespace.range(int): list<int>',
  // sets
  'SetsNamespace.contains(list<A>, list<A>): bool',
  'SetsNamespace.equivalent(list<A>, list<A>): bool',
  'SetsNamespace.intersects(list<A>, list<A>): bool',
  // URLs
  'url(string): URL',
  'isURL(string): bool',
  'URL.getScheme(): string',
  'URL.getHost(): string',
  'URL.getHostname(): string',
  'URL.getPort(): string',
  'URL.getEscapedPath(): string',
  'URL.getQuery(): map<string, list<string>>',
  // quantity
  'quantity(string): Quantity',
  'isQuantity(string): bool',
  'sign(Quantity): int', // a global function, unlike its siblings (quantity.go)
  'Quantity.isInteger(): bool',
  'Quantity.asInteger(): int',
  'Quantity.asApproximateFloat(): double',
  'Quantity.add(Quantity): Quantity',
  'Quantity.add(int): Quantity',
  'Quantity.sub(Quantity): Quantity',
  'Quantity.sub(int): Quantity',
  'Quantity.isGreaterThan(Quantity): bool',
  'Quantity.isLessThan(Quantity): bool',
  'Quantity.compareTo(Quantity): int',
  // IP and CIDR
  'ip(string): IP',
  'isIP(string): bool',
  'IPNamespace.isCanonical(string): bool',
  'IP.family(): int',
  'IP.isUnspecified(): bool',
  'IP.isLoopback(): bool',
  'IP.isLinkLocalMulticast(): bool',
  'IP.isLinkLocalUnicast(): bool',
  'IP.isGlobalUnicast(): bool',
  'string(IP): string',
  'cidr(string): CIDR',
  'isCIDR(string): bool',
  'CIDR.containsIP(IP): bool',
  'CIDR.containsIP(string): bool',
  'CIDR.containsCIDR(CIDR): bool',
  'CIDR.containsCIDR(string): bool',
  'CIDR.ip(): IP',
  'CIDR.masked(): CIDR',
  'CIDR.prefixLength(): int',
  'string(CIDR): string',
  // format
  'FormatNamespace.named(string): optional<Format>',
  'Format.validate(string): optional<list<string>>',
  ...['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime'].map(
    (n) => `FormatNamespace.${n}(): Format`,
  ),
  // semver
  'semver(string): Semver',
  'semver(string, bool): Semver',
  'isSemver(string): bool',
  'isSemver(string, bool): bool',
  'Semver.major(): int',
  'Semver.minor(): int',
  'Semver.patch(): int',
  'Semver.isGreaterThan(Semver): bool',
  'Semver.isLessThan(Semver): bool',
  'Semver.compareTo(Semver): int',
  // optional types
  'OptionalNamespace.ofNonZeroValue(A): optional<A>',
];

// cel-js's checker objects, as far as the macros below use them.
interface CelType {
  kind: string;
  name: string;
  keyType?: CelType;
  valueType?: CelType;
}
interface CheckContext {
  forkWithVariable(name: string, type: CelType): CheckContext;
}
interface Checker {
  check(node: AstNode, ctx: CheckContext): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node: AstNode): Error;
  registry: { getListType(t: CelType): CelType; getMapType(k: CelType, v: CelType): CelType; getOptionalType(t: CelType): CelType };
}
interface AstNode {
  op: string;
  args: unknown;
}
interface MacroCall {
  args: AstNode[];
  receiver: AstNode;
}

function identName(checker: Checker, node: AstNode): string {
  if (node.op !== 'id') throw checker.createError('invalid_macro_argument', 'argument must be a simple name', node);
  return node.args as string;
}

/** The types of (index|key, value) when iterating over `range`. */
function iterTypes(checker: Checker, range: CelType, node: AstNode): [CelType, CelType] {
  if (range.kind === 'list') return [checker.getType('int'), range.valueType!];
  if (range.kind === 'map') return [range.keyType!, range.valueType!];
  if (range.kind === 'dyn') return [checker.getType('dyn'), checker.getType('dyn')];
  throw checker.createError('invalid_range', `expression of type '${range.name}' cannot be range of a comprehension (must be list, map, or dynamic)`, node);
}

function expectBool(checker: Checker, node: AstNode, t: CelType): void {
  if (t.name !== 'bool' && t.kind !== 'dyn') throw checker.createError('no_matching_overload', `predicate must be bool, got '${t.name}'`, node);
}

type MacroTypeCheck = (checker: Checker, call: MacroCall, ctx: CheckContext) => CelType;

function macro(check: MacroTypeCheck) {
  return ({ args, receiver }: MacroCall) => ({ args, receiver, evaluate: notEvaluated, typeCheck: (checker: Checker, m: MacroCall, ctx: CheckContext) => check(checker, m, ctx) });
}

/** all/exists/existsOne/transform* with two iteration variables, and the one-variable macros cel-js lacks. */
const MACROS: Array<[string, number, MacroTypeCheck]> = [];
for (const name of ['all', 'exists', 'existsOne', 'exists_one']) {
  MACROS.push([
    name,
    3,
    (checker, { args, receiver }, ctx) => {
      const [kt, vt] = iterTypes(checker, checker.check(receiver, ctx), receiver);
      const inner = ctx.forkWithVariable(identName(checker, args[0]!), kt).forkWithVariable(identName(checker, args[1]!), vt);
      expectBool(checker, args[2]!, checker.check(args[2]!, inner));
      return checker.getType('bool');
    },
  ]);
}
MACROS.push([
  'existsOne',
  2,
  (checker, { args, receiver }, ctx) => {
    const range = checker.check(receiver, ctx);
    const [kt, vt] = iterTypes(checker, range, receiver);
    expectBool(checker, args[1]!, checker.check(args[1]!, ctx.forkWithVariable(identName(checker, args[0]!), range.kind === 'list' ? vt : kt)));
    return checker.getType('bool');
  },
]);
for (const name of ['transformList', 'transformMap', 'transformMapEntry']) {
  for (const argc of [3, 4]) {
    MACROS.push([
      name,
      argc,
      (checker, { args, receiver }, ctx) => {
        const [kt, vt] = iterTypes(checker, checker.check(receiver, ctx), receiver);
        const inner = ctx.forkWithVariable(identName(checker, args[0]!), kt).forkWithVariable(identName(checker, args[1]!), vt);
        if (argc === 4) expectBool(checker, args[2]!, checker.check(args[2]!, inner));
        const t = checker.check(args[argc - 1]!, inner);
        if (name === 'transformList') return checker.registry.getListType(t);
        if (name === 'transformMap') return checker.registry.getMapType(kt, t);
        if (t.kind !== 'map' && t.kind !== 'dyn') throw checker.createError('no_matching_overload', `transformMapEntry must produce a map, got '${t.name}'`, args[argc - 1]!);
        return t;
      },
    ]);
  }
}
MACROS.push([
  'sortBy',
  2,
  (checker, { args, receiver }, ctx) => {
    const range = checker.check(receiver, ctx);
    if (range.kind !== 'list' && range.kind !== 'dyn') throw checker.createError('no_matching_overload', `sortBy applies to lists, not '${range.name}'`, receiver);
    checker.check(args[1]!, ctx.forkWithVariable(identName(checker, args[0]!), range.valueType ?? checker.getType('dyn')));
    return range;
  },
]);
for (const name of ['optMap', 'optFlatMap']) {
  MACROS.push([
    name,
    2,
    (checker, { args, receiver }, ctx) => {
      const opt = checker.check(receiver, ctx);
      if (opt.kind !== 'optional' && opt.kind !== 'dyn') throw checker.createError('no_matching_overload', `${name} applies to optional values, not '${opt.name}'`, receiver);
      const t = checker.check(args[1]!, ctx.forkWithVariable(identName(checker, args[0]!), opt.valueType ?? checker.getType('dyn')));
      if (name === 'optMap') return checker.registry.getOptionalType(t);
      if (t.kind !== 'optional' && t.kind !== 'dyn') throw checker.createError('no_matching_overload', `optFlatMap must produce an optional value, got '${t.name}'`, args[1]!);
      return t;
    },
  ]);
}

/**
 * has(e.f) for any expression e, as CEL defines it (has(self.rules[0].path), has(f(x).y)): cel-js's macro
 * takes only a chain of names down to a variable, so the parsed call gets this check instead before the
 * tree is checked. The selection itself is checked as an access is (the field must exist on an object type).
 */
export function presenceTestsOnAnyOperand(ast: unknown): void {
  const seen = new Set<unknown>();
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object' || seen.has(n)) return;
    seen.add(n);
    if (Array.isArray(n)) return n.forEach(walk);
    const node = n as AstNode & { meta?: { macro?: { typeCheck?: unknown } } };
    if (typeof node.op !== 'string') return;
    const args = node.args as unknown[];
    if (node.op === 'call' && Array.isArray(args) && args[0] === 'has' && node.meta?.macro) {
      node.meta.macro.typeCheck = (checker: Checker, m: MacroCall, ctx: CheckContext): CelType => {
        const select = m.args[0]!;
        if (select.op !== '.' && select.op !== '.?') throw checker.createError('invalid_macro_argument', 'has() invalid argument: it takes a field selection, e.g. has(self.field)', select);
        checker.check(select, ctx);
        return checker.getType('bool');
      };
    }
    walk(node.args);
  };
  walk(ast);
}

let base: Environment | undefined;

/** The shared environment with every library declared; callers clone() it and add their types and variables. */
export function kubernetesEnvironment(): Environment {
  if (base) return base;
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
  for (const t of TYPES) env.registerType(t, { ctor: class extends Opaque {}, fields: {} } as never);
  for (const [constant, type] of Object.entries(NAMESPACES)) {
    const Ns = class extends Opaque {};
    env.registerType(type, Ns as never);
    env.registerConstant(constant, type, new Ns());
  }
  for (const sig of FUNCTIONS) env.registerFunction(sig, notEvaluated);
  for (const [name, argc, check] of MACROS) {
    for (const receiverType of name === 'sortBy' ? ['list<dyn>'] : name.startsWith('opt') ? ['optional<dyn>'] : ['list<dyn>', 'map<dyn, dyn>']) {
      env.registerFunction({
        name,
        receiverType,
        returnType: 'dyn',
        params: Array.from({ length: argc }, (_, i) => ({ name: `a${i}`, type: 'ast' })),
        handler: macro(check),
      } as never);
    }
  }
  for (const t of ['URL', 'Quantity', 'IP', 'CIDR', 'Semver', 'Format']) env.registerOperator(`${t} == ${t}`, notEvaluated);
  // cel-go's checker lets opaque types (optional, the Kubernetes types), timestamps and durations equal
  // null (checker/types.go isLegacyNullable): format.dns1123Label().validate(self) == null is a common rule.
  for (const t of ['optional<dyn>', 'google.protobuf.Timestamp', 'google.protobuf.Duration', ...TYPES]) env.registerOperator(`${t} == null`, notEvaluated);
  base = env;
  return env;
}

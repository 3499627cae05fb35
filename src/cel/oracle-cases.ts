// CEL rules the API server judges when a CRD is created: each case is the `spec` schema of a CRD
// (rules anywhere inside it). apiserver.test.ts applies every case to a real kube-apiserver and
// requires opgen's checker to refuse exactly the ones the API server refuses.
import type { JSONSchemaProps, ValidationRule } from '../common/json-schema.js';

export interface CelCase {
  name: string;
  spec: JSONSchemaProps;
  /** Rules at the CRD's root (the kind), besides those inside spec. */
  rootRules?: ValidationRule[];
}

const str = (maxLength?: number, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', ...(maxLength !== undefined ? { maxLength } : {}), ...extra });
const int: JSONSchemaProps = { type: 'integer' };
const list = (items: JSONSchemaProps, maxItems?: number, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'array', items, ...(maxItems !== undefined ? { maxItems } : {}), ...extra });
const map = (values: JSONSchemaProps, maxProperties?: number): JSONSchemaProps => ({ type: 'object', additionalProperties: values, ...(maxProperties !== undefined ? { maxProperties } : {}) });

/** A spec with the usual fields and `rules` on it. */
function spec(rules: Array<string | ValidationRule>, props: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      replicas: int,
      name: str(63),
      tags: list(str(20), 10),
      labels: map(str(63), 16),
      mem: str(20),
      addr: str(64),
      version: str(32),
      timeout: str(undefined, { format: 'duration' }),
      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      'my-field': str(10),
      ...props,
    },
    'x-kubernetes-validations': rules.map((r) => (typeof r === 'string' ? { rule: r } : r)),
  };
}

const regex36 = 'abcdefghijklmnopqrstuvwxyzabcdefghij';

export const celCases: CelCase[] = [
  // valid rules, one library each
  { name: 'compare', spec: spec(['self.replicas >= 0']) },
  { name: 'has-and-strings', spec: spec(['!has(self.name) || self.name.startsWith("a") && self.name.endsWith("z") && self.name.contains("m")']) },
  { name: 'list-macros', spec: spec(['self.tags.all(t, t.size() < 10) && self.tags.exists(t, t == "a") && self.tags.exists_one(t, t == "b")', 'self.tags.map(t, t + "x").filter(t, t.size() > 2).size() < 5']) },
  { name: 'transition', spec: spec(['self.replicas >= oldSelf.replicas']) },
  { name: 'optional-old-self', spec: spec([{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }]) },
  { name: 'quantity', spec: spec(['!isQuantity(self.mem) || quantity(self.mem).isLessThan(quantity("1Gi")) && sign(quantity(self.mem).add(1)) == 1']) },
  { name: 'ip-cidr', spec: spec(['!isCIDR(self.addr) || cidr(self.addr).containsIP("10.0.0.1") && cidr(self.addr).prefixLength() > 8', '!isIP(self.addr) || ip(self.addr).family() == 4 && ip.isCanonical(self.addr)']) },
  { name: 'url', spec: spec(['!isURL(self.addr) || url(self.addr).getScheme() == "https" && url(self.addr).getHost() != ""']) },
  { name: 'regex', spec: spec(['self.name.find("[0-9]+") != "" || self.name.findAll("[a-z]").size() > 1 || self.name.matches("^[a-z]+$")']) },
  { name: 'sets', spec: spec(['sets.contains(self.tags, ["a"]) || sets.intersects(self.tags, ["b"]) || sets.equivalent(self.tags, ["c"])']) },
  { name: 'format', spec: spec(['!format.dns1123Label().validate(self.name).hasValue() && format.named("uuid").hasValue()']) },
  { name: 'semver', spec: spec(['!isSemver(self.version) || semver(self.version).major() >= 1 && semver(self.version).isLessThan(semver("3.0.0"))']) },
  { name: 'two-variable-comprehensions', spec: spec(['self.labels.all(k, v, k.size() < 10 && v.size() < 10)', 'self.tags.exists(i, v, i == 0 && v == "a") || self.tags.existsOne(i, v, i == 1)', 'self.tags.transformList(i, v, v + "x").size() == self.tags.size()', 'self.labels.transformMap(k, v, v.size()).size() < 20']) },
  { name: 'optional-chaining', spec: spec(['self.?name.orValue("") != "x" && self.labels.?foo.orValue("") != "y" && self.tags[?0].orValue("") != "z"']) },
  { name: 'lists-extension', spec: spec(['self.tags.distinct().size() == self.tags.size() && self.tags.sort().size() < 11 && lists.range(3).size() == 3 && self.tags.slice(0, 0).size() == 0']) },
  { name: 'kubernetes-lists', spec: spec(['self.tags.isSorted() && self.tags.indexOf("a") < 5 && [1, 2].sum() == 3 && [1, 2].max() == 2']) },
  { name: 'quantity-sign-is-not-a-method', spec: spec(['quantity(self.mem).sign() == 1']) },
  { name: 'sum-of-strings', spec: spec(['self.tags.sum() == ""']) },
  { name: 'url-query', spec: spec(['!isURL(self.addr) || url(self.addr).getQuery().size() < 3']) },
  { name: 'message-expression', spec: spec([{ rule: 'self.replicas < 10', messageExpression: '"replicas is " + string(self.replicas)' }]) },
  { name: 'int-or-string', spec: spec(['type(self.port) == int ? self.port > 0 : self.port.matches("^[a-z]+$")']) },
  { name: 'duration-field', spec: spec(['self.timeout > duration("1s") && self.timeout < duration("1h30m")']) },
  { name: 'escaped-field-name', spec: spec(['self.my__dash__field != "a"']) },
  // A property named by a reserved word: __namespace__ always, namespace itself since compatibility 1.31.
  { name: 'keyword-field-escaped', spec: spec(['!has(self.meta.__namespace__) || self.meta.__namespace__ != "a"'], { meta: { type: 'object', properties: { namespace: str(63) } } }) },
  { name: 'keyword-field-bare', spec: spec(['!has(self.meta.namespace) || self.meta.namespace != "a"'], { meta: { type: 'object', properties: { namespace: str(63) } } }) },
  { name: 'keyword-field-missing', spec: spec(['self.meta.namespace != "a"'], { meta: { type: 'object', properties: { name: str(63) } } }) },
  { name: 'strings-extension', spec: spec(['self.name.lowerAscii().replace("a", "b").split(",").size() < 3 && self.name.charAt(0) != "x" && self.tags.join(",") != "" && self.name.substring(0, 1).upperAscii().trim() != "Q"']) },
  { name: 'indexing', spec: spec(['self.tags.size() == 0 || self.tags[0] != "x"', '!("a" in self.labels) || self.labels["a"] != "b"', 'self.name in self.tags || true']) },
  { name: 'root-metadata', spec: spec([]), rootRules: [{ rule: 'self.metadata.name.size() < 64 && self.spec.replicas >= 0' }] },
  { name: 'items-rule-bounded', spec: spec([], { items: list({ type: 'object', properties: { x: int }, 'x-kubernetes-validations': [{ rule: 'self.x > 0' }] }, 100) }) },
  { name: 'map-list-transition', spec: spec([], { items: list({ type: 'object', required: ['k'], properties: { k: str(10), x: int }, 'x-kubernetes-validations': [{ rule: 'self.x >= oldSelf.x' }] }, 10, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }) }) },
  { name: 'reason-and-field-path', spec: spec([{ rule: 'self.replicas > 0', reason: 'FieldValueForbidden', fieldPath: '.replicas' }]) },
  { name: 'optional-functions', spec: spec(['optional.of(1).hasValue() && optional.none().orValue(2) == 2 && self.?name.optMap(n, n.size()).orValue(0) < 64']) },
  { name: 'timestamps', spec: spec(['self.created > timestamp("2020-01-01T00:00:00Z") && self.created.getFullYear() > 2000'], { created: str(undefined, { format: 'date-time' }) }) },
  // has() on a field reached through an index or a call (real CRDs: has(self.rules[0].path))
  {
    name: 'has-through-index-and-call',
    spec: spec(['self.rules.size() == 0 || has(self.rules[0].path)', 'has(self.rules.filter(r, has(r.path))[0].path) || true', 'has(self.?obj.x) || true', 'has(self.labels.a) || true'], {
      rules: list({ type: 'object', properties: { path: str(10) } }, 5),
      obj: { type: 'object', properties: { x: int } },
    }),
  },
  // cel-go lets objects, optionals and timestamps equal null (gateway-api: format.dns1123Label().validate(self) == null)
  { name: 'null-comparisons', spec: spec(['format.dns1123Label().validate(self.name) == null', 'self.obj != null', 'self.created != null'], { obj: { type: 'object', properties: { x: int } }, created: str(undefined, { format: 'date-time' }) }) },
  { name: 'bounded-regex-over-list', spec: spec([`self.tags.all(t, t.matches("${regex36}"))`]) },

  // syntax errors
  { name: 'syntax-dangling-operator', spec: spec(['self.replicas >']) },
  { name: 'syntax-unclosed-call', spec: spec(['self.name.startsWith("a"']) },
  { name: 'syntax-double-dot', spec: spec(['self..name == "a"']) },
  { name: 'syntax-message-expression', spec: spec([{ rule: 'self.replicas > 0', messageExpression: '"x" +' }]) },

  // type errors
  { name: 'type-int-vs-string', spec: spec(['self.replicas > "a"']) },
  { name: 'type-no-such-field', spec: spec(['self.nosuchfield == 1']) },
  { name: 'type-has-no-such-field-through-index', spec: spec(['has(self.rules[0].nope)'], { rules: list({ type: 'object', properties: { path: str(10) } }, 5) }) },
  { name: 'type-has-not-a-selection', spec: spec(['has(self.rules[0])'], { rules: list({ type: 'object', properties: { path: str(10) } }, 5) }) },
  { name: 'type-string-equals-null', spec: spec(['self.name == null']) },
  { name: 'type-not-bool', spec: spec(['self.replicas']) },
  { name: 'type-unknown-function', spec: spec(['self.name.frobnicate()']) },
  { name: 'type-message-expression-not-string', spec: spec([{ rule: 'self.replicas > 0', messageExpression: 'self.replicas' }]) },
  { name: 'type-heterogeneous-list', spec: spec(['[1, "a"].size() > 0']) },
  { name: 'not-in-environment-bind', spec: spec(['cel.bind(x, self.name, x == "a")']) },
  { name: 'not-in-environment-strings-v3', spec: spec(['self.name.reverse() == "a"']) },
  { name: 'not-in-environment-math', spec: spec(['math.greatest(1, 2) == 2']) },
  { name: 'not-in-environment-bytes-hex', spec: spec(['self.data.hex() == ""'], { data: str(10, { format: 'byte' }) }) },
  { name: 'invalid-regex-literal', spec: spec(['self.name.matches("[")']) },
  // RE2 flag groups anywhere in the pattern (gateway-api's GRPCRoute writes `^(?i)…`).
  { name: 'regex-re2-flag-groups', spec: spec(['self.name.matches("^(?i)[a-z]+$") || self.name.matches("(?i:ab)c") || self.name.matches("(?s).*(?-s)x")']) },
  { name: 'invalid-duration-literal', spec: spec(['self.timeout > duration("1x")']) },
  { name: 'old-self-optional-without-flag', spec: spec(['oldSelf.hasValue()']) },

  // over budget
  { name: 'cost-unbounded-list-regex', spec: spec([`self.items.all(t, t.matches("${regex36}"))`], { items: list(str()) }) },
  { name: 'cost-nested-loops', spec: spec(['self.items.all(a, self.items.all(b, a == b))'], { items: list(str(5)) }) },
  { name: 'cost-items-rule-unbounded-list', spec: spec([], { items: list({ type: 'object', properties: { s: str() }, 'x-kubernetes-validations': [{ rule: `self.s.matches("${regex36}")` }] }) }) },
  { name: 'cost-per-crd-total', spec: spec(Array.from({ length: 12 }, (_, i) => `self.big.matches("${regex36.repeat(3).slice(0, 110)}${i}")`), { big: str() }) },
  { name: 'cost-unbounded-string-contains', spec: spec(['self.big.contains(self.big)'], { big: str() }) },

  // transition rules on uncorrelatable parts of the schema
  { name: 'old-self-atomic-list-items', spec: spec([], { items: list({ type: 'object', properties: { x: int }, 'x-kubernetes-validations': [{ rule: 'self.x >= oldSelf.x' }] }, 10) }) },
  { name: 'old-self-set-list-items', spec: spec([], { items: list({ type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] }, 10, { 'x-kubernetes-list-type': 'set' }) }) },
  { name: 'old-self-atomic-object-is-correlatable', spec: spec([], { obj: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { x: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] } } } }) },
  { name: 'optional-old-self-unused', spec: spec([{ rule: 'self.replicas > 0', optionalOldSelf: true }]) },

  // rule text problems
  { name: 'multi-line-without-message', spec: spec(['self.replicas > 0 &&\nself.replicas < 10']) },
  { name: 'multi-line-with-message', spec: spec([{ rule: 'self.replicas > 0 &&\nself.replicas < 10', message: 'between 1 and 9' }]) },
];

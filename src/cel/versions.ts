// Which Kubernetes release first accepts each part of the CEL environment in a new CRD. Facts from
// k8s.io/apiserver/pkg/cel/environment/base.go (each library's IntroducedVersion) and cel-go's ext
// libraries (which functions each library version adds). An API server compiles the rules of a CRD being
// created or changed in the environment of its compatibility version, the release before its own
// (DefaultCompatibilityVersion = MinCompatibilityVersion = binary - 1): a library introduced at 1.N is
// accepted by API servers of 1.N+1 and later.
import { formatKubeMinor, kubeOlder, type KubeMinor } from '../common/kube-version.js';
import type { Node } from './cost.js';
import { RESERVED } from './decl-type.js';

interface Library {
  /** What the error names. */
  name: string;
  /** base.go's IntroducedVersion (minor of 1.x). */
  introduced: number;
}

const OPTIONAL: Library = { name: 'optional types', introduced: 28 };
const QUANTITY: Library = { name: 'the Kubernetes quantity library', introduced: 28 };
const STRINGS_V2: Library = { name: 'cel-go strings extension v2', introduced: 29 };
const SETS: Library = { name: 'the sets extension', introduced: 29 };
const IP_CIDR: Library = { name: 'the Kubernetes IP and CIDR libraries', introduced: 30 };
const FORMAT: Library = { name: 'the Kubernetes format library', introduced: 31 };
const TWO_VAR: Library = { name: 'two-variable comprehensions', introduced: 32 };
const SEMVER: Library = { name: 'the Kubernetes semver library', introduced: 33 };
const LISTS_V3: Library = { name: 'cel-go lists extension v3', introduced: 34 };
/** environment.go: SetRecognizeKeywordAsFieldName from compatibility version 1.31 (`self.namespace`, not only `self.__namespace__`). */
const KEYWORD_FIELDS: Library = { name: 'reading a field named by a CEL reserved word without its __escape__', introduced: 31 };
/** Every library above, oldest first (opgen doctor names those a server is too old for). */
export const CEL_LIBRARIES: readonly Readonly<Library>[] = [OPTIONAL, QUANTITY, STRINGS_V2, SETS, IP_CIDR, FORMAT, TWO_VAR, SEMVER, LISTS_V3];

/** Global functions. */
const CALLS: Record<string, Library> = {
  quantity: QUANTITY,
  isQuantity: QUANTITY,
  sign: QUANTITY,
  ip: IP_CIDR,
  isIP: IP_CIDR,
  cidr: IP_CIDR,
  isCIDR: IP_CIDR,
  semver: SEMVER,
  isSemver: SEMVER,
};

/** Functions called on a namespace constant: `sets.contains(...)`. */
const NAMESPACES: Record<string, Library> = { sets: SETS, format: FORMAT, ip: IP_CIDR, lists: LISTS_V3, strings: STRINGS_V2, optional: OPTIONAL };

/** Methods by receiver type (as cel-js names it). */
const BY_RECEIVER_TYPE: Record<string, Library> = { Quantity: QUANTITY, Semver: SEMVER, IP: IP_CIDR, CIDR: IP_CIDR, Format: FORMAT };

/** Methods on strings and lists added after the base environment. */
const STRING_METHODS: Record<string, Library> = { format: STRINGS_V2 };
const LIST_METHODS: Record<string, Library> = {
  join: STRINGS_V2,
  slice: LISTS_V3,
  flatten: LISTS_V3,
  distinct: LISTS_V3,
  reverse: LISTS_V3,
  sort: LISTS_V3,
  sortBy: LISTS_V3,
  first: OPTIONAL,
  last: OPTIONAL,
};
const OPTIONAL_METHODS = new Set(['hasValue', 'value', 'orValue', 'or', 'optMap', 'optFlatMap']);
const TWO_VAR_MACROS = new Set(['transformList', 'transformMap', 'transformMapEntry']);

export interface TooNew {
  /** What the rule uses, as written: `isSemver()`, `.?`. */
  what: string;
  library: Library;
  /** The first Kubernetes release whose API server accepts it in a new CRD. */
  acceptedFrom: KubeMinor;
  offset?: number;
}

/** The first part of a checked expression that API servers older than `floor` refuse, if any. */
export function tooNewFor(ast: Node, floor: KubeMinor): TooNew | undefined {
  // The leftmost one in the text: what a reader meets first.
  let found: TooNew | undefined;
  const use = (what: string, library: Library, node: { start?: number }): void => {
    const acceptedFrom = { major: 1, minor: library.introduced + 1 };
    if (!kubeOlder(floor, acceptedFrom)) return;
    if (found && (found.offset ?? 0) < (node.start ?? 0)) return; // a tie: the inner one (visited later)
    found = { what, library, acceptedFrom, ...(node.start !== undefined ? { offset: node.start } : {}) };
  };
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const node = n as Node & { start?: number; checkedType?: { name?: string; kind?: string } };
    if (typeof node.op !== 'string') return;
    if (node.op === '.?' || node.op === '[?]') use(node.op === '.?' ? '.?' : '[?]', OPTIONAL, node);
    if (node.op === '.' || node.op === '.?') {
      const [receiver, field] = node.args as [Node & { checkedType?: { name?: string } }, string];
      if (RESERVED.has(field) && receiver.checkedType?.name?.startsWith('Object')) use(`.${field}`, KEYWORD_FIELDS, node);
    }
    if (node.op === 'call') {
      const [name] = node.args as [string, Node[]];
      const lib = CALLS[name];
      if (lib) use(`${name}()`, lib, node);
    }
    if (node.op === 'rcall') {
      const [name, receiver, args] = node.args as [string, Node & { checkedType?: { name?: string; kind?: string } }, Node[]];
      const type = receiver.checkedType;
      const typeName = type?.name ?? '';
      const namespace = receiver.op === 'id' ? NAMESPACES[receiver.args as string] : undefined;
      if (namespace) use(`${receiver.args as string}.${name}()`, namespace, node);
      else if (BY_RECEIVER_TYPE[typeName]) use(`${typeName}.${name}()`, BY_RECEIVER_TYPE[typeName]!, node);
      else if (typeName.startsWith('optional<') && OPTIONAL_METHODS.has(name)) use(`.${name}()`, OPTIONAL, node);
      else if (type?.kind === 'list' && LIST_METHODS[name]) use(`.${name}()`, LIST_METHODS[name]!, node);
      else if (typeName === 'string' && STRING_METHODS[name]) use(`.${name}()`, STRING_METHODS[name]!, node);
      else if (TWO_VAR_MACROS.has(name) || (['all', 'exists', 'existsOne', 'exists_one'].includes(name) && args.length === 3)) use(`.${name}() with two variables`, TWO_VAR, node);
    }
    walk(node.args);
  };
  walk(ast);
  return found;
}

/** The error's text for a part of a rule too new for the project's oldest Kubernetes (`floorSource` says where that comes from). */
export function tooNewMessage(t: TooNew, floorSource: string): { message: string; fix: string } {
  const from = formatKubeMinor(t.acceptedFrom);
  return {
    message: `${t.what} needs Kubernetes ${from} (${t.library.name} entered the API server's CEL environment in ${formatKubeMinor({ major: 1, minor: t.library.introduced })}; new CRDs may use it from ${from}), but ${floorSource}`,
    fix: `raise minKubeVersion in PROJECT to "${from}", or write the rule ${t.library === KEYWORD_FIELDS ? `with .__${t.what.slice(1)}__ (every version reads that)` : `without ${t.what}`}`,
  };
}

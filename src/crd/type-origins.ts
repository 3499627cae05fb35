// Where a type named in a field may come from, and what each origin means for the schema: TypeScript
// globals (Array, Record; Date and utility types refused), @opgen/runtime's known types, the Kubernetes
// models of @kubernetes/client-node, and declarations in the user's own files. Nothing else is read
// (node_modules never is), so each refusal names the origins that work.
import { closest, KUBERNETES_TYPES_MODULE, type LoadedFile, type SourceSet, type TopLevelDeclaration } from '../markers/index.js';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { firstRefusalInside } from './apiserver-refusals.js';
import { knownTypeSchema, KNOWN_TYPE_NAMES } from './known-types.js';

export const RUNTIME_MODULE = '@opgen/runtime';
export const KUBERNETES_MODULE = '@kubernetes/client-node';

export type KubernetesModels = typeof import('./kubernetes/index.js');

export type TypeOrigin =
  /** A TypeScript global the builder expands: Array<T>, ReadonlyArray<T>, Record<K, V>. */
  | { kind: 'builtin'; name: 'Array' | 'ReadonlyArray' | 'Record' }
  /** A schema known without reading source (@opgen/runtime, Kubernetes models); `named` as a named Go type. */
  | { kind: 'schema'; schema: JSONSchemaProps; named: boolean }
  /** A declaration in the user's files. */
  | { kind: 'declaration'; file: LoadedFile; decl: TopLevelDeclaration }
  | { kind: 'refused'; message: string; fix: string };

const UTILITY_TYPES = ['Partial', 'Required', 'Pick', 'Omit', 'Readonly', 'Exclude', 'Extract', 'NonNullable', 'Map', 'Set', 'Promise'];

/** Where `name` (written in `file`, with `argCount` type arguments) comes from. */
export function typeOrigin(sources: SourceSet, kubernetes: KubernetesModels | undefined, file: LoadedFile, name: string, argCount: number): TypeOrigin {
  const refused = (message: string, fix: string): TypeOrigin => ({ kind: 'refused', message, fix });
  // A name neither declared nor imported in this file is a TypeScript global (Array, Record, Date, ...).
  const globalName = file.declarations.has(name) || file.imports.has(name.split('.')[0]!) ? undefined : name;
  if (globalName === 'Array' || globalName === 'ReadonlyArray') {
    if (argCount === 1) return { kind: 'builtin', name: globalName };
  }
  if (globalName === 'Record' && argCount === 2) return { kind: 'builtin', name: globalName };
  if (globalName === 'Date') return refused('Date is not JSON', `use Time from ${RUNTIME_MODULE} (an RFC 3339 string)`);
  if (globalName && UTILITY_TYPES.includes(name)) return refused(`${name}<...> cannot be expressed in a CRD schema`, 'write the interface out');
  const r = sources.resolve(file, name);
  if (r.kind === 'unresolved') return refused(`cannot resolve type ${name}: ${r.reason}`, 'import it with a relative path or from @opgen/runtime');
  if (r.kind === 'module') {
    if (r.module === RUNTIME_MODULE) {
      const known = knownTypeSchema(r.name);
      // int/int32/int64 are Go builtins: a field's markers apply to them directly, not as a layer.
      if (known) return { kind: 'schema', schema: known, named: !['int', 'int32', 'int64'].includes(r.name) };
      // The runtime's other data types (LabelSelector, OwnerReference, the built-in kinds it types loosely)
      // stand for a Go type of k8s.io/api or apimachinery: its full schema, as controller-gen parses it.
      const model = RUNTIME_MODELS[r.name] ?? `V1${r.name}`;
      const schema = kubernetes && /^[A-Z]/.test(r.name) ? kubernetes.kubernetesModelSchema(model) : undefined;
      if (schema) return modelOrigin(r.name, model, schema);
      const instead = INSTEAD[r.name];
      if (instead) return refused(`${r.name} from ${RUNTIME_MODULE} cannot be a field's type`, instead);
      return refused(`${r.name} from ${RUNTIME_MODULE} has no CRD schema`, `use one of ${KNOWN_TYPE_NAMES.join(', ')}, or a type of ${KUBERNETES_TYPES_MODULE}`);
    }
    if (r.module === KUBERNETES_MODULE) {
      if (!kubernetes) return refused(`${r.name} from ${KUBERNETES_MODULE} needs the Kubernetes model schemas, which this opgen build lacks`, 'reinstall opgen');
      let schema: JSONSchemaProps | undefined;
      try {
        schema = kubernetes.kubernetesModelSchema(r.name);
      } catch (err) {
        return refused(`${r.name} needs the Kubernetes model schemas, which could not be read: ${(err as Error).message.split('\n')[0]}`, 'reinstall opgen');
      }
      if (!schema) {
        const near = closest(r.name, kubernetes.kubernetesModelNames());
        return refused(`${r.name} is not a Kubernetes model opgen knows`, near ? `did you mean ${near}?` : 'use a V1... model from @kubernetes/client-node');
      }
      return modelOrigin(r.name, r.name, schema);
    }
    const groupVersion = r.module.startsWith(`${KUBERNETES_TYPES_MODULE}/`)
      ? /^([a-z]+?)(v\d+(?:(?:alpha|beta)\d+)?)$/.exec(r.module.slice(KUBERNETES_TYPES_MODULE.length + 1))
      : null;
    if (groupVersion) return runtimeKubernetesOrigin(kubernetes, groupVersion[1]!, groupVersion[2]!, r.name);
    return refused(`cannot read type ${r.name} from ${r.module}`, `opgen reads only relative imports, ${RUNTIME_MODULE}, ${KUBERNETES_TYPES_MODULE} and ${KUBERNETES_MODULE}; declare the type in your API folder`);
  }
  if (r.kind === 'constant') return refused(`${name} is a value, not a type`, `for its values as an enum write (typeof ${name})[number]`);
  if (argCount > 0) return refused(`generic type ${name}<...> cannot be expressed in a CRD schema`, 'write a concrete interface');
  return { kind: 'declaration', file: r.file, decl: r.decl };
}

/** @opgen/runtime's loosely typed built-ins whose client-node model is not `V1<Name>`. */
const RUNTIME_MODELS: Record<string, string> = { Event: 'CoreV1Event' };

/** @opgen/runtime exports that are no data type of their own, and what to write instead. */
const INSTEAD: Record<string, string> = {
  KubeObject: `use RawExtension from ${RUNTIME_MODULE} for an embedded object of any kind, or the kind's own type (appsv1.Deployment)`,
  KubeList: `use an array of the kind's type (corev1.Pod[]), or RawExtension from ${RUNTIME_MODULE}`,
};

/** Group-versions of @opgen/runtime/kubernetes whose types are no CRD field (no model is shipped for them). */
const REFUSED_GROUPS: Record<string, { why: string; instead: string }> = {
  // JSONSchemaProps nests itself: controller-gen writes an untyped `items: {}` the API server refuses.
  apiextensions: { why: 'opgen ships no schemas for apiextensions.k8s.io types (their JSONSchemaProps nests itself, which no CRD schema can express)', instead: `use JSON from ${RUNTIME_MODULE} (any JSON, kept as written), or declare the fields you keep` },
  admission: { why: 'admission.k8s.io types are webhook messages, never stored', instead: `use RawExtension from ${RUNTIME_MODULE}, or declare the fields you keep` },
};

/** Per model: where inside it the API server would refuse its schema (null: nowhere). */
const modelRefusals = new Map<string, { path: string; message: string } | null>();

/**
 * A shipped model's schema, unless the API server refuses something inside it: controller-gen writes such a
 * CRD (corev1.ServiceAccount's secrets are a map list keyed by an optional name) and `kubectl apply` fails.
 */
function modelOrigin(written: string, model: string, schema: JSONSchemaProps): TypeOrigin {
  let refusal = modelRefusals.get(model);
  if (refusal === undefined) {
    refusal = firstRefusalInside(schema) ?? null;
    modelRefusals.set(model, refusal);
  }
  if (!refusal) return { kind: 'schema', schema, named: true };
  return {
    kind: 'refused',
    message: `${written} cannot be a field's type: the API server refuses its schema in a CRD (at ${refusal.path}: ${refusal.message})`,
    fix: `declare the fields you keep in an interface of your own, or use RawExtension from ${RUNTIME_MODULE}`,
  };
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * `corev1.Container` from @opgen/runtime/kubernetes (the Go code's names): the same schema as the
 * @kubernetes/client-node model of that Go type, `V1Container` — or `CoreV1Event` where client-node
 * prefixes the group because two groups have the kind. metav1's types are @opgen/runtime's known types.
 */
function runtimeKubernetesOrigin(kubernetes: KubernetesModels | undefined, group: string, version: string, name: string): TypeOrigin {
  const at = `${group}${version}.${name}`;
  if (group === 'meta') {
    const known = knownTypeSchema(name);
    if (known) return { kind: 'schema', schema: known, named: true };
  }
  const refusal = REFUSED_GROUPS[group];
  if (refusal) return { kind: 'refused', message: `${at} cannot be a field's type: ${refusal.why}`, fix: refusal.instead };
  if (!kubernetes) return { kind: 'refused', message: `${at} needs the Kubernetes model schemas, which this opgen build lacks`, fix: 'reinstall opgen' };
  const candidates = [`${capitalize(group)}${capitalize(version)}${name}`, `${capitalize(version)}${name}`];
  for (const model of candidates) {
    const schema = kubernetes.kubernetesModelSchema(model);
    if (schema) return modelOrigin(at, model, schema);
  }
  return { kind: 'refused', message: `${at} is not a Kubernetes type opgen knows`, fix: `use a type of ${group}${version} in ${KUBERNETES_TYPES_MODULE}, or a V1... model from ${KUBERNETES_MODULE}` };
}

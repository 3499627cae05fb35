// The built-in kinds of the Kubernetes release opgen targets: group, version, kind, plural, scope, and the
// @opgen/runtime/kubernetes module typing it. One data file (data/kubernetes-builtins.json, written with
// the typed kinds by tools/kubernetes-types/generate.ts from the release's OpenAPI) answers every
// question the CLI asks about built-ins, so its tables cannot disagree with each other or with the API server.
import { readFileSync } from 'node:fs';

export interface BuiltinKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The @opgen/runtime/kubernetes module that types it (`appsv1`), when one does. */
  module?: string;
}

const dataFile = new URL('../../data/kubernetes-builtins.json', import.meta.url);
let loaded: BuiltinKind[] | undefined;

/** Every kind the release serves (read once, on first use). */
export function builtinKinds(): readonly BuiltinKind[] {
  loaded ??= (JSON.parse(readFileSync(dataFile, 'utf8')) as { kinds: BuiltinKind[] }).kinds;
  return loaded;
}

/** Whether `resource` (a plural, optionally with /subresource) of API `group` ("" or "core" for core) is a cluster-scoped built-in. */
export function clusterScopedResource(group: string, resource: string): boolean {
  const apiGroup = group === 'core' ? '' : group;
  const plural = resource.split('/')[0]!;
  return builtinKinds().some((k) => k.group === apiGroup && k.plural === plural && !k.namespaced);
}

/** Whether built-in `kind` of API `group` is namespaced (true for kinds the release does not serve). */
export function builtinNamespaced(group: string, kind: string): boolean {
  return !builtinKinds().some((k) => k.group === group && k.kind === kind && !k.namespaced);
}

/** The versions of API `group` that @opgen/runtime/kubernetes types, oldest module name first. */
export function typedVersions(group: string): string[] {
  return [...new Set(builtinKinds().filter((k) => k.group === group && k.module).map((k) => k.version))].sort();
}

// Markers other Kubernetes generators define. opgen's generators ignore them, as controller-gen's CRD, RBAC
// and webhook generators do, but they are known names, not typos: a project ported from Go, or one whose
// API is also fed to those generators, carries them. Each list is what the tool itself defines:
// - controller-gen v0.23.0: `controller-gen object -w` and `controller-gen applyconfiguration -w`;
// - k8s.io/code-generator v0.37.0: client-gen's supportedTags (cmd/client-gen/generators/util/tags.go),
//   +groupGoName (client-gen, applyconfiguration-gen, informer-gen), the activation tags of
//   pkg/apidefinitions/spec.go, the tags deepcopy-gen, conversion-gen, defaulter-gen,
//   prerelease-lifecycle-gen and go-to-protobuf read, and validation-gen's tag validators (test-only ones
//   left out);
// - kube-openapi's openapi-gen: +k8s:openapi-gen, +k8s:openapi-model-package and its +k8s:validation: prefix.
// opgen's own definitions win: +k8s:enum, +k8s:listType … are read as the CRD generator's markers.

const TOOLS: ReadonlyArray<readonly [tool: string, names: readonly string[]]> = [
  ['deepcopy-gen (and controller-gen object)', ['k8s:deepcopy-gen', 'k8s:deepcopy-gen:interfaces']],
  ['controller-gen applyconfiguration', ['kubebuilder:ac:generate', 'kubebuilder:ac:output:package']],
  ['client-gen', ['genclient', 'genclient:nonNamespaced', 'genclient:noVerbs', 'genclient:onlyVerbs', 'genclient:skipVerbs', 'genclient:noStatus', 'genclient:readonly', 'genclient:method', 'groupGoName', 'k8s:client-gen']],
  ['deepcopy-gen', ['k8s:deepcopy-gen:nonpointer-interfaces']],
  ['conversion-gen', ['k8s:conversion-gen', 'k8s:conversion-gen:explicit-from', 'k8s:conversion-gen-external-types', 'k8s:conversion-fn']],
  ['defaulter-gen', ['k8s:defaulter-gen', 'k8s:defaulter-gen-input']],
  ['prerelease-lifecycle-gen', ['k8s:prerelease-lifecycle-gen', 'k8s:prerelease-lifecycle-gen:introduced', 'k8s:prerelease-lifecycle-gen:deprecated', 'k8s:prerelease-lifecycle-gen:removed', 'k8s:prerelease-lifecycle-gen:replacement']],
  ['register-gen', ['k8s:register-gen']],
  ['applyconfiguration-gen', ['k8s:applyconfiguration-gen']],
  ['informer-gen', ['k8s:informer-gen']],
  ['lister-gen', ['k8s:lister-gen']],
  ['go-to-protobuf', ['k8s:protobuf-gen', 'protobuf', 'protobuf.as', 'protobuf.embed', 'protobuf.nullable']],
  ['openapi-gen', ['k8s:openapi-gen', 'k8s:openapi-model-package']],
  [
    'validation-gen',
    [
      'k8s:validation-gen', 'k8s:validation-gen-input', 'k8s:validation-gen-nolint', 'k8s:validation-gen-scheme-registry',
      'k8s:alpha', 'k8s:beta', 'k8s:customUnique', 'k8s:customValidation', 'k8s:dependentForbidden', 'k8s:dependentRequired',
      'k8s:eachKey', 'k8s:eachVal', 'k8s:enumExclude', 'k8s:forbidden', 'k8s:format', 'k8s:ifDisabled', 'k8s:ifEnabled', 'k8s:ifMode',
      'k8s:isSubresource', 'k8s:item', 'k8s:maxBytes', 'k8s:maxLength', 'k8s:maxProperties', 'k8s:minItems', 'k8s:minLength',
      'k8s:minProperties', 'k8s:modeDiscriminator', 'k8s:monotonic', 'k8s:neq', 'k8s:opaqueType', 'k8s:subfield',
      'k8s:supportsSubresource', 'k8s:unionDiscriminator', 'k8s:unionMember', 'k8s:unique', 'k8s:update', 'k8s:zeroOrOneOfMember',
    ],
  ],
];

/** Families whose members are named by what follows the prefix (`+protobuf.options.(gogoproto.x)=false`). */
const PREFIXES: ReadonlyArray<readonly [tool: string, prefix: string]> = [
  ['go-to-protobuf', 'protobuf.options.'],
  ['openapi-gen', 'k8s:validation:'],
];

const BY_NAME = new Map(TOOLS.flatMap(([tool, names]) => names.map((n) => [n, tool] as const)));

/** The generator that defines the marker named `name` (without `+` and arguments), if another one does. */
export function foreignMarkerTool(name: string): string | undefined {
  return BY_NAME.get(name) ?? PREFIXES.find(([, prefix]) => name.startsWith(prefix))?.[0];
}

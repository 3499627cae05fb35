// The CRD of a kind an Ansible role serves, as operator-sdk's ansible plugin writes it: spec and status
// take any fields (x-kubernetes-preserve-unknown-fields: the role decides what they mean), status is a
// subresource (the runtime's conditions go there). A schema of your own replaces it with `--force`-free
// edits: `opgen generate` leaves the file alone.
export interface AnsibleCrdInput {
  /** The qualified group (group.domain). */
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced?: boolean;
}

export function ansibleCrd(k: AnsibleCrdInput): Record<string, unknown> {
  const open = (description: string) => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${k.group}` },
    spec: {
      group: k.group,
      names: { kind: k.kind, listKind: `${k.kind}List`, plural: k.plural, singular: k.kind.toLowerCase() },
      scope: k.namespaced === false ? 'Cluster' : 'Namespaced',
      versions: [{
        name: k.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            description: `${k.kind} is the Schema for the ${k.plural} API`,
            type: 'object',
            properties: {
              apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
              kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
              metadata: { type: 'object' },
              spec: open(`Spec defines the desired state of ${k.kind}: its fields reach the role snake_cased`),
              status: open(`Status defines the observed state of ${k.kind}: conditions written by the runtime (manageStatus) or the role`),
            },
          },
        },
      }],
    },
  };
}

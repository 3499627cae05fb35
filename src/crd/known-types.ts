// Types from @opgen/runtime with controller-gen's exact schemas (its known-type overrides, and the
// k8s.io/apimachinery types it parses from source). Recognised by import name; node_modules is never read.
import { cloneJson, type JSONSchemaProps } from '../common/json-schema.js';

const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const CONDITION: JSONSchemaProps = {
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  properties: {
    lastTransitionTime: {
      description:
        'lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
      format: 'date-time',
      type: 'string',
    },
    message: {
      description: 'message is a human readable message indicating details about the transition.\nThis may be an empty string.',
      maxLength: 32768,
      type: 'string',
    },
    observedGeneration: {
      description:
        'observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.',
      format: 'int64',
      minimum: 0,
      type: 'integer',
    },
    reason: {
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      type: 'string',
    },
    status: {
      description: 'status of the condition, one of True, False, Unknown.',
      enum: ['True', 'False', 'Unknown'],
      type: 'string',
    },
    type: {
      description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      type: 'string',
    },
  },
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  type: 'object',
};

const KNOWN: Record<string, JSONSchemaProps> = {
  int: { type: 'integer' },
  int32: { format: 'int32', type: 'integer' },
  int64: { format: 'int64', type: 'integer' },
  ObjectMeta: { type: 'object' },
  Time: { format: 'date-time', type: 'string' },
  MicroTime: { format: 'date-time', type: 'string' },
  Duration: { type: 'string' },
  Quantity: { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN, 'x-kubernetes-int-or-string': true },
  IntOrString: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
  RawExtension: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  JSON: { 'x-kubernetes-preserve-unknown-fields': true },
  Condition: CONDITION,
};

/** The schema of a known @opgen/runtime type (a fresh copy), or undefined. */
export function knownTypeSchema(name: string): JSONSchemaProps | undefined {
  const s = KNOWN[name];
  return s ? cloneJson(s) : undefined;
}

export const KNOWN_TYPE_NAMES = Object.keys(KNOWN);

/** The fixed TypeMeta properties of every kind, as controller-gen emits them. */
export const TYPE_META: Record<'apiVersion' | 'kind', JSONSchemaProps> = {
  apiVersion: {
    description:
      'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  },
  kind: {
    description:
      'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  },
};

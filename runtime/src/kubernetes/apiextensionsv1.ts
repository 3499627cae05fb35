// apiextensions.k8s.io/v1 types of Kubernetes v1.36.3, generated from its OpenAPI by
// tools/kubernetes-types/generate.ts (npm run data:kubernetes-types). Do not edit.
import { groupVersion } from '../api/kind.js';
import type { ListMeta, ObjectMeta, Time } from '../api/types.js';

const gv = groupVersion('apiextensions.k8s.io', 'v1');

export const CustomResourceDefinition = gv.kind<CustomResourceDefinition>('CustomResourceDefinition', { plural: 'customresourcedefinitions', namespaced: false });

/** CustomResourceColumnDefinition specifies a column for server side printing. */
export interface CustomResourceColumnDefinition {
  /** description is a human readable description of this column. */
  description?: string;
  /** format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details. */
  format?: string;
  /** jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column. */
  jsonPath: string;
  /** name is a human readable name for the column. */
  name: string;
  /** priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0. */
  priority?: number;
  /** type is an OpenAPI type definition for this column. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details. */
  type: string;
}

/** CustomResourceConversion describes how to convert different versions of a CR. */
export interface CustomResourceConversion {
  /** strategy specifies how custom resources are converted between versions. Allowed values are: - `"None"`: The converter only change the apiVersion and would not touch any other field in the custom resource. - `"Webhook"`: API Server will call to an external webhook to do the conversion. Additional information is needed for this option. This requires spec.preserveUnknownFields to be false, and … */
  strategy: string;
  /** webhook describes how to call the conversion webhook. Required when `strategy` is set to `"Webhook"`. */
  webhook?: WebhookConversion;
}

/** CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>. */
export interface CustomResourceDefinition {
  /** APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources */
  apiVersion?: string;
  /** Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds */
  kind?: string;
  /** Standard object's metadata More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata */
  metadata?: ObjectMeta;
  /** spec describes how the user wants the resources to appear */
  spec: CustomResourceDefinitionSpec;
  /** status indicates the actual state of the CustomResourceDefinition */
  status?: CustomResourceDefinitionStatus;
}

/** CustomResourceDefinitionCondition contains details for the current condition of this pod. */
export interface CustomResourceDefinitionCondition {
  /** lastTransitionTime last time the condition transitioned from one status to another. */
  lastTransitionTime?: Time;
  /** message is a human-readable message indicating details about last transition. */
  message?: string;
  /** observedGeneration represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date with respect to the current state of the instance. */
  observedGeneration?: number;
  /** reason is a unique, one-word, CamelCase reason for the condition's last transition. */
  reason?: string;
  /** status is the status of the condition. Can be True, False, Unknown. */
  status: string;
  /** type is the type of the condition. Types include Established, NamesAccepted and Terminating. */
  type: string;
}

/** CustomResourceDefinitionList is a list of CustomResourceDefinition objects. */
export interface CustomResourceDefinitionList {
  /** APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources */
  apiVersion?: string;
  /** items list individual CustomResourceDefinition objects */
  items: CustomResourceDefinition[];
  /** Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds */
  kind?: string;
  /** Standard object's metadata More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata */
  metadata?: ListMeta;
}

/** CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition */
export interface CustomResourceDefinitionNames {
  /** categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`. */
  categories?: string[];
  /** kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls. */
  kind: string;
  /** listKind is the serialized kind of the list for this resource. Defaults to "`kind`List". */
  listKind?: string;
  /** plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase. */
  plural: string;
  /** shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase. */
  shortNames?: string[];
  /** singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`. */
  singular?: string;
}

/** CustomResourceDefinitionSpec describes how a user wants their resource to appear */
export interface CustomResourceDefinitionSpec {
  /** conversion defines conversion settings for the CRD. */
  conversion?: CustomResourceConversion;
  /** group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). */
  group: string;
  /** names specify the resource and kind names for the custom resource. */
  names: CustomResourceDefinitionNames;
  /** preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields inside metadata are always preserved. This field is deprecated in favor of setting `x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`. See … */
  preserveUnknownFields?: boolean;
  /** scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`. */
  scope: string;
  /** versions is the list of all API versions of the defined custom resource. Version names are used to compute the order in which served versions are listed in API discovery. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then … */
  versions: CustomResourceDefinitionVersion[];
}

/** CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition */
export interface CustomResourceDefinitionStatus {
  /** acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec. */
  acceptedNames?: CustomResourceDefinitionNames;
  /** conditions indicate state for particular aspects of a CustomResourceDefinition */
  conditions?: CustomResourceDefinitionCondition[];
  /** The generation observed by the CRD controller. */
  observedGeneration?: number;
  /** storedVersions lists all versions of CustomResources that were ever persisted. Tracking these versions allows a migration path for stored versions in etcd. The field is mutable so a migration controller can finish a migration to another version (ensuring no old objects are left in storage), and then remove the rest of the versions from this list. Versions may not be removed from `spec.versions` … */
  storedVersions?: string[];
}

/** CustomResourceDefinitionVersion describes a version for CRD. */
export interface CustomResourceDefinitionVersion {
  /** additionalPrinterColumns specifies additional columns returned in Table output. See https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables for details. If no columns are specified, a single column displaying the age of the custom resource is used. */
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  /** deprecated indicates this version of the custom resource API is deprecated. When set to true, API requests to this version receive a warning header in the server response. Defaults to false. */
  deprecated?: boolean;
  /** deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true. The default warning indicates this version is deprecated and recommends use of the newest served version of equal or greater stability, if one exists. */
  deprecationWarning?: string;
  /** name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true. */
  name: string;
  /** schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource. */
  schema?: CustomResourceValidation;
  /** selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed. See https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors */
  selectableFields?: SelectableField[];
  /** served is a flag enabling/disabling this version from being served via REST APIs */
  served: boolean;
  /** storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true. */
  storage: boolean;
  /** subresources specify what subresources this version of the defined custom resource have. */
  subresources?: CustomResourceSubresources;
}

/** CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources. */
export interface CustomResourceSubresourceScale {
  /** labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status` or `.spec`. Must be set to work with HorizontalPodAutoscaler. The field pointed by this JSON path must be a string field (not a complex selector struct) which contains a serialized label selector … */
  labelSelectorPath?: string;
  /** specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.spec`. If there is no value under the given path in the custom resource, the `/scale` subresource will return an error on GET. */
  specReplicasPath: string;
  /** statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status`. If there is no value under the given path in the custom resource, the `status.replicas` value in the `/scale` subresource will default to 0. */
  statusReplicasPath: string;
}

/** CustomResourceSubresourceStatus defines how to serve the status subresource for CustomResources. Status is represented by the `.status` JSON path inside of a CustomResource. When set, * exposes a /status subresource for the custom resource * PUT requests to the /status subresource take a custom resource object, and ignore changes to anything except the status stanza * PUT/POST/PATCH requests to … */
export type CustomResourceSubresourceStatus = Record<string, unknown>;

/** CustomResourceSubresources defines the status and scale subresources for CustomResources. */
export interface CustomResourceSubresources {
  /** scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object. */
  scale?: CustomResourceSubresourceScale;
  /** status indicates the custom resource should serve a `/status` subresource. When enabled: 1. requests to the custom resource primary endpoint ignore changes to the `status` stanza of the object. 2. requests to the custom resource `/status` subresource ignore changes to anything other than the `status` stanza of the object. */
  status?: CustomResourceSubresourceStatus;
}

/** CustomResourceValidation is a list of validation methods for CustomResources. */
export interface CustomResourceValidation {
  /** openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning. */
  openAPIV3Schema?: JSONSchemaProps;
}

/** ExternalDocumentation allows referencing an external resource for extended documentation. */
export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/). */
export interface JSONSchemaProps {
  $ref?: string;
  $schema?: string;
  additionalItems?: JSONSchemaProps | boolean;
  additionalProperties?: JSONSchemaProps | boolean;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  /** default is a default value for undefined object fields. Defaulting is a beta feature under the CustomResourceDefaulting feature gate. Defaulting requires spec.preserveUnknownFields to be false. */
  default?: unknown;
  definitions?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  description?: string;
  enum?: unknown[];
  example?: unknown;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  externalDocs?: ExternalDocumentation;
  /** format is an OpenAPI v3 format string. Unknown formats are ignored. The following formats are validated: */
  format?: string;
  id?: string;
  items?: JSONSchemaProps | JSONSchemaProps[];
  maxItems?: number;
  maxLength?: number;
  maxProperties?: number;
  maximum?: number;
  minItems?: number;
  minLength?: number;
  minProperties?: number;
  minimum?: number;
  multipleOf?: number;
  not?: JSONSchemaProps;
  nullable?: boolean;
  oneOf?: JSONSchemaProps[];
  pattern?: string;
  patternProperties?: Record<string, JSONSchemaProps>;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  title?: string;
  type?: string;
  uniqueItems?: boolean;
  /** x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta. The type must be object. It is allowed to further restrict the embedded object. kind, apiVersion and metadata are validated automatically. x-kubernetes-preserve-unknown-fields is allowed to be true, but does not have to be if the object is fully specified (up to kind, … */
  'x-kubernetes-embedded-resource'?: boolean;
  /** x-kubernetes-int-or-string specifies that this value is either an integer or a string. If this is true, an empty type is allowed and type as child of anyOf is permitted if following one of the following patterns: */
  'x-kubernetes-int-or-string'?: boolean;
  /** x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map. */
  'x-kubernetes-list-map-keys'?: string[];
  /** x-kubernetes-list-type annotates an array to further describe its topology. This extension must only be used on lists and may have 3 possible values: */
  'x-kubernetes-list-type'?: string;
  /** x-kubernetes-map-type annotates an object to further describe its topology. This extension must only be used when type is object and may have 2 possible values: */
  'x-kubernetes-map-type'?: string;
  /** x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema. This affects fields recursively, but switches back to normal pruning behaviour if nested properties or additionalProperties are specified in the schema. This can either be true or undefined. False is forbidden. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** x-kubernetes-validations describes a list of validation rules written in the CEL expression language. */
  'x-kubernetes-validations'?: ValidationRule[];
}

/** SelectableField specifies the JSON path of a field that may be used with field selectors. */
export interface SelectableField {
  /** jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. Only JSON paths without the array notation are allowed. Must point to a field of type string, boolean or integer. Types with enum values and strings with formats are allowed. If jsonPath refers to absent field in a resource, the jsonPath evaluates to an empty string. Must not point to … */
  jsonPath: string;
}

/** ServiceReference holds a reference to Service.legacy.k8s.io */
export interface ServiceReference {
  /** name is the name of the service. Required */
  name: string;
  /** namespace is the namespace of the service. Required */
  namespace: string;
  /** path is an optional URL path at which the webhook will be contacted. */
  path?: string;
  /** port is an optional service port at which the webhook will be contacted. `port` should be a valid port number (1-65535, inclusive). Defaults to 443 for backward compatibility. */
  port?: number;
}

/** ValidationRule describes a validation rule written in the CEL expression language. */
export interface ValidationRule {
  /** fieldPath represents the field path returned when the validation fails. It must be a relative JSON path (i.e. with array notation) scoped to the location of this x-kubernetes-validations extension in the schema and refer to an existing field. e.g. when validation checks if a specific attribute `foo` under a map `testMap`, the fieldPath could be set to `.testMap.foo` If the validation checks two … */
  fieldPath?: string;
  /** Message represents the message displayed when validation fails. The message is required if the Rule contains line breaks. The message must not contain line breaks. If unset, the message is "failed rule: {Rule}". e.g. "must be a URL with the host matching spec.host" */
  message?: string;
  /** MessageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails. Since messageExpression is used as a failure message, it must evaluate to a string. If both message and messageExpression are present on a rule, then messageExpression will be used if validation fails. If messageExpression results in a runtime error, the runtime error … */
  messageExpression?: string;
  /** optionalOldSelf is used to opt a transition rule into evaluation even when the object is first created, or if the old object is missing the value. */
  optionalOldSelf?: boolean;
  /** reason provides a machine-readable validation failure reason that is returned to the caller when a request fails this validation rule. The HTTP status code returned to the caller will match the reason of the reason of the first failed validation rule. The currently supported reasons are: "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate". If not set, default to … */
  reason?: string;
  /** Rule represents the expression which will be evaluated by CEL. ref: https://github.com/google/cel-spec The Rule is scoped to the location of the x-kubernetes-validations extension in the schema. The `self` variable in the CEL expression is bound to the scoped value. Example: - Rule scoped to the root of a resource with a status subresource: {"rule": "self.status.actual <= self.spec.maxDesired"} */
  rule: string;
}

/** WebhookClientConfig contains the information to make a TLS connection with the webhook. */
export interface WebhookClientConfig {
  /** caBundle is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used. */
  caBundle?: string;
  /** service is a reference to the service for this webhook. Either service or url must be specified. */
  service?: ServiceReference;
  /** url gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified. */
  url?: string;
}

/** WebhookConversion describes how to call a conversion webhook */
export interface WebhookConversion {
  /** clientConfig is the instructions for how to call the webhook if strategy is `Webhook`. */
  clientConfig?: WebhookClientConfig;
  /** conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects. The API server will use the first version in the list which it supports. If none of the versions specified in this list are supported by API server, conversion will fail for the custom resource. If a persisted Webhook configuration specifies allowed versions and does not include any versions … */
  conversionReviewVersions: string[];
}

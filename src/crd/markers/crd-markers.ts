// Markers read by CRD assembly rather than applied to a schema: folder (package) markers, kind markers
// and the required/optional markers.
import { argTypes, type MarkerDefinition } from '../../markers/index.js';

export const CRD_MARKERS: MarkerDefinition[] = [
  { name: 'groupName', targets: ['package'], shape: 'value', value: argTypes.string, help: 'the API group of the kinds in this folder' },
  { name: 'versionName', targets: ['package'], shape: 'value', value: argTypes.string, help: 'the API version of this folder (default: the folder name)' },
  { name: 'kubebuilder:skip', targets: ['package'], shape: 'flag', help: 'generate no CRDs from this folder' },
  { name: 'kubebuilder:object:generate', targets: ['package', 'type'], shape: 'value', value: argTypes.bool, help: 'accepted for compatibility with Go projects; no effect in opgen' },
  {
    name: 'kubebuilder:validation:Optional',
    targets: ['package', 'field'],
    shape: 'flag',
    help: 'on a folder: fields are optional unless marked required; on a field: optional (wins over everything)',
  },
  {
    name: 'kubebuilder:validation:Required',
    targets: ['package', 'field'],
    shape: 'flag',
    help: 'on a field: required (wins over +optional); on a folder: the default, accepted for compatibility',
  },
  { name: 'optional', targets: ['field'], shape: 'flag', help: 'the field is optional' },
  { name: 'required', targets: ['field'], shape: 'flag', help: 'the field is required' },
  { name: 'k8s:optional', targets: ['field'], shape: 'flag', help: 'alias of +optional' },
  {
    name: 'kubebuilder:validation:Schemaless',
    targets: ['field'],
    shape: 'flag',
    help: 'emit no schema for the field type: only its description and markers',
  },
  { name: 'kubebuilder:object:root', targets: ['type'], shape: 'value', value: argTypes.bool, help: 'this interface is a kind (with a metadata property) or a kind list' },
  {
    name: 'kubebuilder:resource',
    targets: ['type'],
    shape: 'struct',
    args: [
      { name: 'path', type: argTypes.string, optional: true, help: 'plural resource name (default: flect plural of the kind, lower case)' },
      { name: 'singular', type: argTypes.string, optional: true, help: 'singular name (default: the kind, lower case)' },
      { name: 'shortName', type: argTypes.stringList, optional: true, help: 'short names for kubectl' },
      { name: 'categories', type: argTypes.stringList, optional: true, help: 'categories such as all' },
      { name: 'scope', type: argTypes.string, optional: true, help: 'Namespaced (default) or Cluster' },
    ],
    help: 'resource names and scope of the kind',
  },
  { name: 'kubebuilder:subresource:status', targets: ['type'], shape: 'flag', help: 'enable the status subresource' },
  {
    name: 'kubebuilder:subresource:scale',
    targets: ['type'],
    shape: 'struct',
    args: [
      { name: 'specpath', type: argTypes.string, help: 'JSON path of the desired replicas, under .spec' },
      { name: 'statuspath', type: argTypes.string, help: 'JSON path of the observed replicas, under .status' },
      { name: 'selectorpath', type: argTypes.string, optional: true, help: 'JSON path of the label selector string, under .spec or .status' },
    ],
    help: 'enable the scale subresource',
  },
  {
    name: 'kubebuilder:printcolumn',
    targets: ['type'],
    shape: 'struct',
    args: [
      { name: 'name', type: argTypes.string, help: 'column header' },
      { name: 'type', type: argTypes.string, help: 'integer, number, string, boolean or date' },
      { name: 'JSONPath', type: argTypes.string, help: 'JSON path of the value, e.g. .status.phase' },
      { name: 'description', type: argTypes.string, optional: true, help: 'column description' },
      { name: 'format', type: argTypes.string, optional: true, help: 'OpenAPI format of the value' },
      { name: 'priority', type: argTypes.int, optional: true, help: '0 shows in the standard view; higher only with -o wide' },
    ],
    help: 'an extra column for kubectl get',
  },
  { name: 'kubebuilder:storageversion', targets: ['type'], shape: 'flag', help: 'this version is the one stored in etcd' },
  { name: 'kubebuilder:unservedversion', targets: ['type'], shape: 'flag', help: 'this version is not served' },
  {
    name: 'kubebuilder:deprecatedversion',
    targets: ['type'],
    shape: 'struct',
    args: [{ name: 'warning', type: argTypes.string, optional: true, help: 'warning returned to clients' }],
    help: 'this version is deprecated',
  },
  { name: 'kubebuilder:skipversion', targets: ['type'], shape: 'flag', help: 'leave this version out of the CRD' },
  {
    name: 'kubebuilder:selectablefield',
    targets: ['type'],
    shape: 'struct',
    args: [{ name: 'JSONPath', type: argTypes.string, help: 'JSON path of a field usable in field selectors' }],
    help: 'a field selectors may use',
  },
  {
    name: 'kubebuilder:metadata',
    targets: ['type'],
    shape: 'struct',
    args: [
      { name: 'annotations', type: argTypes.stringList, optional: true, help: 'CRD annotations as "key=value"' },
      { name: 'labels', type: argTypes.stringList, optional: true, help: 'CRD labels as "key=value"' },
    ],
    help: 'annotations and labels on the CustomResourceDefinition itself',
  },
];

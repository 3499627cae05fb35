// CRD generation: TypeScript declarations with markers → CustomResourceDefinition objects.
export { generateCrds, VERSION_ANNOTATION, type ApiFolder, type GeneratedCrd } from './generate.js';
export type { JSONSchemaProps, ValidationRule } from '../common/json-schema.js';
export { registerCrdMarkers, type SchemaMarker } from './markers/index.js';

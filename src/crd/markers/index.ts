import type { Registry } from '../../markers/index.js';
import { CRD_MARKERS } from './crd-markers.js';
import { schemaMarkers, type SchemaMarker } from './schema-markers.js';

export { MarkerApplyError, type ApplyContext, type SchemaMarker } from './schema-markers.js';

/** Defines every CRD marker in `registry`, and returns the schema markers by name for the builder. */
export function registerCrdMarkers(registry: Registry): Map<string, SchemaMarker> {
  for (const def of CRD_MARKERS) registry.define(def);
  const byName = new Map<string, SchemaMarker>();
  for (const m of schemaMarkers()) {
    registry.define(m.definition);
    byName.set(m.definition.name, m);
  }
  return byName;
}

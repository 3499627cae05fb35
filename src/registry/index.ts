// The one registry every generator and `opgen markers` share, built explicitly. Below both `generate`
// (src/gen) and the OLM commands (src/olm), which read markers with it; so are the OLM markers' definitions.
import { registerCrdMarkers, type SchemaMarker } from '../crd/markers/index.js';
import { createRegistry, type Registry } from '../markers/index.js';
import { registerOlmMarkers } from './olm-markers.js';
import { registerRbacMarkers } from '../rbac/markers.js';
import { registerWebhookMarkers } from '../webhook/markers.js';

export interface GeneratorRegistry {
  registry: Registry;
  schemaMarkers: Map<string, SchemaMarker>;
}

export function createGeneratorRegistry(): GeneratorRegistry {
  const registry = createRegistry();
  const schemaMarkers = registerCrdMarkers(registry);
  registerRbacMarkers(registry);
  registerWebhookMarkers(registry);
  registerOlmMarkers(registry);
  // Insertion points the scaffolder writes into sources (and kubebuilder's, for projects ported from Go).
  for (const name of ['opgen:scaffold', 'kubebuilder:scaffold']) {
    registry.define({ name, targets: ['package', 'type', 'field'], shape: 'anchor', help: 'an insertion point for `opgen create`; generators ignore it' });
  }
  return { registry, schemaMarkers };
}

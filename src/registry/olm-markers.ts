// operator-sdk's CSV markers: `+operator-sdk:csv:customresourcedefinitions` on a kind (its owned-CRD
// entry) and on Spec/Status fields (its spec and status descriptors). The grammar checks their arguments
// like every other marker; descriptors.ts checks what the grammar cannot (type=spec|status, resources).
import { argTypes, type MarkerDefinition, type Registry } from '../markers/index.js';

export const CSV_CRD_MARKER: MarkerDefinition = {
  name: 'operator-sdk:csv:customresourcedefinitions',
  targets: ['type', 'field'],
  shape: 'struct',
  args: [
    { name: 'type', type: argTypes.string, optional: true, help: 'on a field: spec or status (which descriptor list it joins; default: the root it is under)' },
    { name: 'displayName', type: argTypes.string, optional: true, help: 'the name OLM consoles show for the kind or field' },
    { name: 'resources', type: { kind: 'list', of: argTypes.stringList }, optional: true, help: 'on a kind: objects it creates, {{Kind,version,name}, …}' },
    { name: 'xDescriptors', type: argTypes.stringList, optional: true, help: 'on a field: UI hints such as urn:alm:descriptor:com.tectonic.ui:podCount' },
    { name: 'order', type: argTypes.int, optional: true, help: 'position of the descriptor (lower first)' },
  ],
  help: 'describes a kind or field for the ClusterServiceVersion (owned CRD entry, spec/status descriptors)',
};

export function registerOlmMarkers(registry: Registry): void {
  registry.define(CSV_CRD_MARKER);
}

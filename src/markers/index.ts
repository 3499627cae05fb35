export { JsonRef, argTypes, describeArgType, type ArgSpec, type ArgType, type MarkerDefinition, type Target } from './definition.js';
export { MarkerSyntaxError, closest, editDistance, parseArguments, splitMarker } from './grammar.js';
export { Registry, createRegistry } from './registry.js';
export { collectMarkers, type CollectedMarker, type DeclarationInfo, type FileMarkers, type IgnoredMarker } from './collector.js';
export { foreignMarkerTool } from './foreign.js';
export { formatCatalog } from './catalog.js';
export { SourceSet, positionOf, KUBERNETES_TYPES_MODULE, type LoadedFile, type ParsedFile, type Resolved, type TopLevelDeclaration } from './source-set.js';

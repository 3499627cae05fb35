// `opgen generate` and `opgen markers` (loaded lazily by the CLI), and the manifest serialiser.
export { generateCommand, markersCommand, type GenerateOptions, type GenerateTarget } from './command.js';
export { createGeneratorRegistry, type GeneratorRegistry } from './registry.js';
export { toYaml } from './yaml.js';

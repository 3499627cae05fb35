// Moved to src/common/yaml.ts (src/olm writes YAML too); kept for the modules importing it here.
export * from '../common/yaml.js';

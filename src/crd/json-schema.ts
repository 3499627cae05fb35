// Moved to src/common/json-schema.ts (src/cel judges schemas too, and src/crd uses src/cel); kept for the modules importing it here.
export * from '../common/json-schema.js';

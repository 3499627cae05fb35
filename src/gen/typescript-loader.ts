// Moved to src/common/typescript-loader.ts (src/olm reads sources too); kept for the modules importing it here.
export * from '../common/typescript-loader.js';

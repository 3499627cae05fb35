// Moved to src/common/paths.ts (src/olm expands --paths too); kept for the modules importing it here.
export * from '../common/paths.js';

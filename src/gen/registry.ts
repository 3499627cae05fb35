// Moved to src/registry (below src/gen and src/olm, which both use it); kept for the modules importing it here.
export * from '../registry/index.js';

// The definitions live in src/registry/olm-markers.ts, below src/gen and src/olm (the generator registry needs them).
export * from '../registry/olm-markers.js';

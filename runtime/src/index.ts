// @opgen/runtime: the library every opgen-scaffolded operator imports.
export * from './api/types.js';
export * from './api/kind.js';

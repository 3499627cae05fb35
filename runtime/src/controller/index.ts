export { Controller, type ControllerOptions } from './controller.js';
export { Builder, type ControllerBuilder, type ControllerHost, type WatchOptions } from './builder.js';
export { predicates, type Predicate } from './predicates.js';

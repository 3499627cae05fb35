export { Controller, type ControllerOptions, type ControllerDefaults, type EnqueueOptions, type Source, type OptionalSource, type SourceHandlers, type AddEvent } from './controller.js';
export { Builder, type ControllerBuilder, type ControllerBuilderOptions, type ControllerHost, type WatchOptions, type DependentWatchOptions } from './builder.js';
export { predicates, type Predicate } from './predicates.js';

export { Cache, createCache, stripManagedFields, NamespaceNotWatchedError, type CacheOptions } from './cache.js';
export { Informer, type EventHandlers, type InformerOptions } from './informer.js';
export { type Store, objectKey, type StoreListOptions, type IndexFunc } from './store.js';
export { parseLabelSelector, LabelSelectorError, type LabelMatcher } from './label-selector.js';

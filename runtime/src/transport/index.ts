// The HTTP conversation with the API server that the client, the cache's reflectors and leader
// election share: authentication from a kubeconfig, pooled keep-alive agents, proxies, REST paths,
// deadlines and cancellation, and the ApiError a non-2xx answer becomes.
export { Transport, type Query, type RequestOptions, type TransportOptions, type WatchEvent } from './transport.js';
export { ApiError, toApiError, type Status } from './api-error.js';
export { describe, formatLabelSelector, resourcePath } from './paths.js';
export type { RequestObserver, RequestObservation } from './observer.js';

// Loading a kubeconfig without @kubernetes/client-node. client-node's KubeConfig module statically
// imports its whole generated API (dist/gen, ~65 MB of RSS once loaded) only for makeApiClient, and
// the runtime needs two of its methods. loadKubeConfig() reads the same files in the same order and
// returns an object with those two methods; client-node's own KubeConfig still fits the type, so code
// that passes one keeps working.
export { loadKubeConfig, type KubeConfigLike, type LoadKubeConfigOptions } from './internal/load.js';
export { KubeConfigError } from './internal/errors.js';
export { defaultServiceAccountDir } from './internal/load.js';
// For the transport: when an exec credential expires, and how to drop one the server rejected.
export { credentialExpiresAt, credentialRejected, type ExpiringOptions, type RejectableCredentials } from './internal/exec-credential.js';
// For the transport too: which proxies it can use (the loader checks a cluster's proxy-url with it).
export { unsupportedProxy } from './internal/proxy-support.js';

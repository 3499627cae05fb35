export { createManager, type Manager, type ManagerOptions, type Runnable } from './manager.js';
export { setupSignalHandler } from './signals.js';
export { ShutdownTimeoutError } from './errors.js';
export { watchNamespaces, WATCH_NAMESPACE } from './watch-namespace.js';
export { RUNTIME_KUBERNETES_VERSION, SKEW_OLDER, SKEW_NEWER, versionSkew, versionSkewWarning, type ServerVersion, type VersionSkew } from './version-skew.js';

export { createManager, type Manager, type ManagerOptions, type Runnable } from './manager.js';
export { setupSignalHandler } from './signals.js';
export { watchNamespaces, WATCH_NAMESPACE } from './watch-namespace.js';

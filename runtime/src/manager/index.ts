export { createManager, type Manager, type ManagerOptions, type Runnable } from './manager.js';
export { setupSignalHandler } from './signals.js';

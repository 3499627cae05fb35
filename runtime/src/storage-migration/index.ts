export { migrateStorage, type StorageMigrationCheckpoint, type StorageMigrationOptions, type StorageMigrationProgress, type StorageMigrationResult } from './migrate.js';
export type { PassCounts } from './rewrite.js';
export { servesStorageVersionMigration, StorageVersionMigration, STORAGE_MIGRATION_GROUP_VERSION } from './server.js';
export { storageMigration, type StorageMigrationRunnableOptions } from './runnable.js';

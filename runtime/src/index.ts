// @opgen/runtime: the library every opgen-scaffolded operator imports.
export * from './api/types.js';
export * from './api/kind.js';
export * from './api/builtins.js';
export * from './client/index.js';
export { Cache, createCache, stripManagedFields, NamespaceNotWatchedError, Informer, type Store, objectKey, parseLabelSelector, LabelSelectorError, type EventHandlers, type LabelMatcher, type CacheOptions, type IndexFunc } from './cache/index.js';
export * from './workqueue/index.js';
export { Result, terminal, isTerminal, TerminalError, ReconciliationTimeoutError, type Request, type Reconciler, type ReconcileContext } from './reconcile/index.js';
export * from './controller/index.js';
export * from './manager/index.js';
export * from './helpers/index.js';
export { createEventRecorder, type EventRecorder, type SeriesEventRecorder, type SeriesOptions, type EventType, EventsV1Event, EVENTS_RBAC_MARKER } from './events/index.js';
export { conditionTransitions, maxReasonsPerType, type ConditionTransition } from './events/conditions.js';
export { createLogger, silentLogger, type Logger, type LogFields, type LogLevel, type LoggerOptions } from './log/index.js';
export { RuntimeMetrics, MetricsRegistry, startMetricsServer, type MetricsServerOptions, type MetricsSource, type WorkqueueMetrics, type ControllerMetrics, type WebhookMetrics, type ReconcileResult } from './metrics/index.js';
export {
  Tracer, tracerFromEnv, tracingConfig, activeSpan, traceparent, parseTraceparent, OtlpHttpExporter, ConsoleSpanExporter, SpanKind,
  type Span, type SpanContext, type SpanExporter, type FinishedSpan, type Attributes, type TracingConfig, type OtlpConfig,
} from './tracing/index.js';
export { startProbeServer, type Check, type ProbeChecks } from './healthz/index.js';
export { LeaderElector, LeaderElectionLostError, type LeaderElectionConfig } from './leaderelection/index.js';
export { loadKubeConfig, KubeConfigError, type KubeConfigLike, type LoadKubeConfigOptions } from './kubeconfig/index.js';
export * from './webhook/index.js';
export { HashRing, fnv1a64, shardSelector, ringLabel, viewAnnotation, shardLabelOf, drainLabelOf, type HashRange, type ShardingOptions, type OwnershipEvent } from './sharding/index.js';
export { ShardFencedError } from './sharding/errors.js';
export { migrateStorage, storageMigration, type StorageMigrationRunnableOptions, servesStorageVersionMigration, StorageVersionMigration, STORAGE_MIGRATION_GROUP_VERSION, type StorageMigrationCheckpoint, type StorageMigrationOptions, type StorageMigrationProgress, type StorageMigrationResult, type PassCounts } from './storage-migration/index.js';

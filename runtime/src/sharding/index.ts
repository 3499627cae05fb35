export { Sharding, ringLabel, viewAnnotation, shardLabelOf, drainLabelOf, type ShardingOptions, type OwnershipEvent } from './sharding.js';
export { HashRing, fnv1a64, shardSelector, hex64, type HashRange } from './ring.js';

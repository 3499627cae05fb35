export { Sharding, ringLabel, viewAnnotation, type ShardingOptions } from './sharding.js';
export { HashRing, fnv1a64, shardSelector, hex64, type HashRange } from './ring.js';

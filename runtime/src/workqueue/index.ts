export { WorkQueue, LowPriority, type WorkQueueOptions, type AddOptions, type QueuedItem } from './queue.js';
export {
  type RateLimiter,
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.js';

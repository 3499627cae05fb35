export { WorkQueue, type WorkQueueOptions } from './queue.js';
export {
  type RateLimiter,
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.js';

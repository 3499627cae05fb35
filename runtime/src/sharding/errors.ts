/**
 * This replica may no longer act as a ring member: its shard Lease was not renewed within
 * renewDeadline, or someone else changed it. Nothing more is sent; the manager's start() rejects with it.
 */
export class ShardFencedError extends Error {
  override readonly name = 'ShardFencedError';

  constructor(
    /** namespace/name of the shard Lease. */
    readonly lease: string,
    message: string,
  ) {
    super(message);
  }
}

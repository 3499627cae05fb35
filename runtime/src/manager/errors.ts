/**
 * The manager's start() rejects with it when in-flight work did not finish within the graceful
 * shutdown period; that work was abandoned, and the lease is kept until it expires.
 */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`runnables did not finish within the ${timeoutMs} ms graceful shutdown period`);
  }
}

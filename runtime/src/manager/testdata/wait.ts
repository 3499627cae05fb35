// Test support (excluded from the build).

/** Polls cond every 20 ms until it holds; answers how long that took, or fails naming what it waited for. */
export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - start;
}

/** How long `p` took to reject, and with what. */
export async function rejection(p: Promise<unknown>): Promise<{ ms: number; err: Error }> {
  const started = performance.now();
  try {
    await p;
  } catch (err) {
    return { ms: performance.now() - started, err: err as Error };
  }
  throw new Error('expected a rejection');
}

// One listener on a long-lived signal, however many children hang off it. Node warns once an
// AbortSignal has more than ten 'abort' listeners (MaxListenersExceededWarning); an informer per kind,
// a reflector per namespace and a request per list would each add one to the manager's signal, so the
// listener count would grow with the watches. A fan-out listens once and aborts its children.

export class AbortFanout {
  private readonly children = new Set<AbortController>();
  private readonly onAbort = () => {
    for (const c of this.children) c.abort(this.parent.reason);
    this.children.clear();
  };

  constructor(private readonly parent: AbortSignal) {
    if (!parent.aborted) parent.addEventListener('abort', this.onAbort, { once: true });
  }

  /** A signal that aborts with the parent, or on its own with abort(); release() forgets it (no abort). */
  child(): { signal: AbortSignal; abort(reason?: unknown): void; release(): void } {
    const c = new AbortController();
    if (this.parent.aborted) c.abort(this.parent.reason);
    else this.children.add(c);
    return {
      signal: c.signal,
      abort: (reason) => {
        this.children.delete(c);
        c.abort(reason);
      },
      release: () => void this.children.delete(c),
    };
  }

  /** Stops listening to the parent (its children no longer follow it). */
  close(): void {
    this.parent.removeEventListener('abort', this.onAbort);
    this.children.clear();
  }
}

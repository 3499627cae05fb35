// The transport's hook around each HTTP request. The transport defines it and its users (metrics and
// tracing, see tracing/instrument.ts) implement it, so the transport depends on none of them.

/** What the transport reports around one HTTP request. */
export interface RequestObserver {
  /** A request is about to be sent; the headers returned go with it. */
  begin(method: string, url: URL): RequestObservation | undefined;
}

export interface RequestObservation {
  headers?: Record<string, string>;
  /** The answer's HTTP status, or undefined when none came (connection error, abort). */
  end(status: number | undefined): void;
}

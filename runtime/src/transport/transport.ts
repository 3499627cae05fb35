// HTTP plumbing shared by the client, the cache's reflectors and leader election. KubeConfig does the
// authentication and TLS set-up; requests go through node's http(s) with one keep-alive agent (a new
// one when the client certificate or CA changes, see agent-pool.ts) so a busy controller reuses
// connections instead of opening one per call. Every request can be cancelled (its own signal, the
// transport's stop signal) and every non-watch request has a deadline, so no caller waits forever on
// a server or connection that stopped answering.
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { credentialExpiresAt, credentialRejected, type ExpiringOptions, type KubeConfigLike, type RejectableCredentials } from '../kubeconfig/index.js';
import { setTimer, type Timer } from '../internal/timers/index.js';
import { toApiError } from './api-error.js';
import { AgentPool } from './agent-pool.js';
import { proxyForCluster } from './proxy-env.js';
import type { RequestObserver } from './observer.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Aborts the request (and the reading of its answer). */
  signal?: AbortSignal;
  /** Deadline for this request, from sending to the last byte of the answer; default the transport's. 0: none. */
  timeoutMs?: number;
  /** Prefix for the error message, e.g. `get memcacheds default/a`. */
  context?: string;
}

export interface TransportOptions {
  /**
   * Deadline of every non-watch request that names none, from sending to the last byte of the
   * answer; default 60 s (defaultRequestTimeoutMs). 0 disables it. Watches have none: the server ends
   * them (timeoutSeconds) and the reflector's safety net covers a silent connection.
   */
  requestTimeoutMs?: number;
  /** Once aborted, requests in flight are aborted and new ones fail at once (the manager's hard stop). */
  stop?: AbortSignal;
  /** Told about every request (rest_client_requests_total, client spans, traceparent). */
  observer?: RequestObserver;
  /**
   * Asked right before each request goes on the wire (after its credentials are ready); an error
   * refuses the request. The manager's leadership fence: a leader whose lease may have passed to
   * another replica (renewDeadline without a successful renew, e.g. after a blocked event loop)
   * sends nothing more, even before its leader election notices.
   */
  guard?: () => Error | undefined;
}

/** The default deadline of a non-watch request. */
export const defaultRequestTimeoutMs = 60_000;

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

interface Prepared {
  base: URL;
  agent: http.Agent;
  headers: http.OutgoingHttpHeaders;
  auth?: string;
  expires: number;
}

// Like client-go's default user agent; the API server also names the field manager after it when a
// write names none.
const userAgent = `opgen-runtime (node ${process.version}; ${process.platform}/${process.arch})`;

// Credentials can rotate (exec plugins, projected service-account tokens, certificate files), so they
// are re-read from the KubeConfig this often, when an exec credential's expirationTimestamp passes
// (loadKubeConfig() reports it), and at once after a 401.
const credentialTtlMs = 60_000;
// ...but not more often than this, so a plugin that hands out an already-expired credential (a skewed
// clock) is run once a second rather than on every request.
const minCredentialTtlMs = 1_000;

export class Transport {
  private prepared?: Promise<Prepared>;
  /** What `prepared` resolved to, so most requests skip a promise hop (stale once `prepared` changes). */
  private ready?: { from: Promise<Prepared>; value: Prepared };
  private readonly agents = new AgentPool();
  private readonly timeoutMs: number;
  private readonly stop?: AbortSignal;
  private readonly observer?: RequestObserver;
  private readonly guard?: () => Error | undefined;

  constructor(
    readonly kubeConfig: KubeConfigLike,
    opts: TransportOptions = {},
  ) {
    this.timeoutMs = opts.requestTimeoutMs ?? defaultRequestTimeoutMs;
    this.stop = opts.stop;
    // Every request in flight listens to the stop signal until it ends, so a busy manager has more than
    // Node's default ten listeners on it; that is not a leak and must not print a warning.
    if (this.stop) setMaxListeners(0, this.stop);
    this.observer = opts.observer;
    this.guard = opts.guard;
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const scope = new RequestScope([opts.signal, this.stop], timeoutMs);
    const signal = scope.signal;
    try {
      signal.throwIfAborted();
      let { code, text } = await this.exchange(method, path, opts, signal);
      if (code === 401 && this.rejected()) {
        // A credential that expired early or was revoked: retry once with a fresh one (client-go's
        // exec round-tripper). A 401 means the server did not act on the request, so even a POST is safe.
        ({ code, text } = await this.exchange(method, path, opts, signal));
        if (code === 401) this.rejected();
      }
      if (code < 200 || code > 299) throw toApiError(code, text, opts.context);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch (err) {
      if (signal.aborted) throw abortedError(signal, scope.timedOut, timeoutMs, opts.context ?? `${method} ${path}`, err);
      throw err;
    } finally {
      scope.end();
    }
  }

  /** Opens a watch and yields its events until the server ends the stream or `signal` aborts. */
  async *watch(path: string, query: Query, signal: AbortSignal): AsyncGenerator<WatchEvent> {
    // No deadline: a watch lasts as long as the server keeps it open.
    const scope = new RequestScope([signal, this.stop], 0);
    try {
      const res = await this.send('GET', path, { query: { ...query, watch: true }, signal: scope.signal });
      const code = res.statusCode ?? 0;
      if (code < 200 || code > 299) {
        const text = await readBody(res);
        if (code === 401) this.rejected();
        throw toApiError(code, text, `watch ${path}`);
      }
      res.setEncoding('utf8');
      // Iterating the response itself (not readline) makes a connection cut mid-stream reject here.
      let buffered = '';
      try {
        for await (const chunk of res) {
          buffered += chunk as string;
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (line !== '') yield JSON.parse(line) as WatchEvent;
          }
        }
        if (buffered.trim() !== '') yield JSON.parse(buffered) as WatchEvent;
      } finally {
        res.destroy();
      }
    } finally {
      scope.end();
    }
  }

  private async exchange(method: string, path: string, opts: RequestOptions, signal: AbortSignal | undefined): Promise<{ code: number; text: string }> {
    const res = await this.send(method, path, { ...opts, signal });
    const text = await readBody(res);
    return { code: res.statusCode ?? 0, text };
  }

  /**
   * The server refused our credentials: read them again for the next request, dropping a cached exec
   * plugin credential first. True when there is a fresh credential worth one retry.
   */
  private rejected(): boolean {
    this.prepared = undefined;
    const kc = this.kubeConfig as KubeConfigLike & RejectableCredentials;
    if (typeof kc[credentialRejected] !== 'function') return false;
    kc[credentialRejected]();
    return true;
  }

  private async send(method: string, path: string, opts: RequestOptions): Promise<http.IncomingMessage> {
    const prepared = this.prepare();
    // Waiting for credentials (an exec plugin) is part of the request: its signal and deadline cut it
    // short. The plugin itself keeps running, and its answer serves the next request.
    const p = prepared instanceof Promise ? await untilAborted(prepared, opts.signal) : prepared;
    const url = new URL(p.base.pathname.replace(/\/$/, '') + path, p.base);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: http.OutgoingHttpHeaders = { 'User-Agent': userAgent, ...p.headers, Accept: 'application/json' };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const observation = this.observer?.begin(method, url);
    if (observation?.headers) Object.assign(headers, observation.headers);
    const lib = url.protocol === 'http:' ? http : https;
    const attempt = () =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const refused = this.guard?.();
        if (refused) return reject(refused);
        const req = lib.request(url, { method, headers, agent: p.agent, auth: p.auth, signal: opts.signal }, resolve);
        req.on('error', (err: NodeJS.ErrnoException) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
        req.end(payload);
      });
    const retried = async () => {
      try {
        return await attempt();
      } catch (err) {
        // The server may close an idle keep-alive connection just as we reuse it, and the request then
        // never reached it: send it once more on a fresh connection (Node's documented remedy). But the
        // reset may as well have come after the server read the request and acted on it, so only a
        // request that does no harm twice is sent again (see replayable); any other gets the error.
        const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
        if (e.reusedSocket && e.code === 'ECONNRESET' && replayable(method, opts) && !opts.signal?.aborted) return await attempt();
        throw err;
      }
    };
    if (!observation) return retried();
    try {
      const res = await retried();
      observation.end(res.statusCode);
      return res;
    } catch (err) {
      observation.end(undefined);
      throw err;
    }
  }

  private prepare(): Prepared | Promise<Prepared> {
    // The common case without a promise hop: credentials read less than credentialTtlMs ago.
    const ready = this.ready;
    if (ready && this.prepared === ready.from && Date.now() < ready.value.expires) return ready.value;
    const current = this.prepared;
    if (current) {
      return current.then((p) => {
        if (Date.now() < p.expires) return p;
        if (this.prepared === current) this.prepared = undefined;
        return this.prepare();
      });
    }
    const next = this.load();
    this.prepared = next;
    next.then(
      (value) => {
        if (this.prepared === next) this.ready = { from: next, value };
      },
      () => {
        if (this.prepared === next) this.prepared = undefined;
      },
    );
    return next;
  }

  private async load(): Promise<Prepared> {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster; set a current-context or KUBECONFIG');
    const opts: https.RequestOptions & ExpiringOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const base = new URL(cluster.server);
    // The cluster's proxy-url, else HTTPS_PROXY/NO_PROXY as client-go reads them; one the runtime
    // cannot use is an error here.
    const proxyUrl = proxyForCluster(cluster);
    // The same agent while the TLS material (and proxy) stays the same; a rotated certificate gets a
    // new one, and requests (watches) already open on the old one run to their end.
    const agent = this.agents.agentFor(base, proxyUrl, opts);
    const now = Date.now();
    const expires = Math.max(now + minCredentialTtlMs, Math.min(now + credentialTtlMs, opts[credentialExpiresAt] ?? Infinity));
    return { base, agent, headers: { ...(opts.headers as http.OutgoingHttpHeaders) }, auth: opts.auth ?? undefined, expires };
  }

  /** Closes pooled connections (tests and shutdown). */
  destroy(): void {
    this.agents.destroy();
  }
}

/**
 * Whether a request that may have reached the server can be sent again without a second effect:
 * reads (GET covers get, list and watch; HEAD), server-side apply (the same apply twice is the same
 * object), and writes with a resourceVersion precondition (a second one that lands after the first
 * fails with 409 Conflict, which the caller handles by reading again). Not a create (POST), nor an
 * update, patch or delete without a precondition: done twice, a JSON patch appends twice, a delete
 * answers NotFound for a delete that succeeded, and a plain update overwrites what happened between.
 */
function replayable(method: string, opts: RequestOptions): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  if (method === 'PATCH' && opts.contentType === 'application/apply-patch+yaml') return true;
  const body = opts.body;
  // A JSON patch that tests the resourceVersion first.
  if (method === 'PATCH' && Array.isArray(body)) return body.some((op) => isRecord(op) && op.op === 'test' && op.path === '/metadata/resourceVersion');
  if (!isRecord(body)) return false;
  if (method === 'PUT' || method === 'PATCH') return isRecord(body.metadata) && Boolean(body.metadata.resourceVersion);
  if (method === 'DELETE') return isRecord(body.preconditions) && Boolean(body.preconditions.resourceVersion);
  return false;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * `p`, or a rejection with `signal`'s reason as soon as it aborts. `p` is still awaited (its rejection
 * is handled) but no longer waited for.
 */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * The whole answer as a string: its chunks kept as they come and decoded once (cheaper than a string
 * decoder and an async iterator per answer). Rejects if the connection closes before the end.
 */
function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }));
    });
  });
}

/**
 * The cancellation of one request or watch: it aborts when the caller's signal or the transport's stop
 * does, or when the deadline (none for a watch) passes. One AbortController and one timer, both
 * released as soon as the request ends: AbortSignal.timeout() would keep its timer and the request's signals alive for the
 * whole deadline (60 s) after the answer, thousands of them under load, and AbortSignal.any() ties
 * every request to the long-lived stop signal.
 */
class RequestScope {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  /** The deadline passed (rather than a signal aborting). */
  timedOut = false;
  private timer?: Timer;
  private readonly sources: AbortSignal[] = [];
  private readonly onAbort = (event: Event) => this.controller.abort((event.target as AbortSignal).reason);

  constructor(signals: (AbortSignal | undefined)[], timeoutMs: number) {
    for (const s of signals) {
      if (s?.aborted) {
        this.controller.abort(s.reason);
        return;
      }
    }
    for (const s of signals) {
      if (!s) continue;
      s.addEventListener('abort', this.onAbort, { once: true });
      this.sources.push(s);
    }
    if (timeoutMs > 0) {
      this.timer = setTimer(() => {
        this.timedOut = true;
        this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      }, timeoutMs);
    }
  }

  end(): void {
    this.timer?.clear();
    for (const s of this.sources) s.removeEventListener('abort', this.onAbort);
  }
}

/**
 * The error for a request cut short: a TimeoutError when its deadline passed, else an AbortError
 * (the caller's signal or the transport's stop), with the signal's reason as its cause.
 */
function abortedError(signal: AbortSignal, timedOut: boolean, timeoutMs: number, context: string, err: unknown): Error {
  const reason: unknown = signal.reason;
  const why = timedOut
    ? `no answer within ${timeoutMs} ms (the request timeout)`
    : `aborted${reason instanceof Error && reason.name !== 'AbortError' ? ` (${reason.message})` : ''}`;
  const out = new Error(`${context}: ${why}`, { cause: timedOut ? err : reason });
  out.name = timedOut ? 'TimeoutError' : 'AbortError';
  return out;
}

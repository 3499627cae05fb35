// HTTP plumbing shared by the client and the cache's watcher. KubeConfig does the authentication and
// TLS set-up; requests go through node's http(s) with one keep-alive agent (a new one when the client
// certificate or CA changes, see agent-pool.ts) so a busy controller reuses connections instead of
// opening one per call.
import http from 'node:http';
import https from 'node:https';
import type { KubeConfigLike } from '../../kubeconfig/index.js';
import { credentialExpiresAt, type ExpiringOptions } from '../../kubeconfig/internal/exec-credential.js';
import { ApiError, type Status } from '../errors.js';
import { AgentPool } from './agent-pool.js';
import { proxyForCluster } from './proxy-env.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Prefix for the error message, e.g. `get memcacheds default/a`. */
  context?: string;
}

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
  private readonly agents = new AgentPool();

  constructor(readonly kubeConfig: KubeConfigLike) {}

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await readBody(res);
    const code = res.statusCode ?? 0;
    if (code === 401) this.prepared = undefined;
    if (code < 200 || code > 299) throw toApiError(code, text, opts.context);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Opens a watch and yields its events until the server ends the stream or `signal` aborts. */
  async *watch(path: string, query: Query, signal: AbortSignal): AsyncGenerator<WatchEvent> {
    const res = await this.send('GET', path, { query: { ...query, watch: true }, signal });
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const text = await readBody(res);
      if (code === 401) this.prepared = undefined;
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
  }

  private async send(method: string, path: string, opts: RequestOptions): Promise<http.IncomingMessage> {
    const p = await this.prepare();
    const url = new URL(p.base.pathname.replace(/\/$/, '') + path, p.base);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: http.OutgoingHttpHeaders = { 'User-Agent': userAgent, ...p.headers, Accept: 'application/json' };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const lib = url.protocol === 'http:' ? http : https;
    const attempt = () =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = lib.request(url, { method, headers, agent: p.agent, auth: p.auth, signal: opts.signal }, resolve);
        req.on('error', (err: NodeJS.ErrnoException) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
        req.end(payload);
      });
    try {
      return await attempt();
    } catch (err) {
      // The server may close an idle keep-alive connection just as we reuse it, and the request
      // then never reached it: send it once more on a fresh connection (Node's documented remedy).
      // Not for POST, where a create that did get through must not be repeated (generateName).
      const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
      if (e.reusedSocket && e.code === 'ECONNRESET' && method !== 'POST' && !opts.signal?.aborted) return await attempt();
      throw err;
    }
  }

  private prepare(): Promise<Prepared> {
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
    next.catch(() => {
      if (this.prepared === next) this.prepared = undefined;
    });
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

async function readBody(res: http.IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

function toApiError(code: number, text: string, context?: string): ApiError {
  let status: Status = {};
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === 'object') status = parsed;
  } catch {
    status = { message: text.trim() || undefined };
  }
  return new ApiError(code, status, context);
}

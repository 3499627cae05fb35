// The local API proxy roles talk to (operator-sdk's design): every run gets a kubeconfig naming
// http://127.0.0.1:<port> and a token of its own; the proxy forwards each request to the API server with
// the operator's credentials and, on a create, marks the new object as the custom resource's: an
// ownerReference when the owner may own it (same namespace, or a cluster-scoped owner), otherwise
// operator-sdk's primary-resource annotations. So garbage collection and dependent watches work for
// roles that never mention an owner.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import type { Logger } from '../log/index.js';

/** operator-lib's annotations for an object the owner cannot own (another namespace, cluster-scoped). */
export const primaryResourceAnnotation = 'operator-sdk/primary-resource';
export const primaryResourceTypeAnnotation = 'operator-sdk/primary-resource-type';

export interface ProxyOwner {
  apiVersion: string;
  kind: string;
  name: string;
  /** Unset for a cluster-scoped owner. */
  namespace?: string;
  uid: string;
}

export interface ProxySession {
  /** A kubeconfig for this run: the proxy's address and the session's token. */
  readonly kubeconfig: object;
  /** apiVersion/kind of every object created through this session. */
  readonly created: Set<string>;
  close(): void;
}

export class OwnerInjectingProxy {
  private server?: Server;
  private listening?: Promise<number>;
  private readonly sessions = new Map<string, { owner: ProxyOwner; created: Set<string> }>();

  constructor(private readonly kubeConfig: KubeConfigLike, private readonly log?: Logger, private readonly injectOwnerRef = true) {}

  /** Listens on 127.0.0.1 (a free port) on first use; every later call gets the same port. */
  start(): Promise<number> {
    this.listening ??= new Promise((resolve, reject) => {
      this.server = createServer((req, res) => void this.handle(req, res).catch((err: Error) => {
        this.log?.info('ansible proxy request failed', { method: req.method, url: req.url, error: err.message });
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `opgen ansible proxy: ${err.message}`, code: 502 }));
      }));
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve((this.server!.address() as AddressInfo).port));
    });
    return this.listening;
  }

  async session(owner: ProxyOwner): Promise<ProxySession> {
    const port = await this.start();
    const token = randomBytes(24).toString('hex');
    const created = new Set<string>();
    this.sessions.set(token, { owner, created });
    return {
      created,
      kubeconfig: {
        apiVersion: 'v1', kind: 'Config', 'current-context': 'proxy',
        clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'proxy', user: { token } }],
        contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'proxy', ...(owner.namespace ? { namespace: owner.namespace } : {}) } }],
      },
      close: () => { this.sessions.delete(token); },
    };
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = req.headers.authorization ?? '';
    const session = auth.startsWith('Bearer ') ? this.sessions.get(auth.slice(7)) : undefined;
    if (!session) {
      // Only runs of this operator may use its credentials, and only while they run.
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', message: 'no ansible run holds this token', code: 401 }));
      return;
    }
    let body = await readBody(req);
    const target = req.method === 'POST' ? collectionOf(req.url ?? '') : undefined;
    if (target && body.length > 0 && /json/.test(String(req.headers['content-type'] ?? 'application/json'))) {
      const obj = JSON.parse(body.toString('utf8')) as { apiVersion?: string; kind?: string; metadata?: Record<string, unknown> };
      if (obj.kind && obj.apiVersion) session.created.add(`${obj.apiVersion}/${obj.kind}`);
      if (this.injectOwnerRef) markOwned(obj, session.owner, target.namespace);
      body = Buffer.from(JSON.stringify(obj), 'utf8');
    }
    await this.forward(req, res, body);
  }

  private async forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const upstream = new URL(cluster.server);
    const opts: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !['authorization', 'host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    Object.assign(headers, opts.headers ?? {}, { 'content-length': String(body.length) });
    const basePath = upstream.pathname.replace(/\/$/, '');
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    await new Promise<void>((resolve, reject) => {
      const out = send({
        ...opts, protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port,
        method: req.method, path: `${basePath}${req.url ?? '/'}`, headers, agent: false,
      }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.once('end', resolve);
        up.once('error', reject);
      });
      out.once('error', reject);
      // A watch the role left open ends with the role's connection.
      res.once('close', () => out.destroy());
      out.end(body);
    });
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * The collection a POST creates into: /api/v1[/namespaces/<ns>]/<resource> or
 * /apis/<group>/<version>[/namespaces/<ns>]/<resource>. Undefined for a subresource (eviction, token
 * request, …) or anything else, whose body is not a new object.
 */
export function collectionOf(url: string): { namespace?: string; resource: string } | undefined {
  const parts = new URL(url, 'http://x').pathname.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  if (!rest) return undefined;
  if (rest.length === 1) return { resource: rest[0]! };
  if (rest.length === 3 && rest[0] === 'namespaces') return { namespace: rest[1], resource: rest[2]! };
  return undefined;
}

/** Owner reference where Kubernetes allows one, else operator-sdk's primary-resource annotations. */
export function markOwned(obj: { metadata?: Record<string, unknown> }, owner: ProxyOwner, namespace: string | undefined): void {
  const meta = (obj.metadata ??= {}) as { ownerReferences?: Array<Record<string, unknown>>; annotations?: Record<string, string> };
  const mayOwn = owner.namespace === undefined || owner.namespace === namespace;
  if (mayOwn) {
    const refs = meta.ownerReferences ?? [];
    if (!refs.some((r) => r.uid === owner.uid)) refs.push({ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid });
    meta.ownerReferences = refs;
    return;
  }
  const group = owner.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
  meta.annotations = { ...meta.annotations, [primaryResourceAnnotation]: `${owner.namespace}/${owner.name}`, [primaryResourceTypeAnnotation]: `${owner.kind}.${group}` };
}

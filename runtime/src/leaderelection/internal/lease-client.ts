import * as http from 'node:http';
import * as https from 'node:https';
import { AgentPool } from '../../client/internal/agent-pool.js';
import { proxyForCluster } from '../../client/internal/proxy-env.js';
import type { KubeConfigLike } from '../../kubeconfig/index.js';

/** The coordination.k8s.io/v1 LeaseSpec fields leader election uses (times are MicroTime strings). */
export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string; [key: string]: unknown };
  spec?: LeaseSpec;
}

/** A non-2xx answer from the API server; `code` is the HTTP status (404, 409, ...). */
export class LeaseRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'LeaseRequestError';
  }
}

/**
 * get/create/update of one Lease over plain HTTPS, authenticated from the KubeConfig. Leader election
 * needs only these three calls, and owning the wire format keeps MicroTime at the microsecond
 * precision the API server expects.
 */
export class LeaseClient {
  private readonly itemPath: string;
  private readonly collectionPath: string;
  /** Only for a proxy (proxy-url or the environment's); without one, requests carry their TLS options to Node's global agent. */
  private readonly proxied = new AgentPool();

  constructor(
    private readonly kubeConfig: KubeConfigLike,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.collectionPath = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
    this.itemPath = `${this.collectionPath}/${encodeURIComponent(name)}`;
  }

  get(signal: AbortSignal): Promise<Lease> {
    return this.request('GET', this.itemPath, undefined, signal);
  }

  create(spec: LeaseSpec, signal: AbortSignal): Promise<Lease> {
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec,
    };
    return this.request('POST', this.collectionPath, body, signal);
  }

  /** PUT with the lease's resourceVersion, so a concurrent writer makes this fail with 409. */
  update(lease: Lease, spec: LeaseSpec, signal: AbortSignal): Promise<Lease> {
    return this.request('PUT', this.itemPath, { ...lease, spec }, signal);
  }

  private async request(method: string, path: string, body: unknown, signal: AbortSignal): Promise<Lease> {
    signal.throwIfAborted();
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('leader election: the kubeconfig has no current cluster');
    const url = new URL(path, cluster.server.endsWith('/') ? cluster.server : `${cluster.server}/`);
    const options: https.RequestOptions = {
      method,
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    };
    await this.kubeConfig.applyToHTTPSOptions(options);
    // A cluster's proxy-url, else HTTPS_PROXY/NO_PROXY as client-go reads them: a CONNECT tunnel (the
    // transport's rules; a proxy the runtime cannot use is an error). A pooled agent's TLS options
    // override the request's, so the pool builds a new agent when the certificates change. Without a
    // proxy, Node's global agent keys its connections by the request's cert, key and CA, so a rotated
    // certificate gets new connections there already.
    const proxyUrl = proxyForCluster(cluster);
    if (proxyUrl) options.agent = this.proxied.agentFor(url, proxyUrl, options);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = url.protocol === 'http:' ? http.request : https.request;

    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = send(url, { ...options, signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });

    if (status >= 200 && status < 300) return JSON.parse(text) as Lease;
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not a Status object; keep the raw body
    }
    throw new LeaseRequestError(status, `${method} lease ${this.namespace}/${this.name}: ${status} ${message}`);
  }
}

/** A MicroTime string ("2006-01-02T15:04:05.000000Z"): Date has milliseconds, the API server wants six digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

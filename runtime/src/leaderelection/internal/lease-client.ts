import type { Lease } from '../../api/builtins.js';
import { Transport } from '../../transport/index.js';
import type { KubeConfigLike } from '../../kubeconfig/index.js';
import type { RequestObserver } from '../../transport/observer.js';

export type { Lease };
/** The coordination.k8s.io/v1 LeaseSpec fields leader election uses (times are MicroTime strings). */
export type LeaseSpec = NonNullable<Lease['spec']>;

/**
 * get/create/update of one Lease, sent through the runtime's Transport: the same authentication,
 * credential caching, keep-alive agents and proxy handling as the client, and its ApiError on a non-2xx
 * answer (isNotFound, isConflict). Leader election needs only these three calls; the caller writes
 * MicroTime strings (api/internal/micro-time.ts) at the microsecond precision the API server expects.
 */
export class LeaseClient {
  private readonly itemPath: string;
  private readonly collectionPath: string;
  private readonly transport: Transport;

  constructor(
    kubeConfig: KubeConfigLike,
    readonly namespace: string,
    readonly name: string,
    observer?: RequestObserver,
  ) {
    this.transport = new Transport(kubeConfig, { observer });
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

  /** Closes the transport's pooled connections (the elector calls it when it is done). */
  destroy(): void {
    this.transport.destroy();
  }

  private request(method: string, path: string, body: unknown, signal: AbortSignal): Promise<Lease> {
    signal.throwIfAborted();
    return this.transport.request<Lease>(method, path, { body, signal, context: `${method} lease ${this.namespace}/${this.name}` });
  }
}

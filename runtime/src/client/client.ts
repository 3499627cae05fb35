// The API client: typed CRUD over plain JSON objects, keyed by a ResourceKind value.
import type { KubeConfigLike } from '../kubeconfig/index.js';
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import { describe, formatLabelSelector, resourcePath, Transport } from '../transport/index.js';

/**
 * Cancellation and deadline of one call; every client method takes them. Inside reconcile(), pass
 * `ctx.signal` so a stopping manager (or lost leadership) cuts the call short.
 */
export interface CallOptions {
  signal?: AbortSignal;
  /** Deadline of this call in ms; default the client's requestTimeoutMs (60 s). 0: none. */
  timeoutMs?: number;
}

export type GetOptions = CallOptions;

export interface ObjectKey {
  namespace?: string;
  name: string;
}

export interface ListOptions extends CallOptions {
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /** Page size; the server returns metadata.continue when there is more. */
  limit?: number;
  /** The metadata.continue of the previous page. */
  continue?: string;
}

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

export type Patch =
  | { type: 'merge'; body: object }
  | { type: 'json'; ops: JsonPatchOp[] }
  | { type: 'strategic'; body: object };

export interface WriteOptions extends CallOptions {
  dryRun?: boolean;
  fieldManager?: string;
}

export interface ApplyOptions extends CallOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
}

export interface DeleteOptions extends CallOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export interface Reader {
  /** Throws ApiError; `isNotFound(err)` when the object does not exist. */
  get<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts?: GetOptions): Promise<T>;
  list<T extends KubeObject>(kind: ResourceKind<T>, opts?: ListOptions): Promise<KubeList<T>>;
}

export interface Writer {
  create<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  update<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, patch: Patch, opts?: WriteOptions): Promise<T>;
  /** Server-side apply: `obj` holds only the fields this manager owns. */
  apply<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts: ApplyOptions): Promise<T>;
  delete<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
}

/** Writes through the status subresource: only `.status` changes, and `.spec` edits are ignored. */
export interface StatusWriter {
  update<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, patch: Patch, opts?: WriteOptions): Promise<T>;
  apply<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts: ApplyOptions): Promise<T>;
}

export interface Client extends Reader, Writer {
  status(): StatusWriter;
}

export interface ClientOptions {
  /** Field manager recorded for create/update/patch when the call names none. */
  fieldManager?: string;
  /** Deadline of every call that names none (timeoutMs); default 60 s; 0 disables it. */
  requestTimeoutMs?: number;
}

const patchContentType = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

export function createClient(kubeConfig: KubeConfigLike, opts: ClientOptions = {}): Client {
  return new ApiClient(new Transport(kubeConfig, { requestTimeoutMs: opts.requestTimeoutMs }), opts.fieldManager);
}

export class ApiClient implements Client {
  constructor(
    readonly transport: Transport,
    private readonly fieldManager?: string,
  ) {}

  async get<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts: GetOptions = {}): Promise<T> {
    const ns = namespaceFor(kind, key.namespace, 'get');
    const obj = await this.transport.request<T>('GET', resourcePath(kind, ns, key.name), { ...call(opts), context: `get ${describe(kind, ns, key.name)}` });
    return withTypeMeta(kind, obj);
  }

  async list<T extends KubeObject>(kind: ResourceKind<T>, opts: ListOptions = {}): Promise<KubeList<T>> {
    const list = await this.transport.request<KubeList<T>>('GET', resourcePath(kind, opts.namespace), {
      query: { labelSelector: formatLabelSelector(opts.labelSelector), fieldSelector: opts.fieldSelector || undefined, limit: opts.limit, continue: opts.continue },
      ...call(opts),
      context: `list ${describe(kind, opts.namespace)}`,
    });
    list.items = (list.items ?? []).map((item) => withTypeMeta(kind, item));
    return list;
  }

  async create<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = namespaceFor(kind, obj.metadata?.namespace, 'create');
    const name = obj.metadata?.name ?? obj.metadata?.generateName;
    return this.write(kind, 'POST', resourcePath(kind, ns), withTypeMeta(kind, { ...obj }), undefined, this.query(opts), opts, `create ${describe(kind, ns, name)}`);
  }

  update<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(kind, obj, undefined, opts);
  }

  patch<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, patch: Patch, opts: WriteOptions = {}): Promise<T> {
    return this.sendPatch(kind, key, patch, undefined, opts);
  }

  apply<T extends KubeObject>(kind: ResourceKind<T>, obj: T, opts: ApplyOptions): Promise<T> {
    return this.sendApply(kind, obj, undefined, opts);
  }

  async delete<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts: DeleteOptions = {}): Promise<void> {
    const ns = namespaceFor(kind, key.namespace, 'delete');
    const body =
      opts.propagationPolicy !== undefined || opts.gracePeriodSeconds !== undefined
        ? { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: opts.propagationPolicy, gracePeriodSeconds: opts.gracePeriodSeconds }
        : undefined;
    await this.transport.request('DELETE', resourcePath(kind, ns, key.name), {
      body,
      query: { dryRun: opts.dryRun ? 'All' : undefined },
      ...call(opts),
      context: `delete ${describe(kind, ns, key.name)}`,
    });
  }

  status(): StatusWriter {
    return {
      update: (kind, obj, opts = {}) => this.put(kind, obj, 'status', opts),
      patch: (kind, key, patch, opts = {}) => this.sendPatch(kind, key, patch, 'status', opts),
      apply: (kind, obj, opts) => this.sendApply(kind, obj, 'status', opts),
    };
  }

  private put<T extends KubeObject>(kind: ResourceKind<T>, obj: T, sub: string | undefined, opts: WriteOptions): Promise<T> {
    const ns = namespaceFor(kind, obj.metadata?.namespace, 'update');
    const name = requireName(obj, 'update');
    const verb = sub ? `update ${sub} of` : 'update';
    return this.write(kind, 'PUT', resourcePath(kind, ns, name, sub), withTypeMeta(kind, { ...obj }), undefined, this.query(opts), opts, `${verb} ${describe(kind, ns, name)}`);
  }

  private sendPatch<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, patch: Patch, sub: string | undefined, opts: WriteOptions): Promise<T> {
    const ns = namespaceFor(kind, key.namespace, 'patch');
    const body = patch.type === 'json' ? patch.ops : patch.body;
    const verb = sub ? `patch ${sub} of` : 'patch';
    return this.write(kind, 'PATCH', resourcePath(kind, ns, key.name, sub), body, patchContentType[patch.type], this.query(opts), opts, `${verb} ${describe(kind, ns, key.name)}`);
  }

  private sendApply<T extends KubeObject>(kind: ResourceKind<T>, obj: T, sub: string | undefined, opts: ApplyOptions): Promise<T> {
    const ns = namespaceFor(kind, obj.metadata?.namespace, 'apply');
    const name = requireName(obj, 'apply');
    // JSON is YAML, so the apply-patch+yaml content type takes the object as JSON.
    return this.write(
      kind,
      'PATCH',
      resourcePath(kind, ns, name, sub),
      withTypeMeta(kind, { ...obj }),
      'application/apply-patch+yaml',
      { fieldManager: opts.fieldManager, force: opts.force ? true : undefined, dryRun: opts.dryRun ? 'All' : undefined },
      opts,
      `apply ${describe(kind, ns, name)}`,
    );
  }

  private query(opts: WriteOptions): Record<string, string | undefined> {
    return { fieldManager: opts.fieldManager ?? this.fieldManager, dryRun: opts.dryRun ? 'All' : undefined };
  }

  private async write<T extends KubeObject>(
    kind: ResourceKind<T>,
    method: string,
    path: string,
    body: unknown,
    contentType: string | undefined,
    query: Record<string, string | boolean | undefined>,
    opts: CallOptions,
    context: string,
  ): Promise<T> {
    const obj = await this.transport.request<T>(method, path, { body, contentType, query, ...call(opts), context });
    return withTypeMeta(kind, obj);
  }
}

/** Only the call options the transport takes (not, say, a ListOptions' selectors). */
function call(opts: CallOptions): CallOptions {
  return { signal: opts.signal, timeoutMs: opts.timeoutMs };
}

function namespaceFor(kind: ResourceKind, namespace: string | undefined, verb: string): string | undefined {
  if (!kind.namespaced) return undefined;
  if (!namespace) throw new Error(`${verb} ${kind.kind}: namespaced kind needs metadata.namespace (or key.namespace)`);
  return namespace;
}

function requireName(obj: KubeObject, verb: string): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${verb} ${obj.kind ?? 'object'}: metadata.name is required`);
  return name;
}

/** List items and some responses omit apiVersion/kind; set them so objects are self-describing. */
export function withTypeMeta<T extends KubeObject>(kind: ResourceKind, obj: T): T {
  if (obj.apiVersion !== kind.apiVersion || obj.kind !== kind.kind) {
    obj.apiVersion = kind.apiVersion;
    obj.kind = kind.kind;
  }
  return obj;
}

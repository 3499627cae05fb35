// manager.client: reads of kinds the manager watches come from the cache (no API round trip, as in
// controller-runtime's delegating client); everything else (including lists by a field the cache has
// no index for), and every write, goes to the API server.
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import type { Cache } from '../cache/cache.js';
import type { ApiClient, Client, GetOptions, ListOptions, ObjectKey, StatusWriter } from '../client/client.js';

export class DelegatingClient implements Client {
  constructor(
    private readonly cache: Cache,
    private readonly api: ApiClient,
  ) {}

  get<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts?: GetOptions): Promise<T> {
    return this.cache.has(kind) ? this.cache.get(kind, key, opts) : this.api.get(kind, key, opts);
  }

  list<T extends KubeObject>(kind: ResourceKind<T>, opts?: ListOptions): Promise<KubeList<T>> {
    return this.cache.canList(kind, opts) ? this.cache.list(kind, opts) : this.api.list(kind, opts);
  }

  create: Client['create'] = (kind, obj, opts) => this.api.create(kind, obj, opts);
  update: Client['update'] = (kind, obj, opts) => this.api.update(kind, obj, opts);
  patch: Client['patch'] = (kind, key, patch, opts) => this.api.patch(kind, key, patch, opts);
  apply: Client['apply'] = (kind, obj, opts) => this.api.apply(kind, obj, opts);
  delete: Client['delete'] = (kind, key, opts) => this.api.delete(kind, key, opts);

  status(): StatusWriter {
    return this.api.status();
  }
}

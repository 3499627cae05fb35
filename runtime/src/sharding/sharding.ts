// Horizontal scale-out (docs/sharding.md): every replica holds a shard Lease of its own; the live
// Leases are the ring; each object of a sharded kind (a kind a controller is for) belongs to the
// ring member its uid hashes to, and only that replica caches and reconciles it.
//
// Handover is a barrier on the ring: a replica that sees the ring change stops starting reconciles,
// waits for its in-flight ones, lists its new share, and only then acknowledges the new ring in its
// Lease (annotation sharding.opgen.dev/ring-view). A replica reconciles only while every live member
// has acknowledged the ring it holds itself, so an object's old owner has always stopped before its
// new owner starts. A replica that can no longer renew its Lease stops writing after renewDeadline,
// before the others drop it from the ring after leaseDuration (as leader election does).
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import type { Lease } from '../api/builtins.js';
import { microTime } from '../api/internal/micro-time.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { Cache } from '../cache/cache.js';
import type { InformerOptions } from '../cache/informer.js';
import { kindKey } from '../cache/cache.js';
import { setTimer, sleep, timeoutSignal } from '../internal/timers/index.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import { Result, type Reconciler } from '../reconcile/index.js';
import { Transport } from '../transport/index.js';
import { fnv1a64, HashRing, shardSelector, defaultVirtualNodes, type HashRange } from './ring.js';

export interface ShardingOptions {
  /** The ring's name: its Leases carry the label sharding.opgen.dev/ring=<name>; default the manager's leaderElectionID, else 'opgen'. */
  name?: string;
  /** Namespace of the shard Leases; default the manager's leaderElectionNamespace (the pod's namespace in-cluster, else 'default'). */
  namespace?: string;
  /** This replica's member name (its Lease is <ring>-<member>); default <hostname>-<random>, new per process. */
  identity?: string;
  /** Shard Lease timings, as leader election's: defaults 15 s / 10 s / 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Points per member on the ring; default 32. */
  virtualNodes?: number;
  /**
   * How a replica gets only its share. 'auto' (default): the API server's shard selector (KEP-5866,
   * feature gate ShardedListAndWatch) when a list answers with metadata.shardInfo, else every replica
   * lists everything and keeps its share. 'server' or 'client' force one.
   */
  mode?: 'auto' | 'server' | 'client';
}

export const ringLabel = 'sharding.opgen.dev/ring';
export const viewAnnotation = 'sharding.opgen.dev/ring-view';

interface Observed {
  spec: string;
  at: number;
}

interface Member {
  name: string;
  lease: Lease;
  view: string;
}

export interface ShardingContext {
  kubeConfig: KubeConfigLike;
  log: Logger;
  metrics: RuntimeMetrics;
  defaultName: string;
  defaultNamespace: string;
}

/** One replica's part in the ring; the manager drives it (join, leave, the cache and reconciler hooks). */
export class Sharding {
  readonly ring: string;
  readonly namespace: string;
  readonly identity: string;
  readonly leaseName: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly virtualNodes: number;
  private readonly transport: Transport;
  private readonly log: Logger;
  private readonly kinds = new Map<string, ResourceKind>();
  private cache?: Cache;

  /** The ring this replica has applied (its cache holds that share) and acknowledged. */
  private applied = new HashRing([]);
  private appliedView = '';
  private myRanges: HashRange[] = [];
  private serverSide = false;
  /** Whether reconciles may start: every live member acknowledged `applied`. */
  private active = false;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lease?: Lease;
  private renewedAt = -Infinity;
  private fenced = false;
  private readonly observed = new Map<string, Observed>();
  /** Members dropped because their Lease expired, with when they were last seen renewing, until we are active again. */
  private lost = new Map<string, number>();
  private stopLoop = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private readonly metrics: ShardingMetrics;

  constructor(opts: ShardingOptions, ctx: ShardingContext) {
    this.ring = opts.name ?? ctx.defaultName;
    this.namespace = opts.namespace ?? ctx.defaultNamespace;
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.virtualNodes = opts.virtualNodes ?? defaultVirtualNodes;
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw new Error(`sharding: leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`);
    if (this.renewDeadlineMs <= this.retryPeriodMs) throw new Error(`sharding: renewDeadlineMs (${this.renewDeadlineMs}) must be greater than retryPeriodMs (${this.retryPeriodMs})`);
    if (this.leaseDurationMs < 1000) throw new Error(`sharding: leaseDurationMs (${this.leaseDurationMs}) must be at least 1000 (the Lease holds whole seconds)`);
    if (!/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/.test(this.ring)) throw new Error(`sharding: ring name "${this.ring}" must be a label value (lowercase alphanumeric, '-' or '.', at most 63 characters); set sharding.name`);
    this.identity = opts.identity ?? defaultIdentity();
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(this.identity)) throw new Error(`sharding: identity "${this.identity}" must be lowercase alphanumeric or '-', at most 63 characters`);
    this.leaseName = `${this.ring}-${this.identity}`.slice(0, 253);
    this.transport = new Transport(ctx.kubeConfig, { requestTimeoutMs: Math.max(1000, this.renewDeadlineMs) });
    this.log = ctx.log.child({ logger: 'sharding', ring: this.ring, member: this.identity });
    this.metrics = shardingMetrics(ctx.metrics, this.ring);
    this.mode = opts.mode ?? 'auto';
  }

  private readonly mode: 'auto' | 'server' | 'client';

  /** A kind a controller is for: only its objects are split between replicas. */
  addKind(kind: ResourceKind): void {
    this.kinds.set(kindKey(kind), kind);
  }

  attach(cache: Cache): void {
    this.cache = cache;
  }

  /** The cache hook (CacheOptions.shardFor): this replica's shard selector and filter for sharded kinds. */
  shardFor(kind: ResourceKind): InformerOptions['shard'] {
    if (!this.kinds.has(kindKey(kind))) return undefined;
    return {
      selector: () => (this.serverSide ? shardSelector(this.myRanges) : undefined),
      accepts: (obj) => this.owns(obj, this.applied),
    };
  }

  /** An error once this replica may no longer write as a ring member (its Lease lapsed). */
  guard(): Error | undefined {
    if (!this.fenced && this.lease && performance.now() >= this.renewedAt + this.renewDeadlineMs) this.fenced = true;
    return this.fenced ? new Error(`sharding: the shard lease ${this.namespace}/${this.leaseName} was not renewed within renewDeadline (${this.renewDeadlineMs} ms); nothing more is sent`) : undefined;
  }

  /** The reconciler hook: reconciles only objects of this replica's share, and only while the ring is settled. */
  wrap(kind: ResourceKind, inner: Reconciler): Reconciler {
    if (!this.kinds.has(kindKey(kind))) return inner;
    return {
      reconcile: async (req, ctx) => {
        const fence = this.guard();
        if (fence) throw fence;
        if (!this.active) return Result.requeueAfter(this.retryPeriodMs);
        const obj = this.cache?.informerFor(kind).store.get(kind.namespaced ? req.namespace : undefined, req.name);
        // Not in this replica's cache: another replica's object, or deleted (finalizers see deletions).
        if (!obj || !this.owns(obj, this.applied)) return Result.done();
        this.inFlight++;
        try {
          return await inner.reconcile(req, ctx);
        } finally {
          if (--this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
        }
      },
    };
  }

  /** Takes this replica's shard Lease and keeps the ring until leave(); onLost when the Lease lapsed. */
  join(onLost: (err: Error) => void): void {
    this.loop = this.run(this.stopLoop.signal).catch((err: unknown) => {
      this.active = false;
      this.fenced = true;
      onLost(err instanceof Error ? err : new Error(String(err)));
    });
  }

  /** Stops renewing; deletes the Lease (the others take our share at once) when `release`, else leaves it to expire. */
  async leave(release: boolean): Promise<void> {
    this.active = false;
    this.stopLoop.abort();
    await this.loop;
    if (release && this.lease && !this.fenced) {
      try {
        await this.transport.request('DELETE', `${this.leasesPath()}/${this.leaseName}`, { signal: timeoutSignal(this.renewDeadlineMs), context: 'delete shard lease', body: { preconditions: { uid: this.lease.metadata?.uid } } });
        this.log.info('left the ring; shard lease deleted', { lease: `${this.namespace}/${this.leaseName}` });
      } catch (err) {
        if (!isNotFound(err)) this.log.error('failed to delete the shard lease; the others take over once it expires', err);
      }
    }
    this.transport.destroy();
  }

  private owns(obj: KubeObject, ring: HashRing): boolean {
    const uid = obj.metadata?.uid;
    return uid !== undefined && ring.ownerOf(fnv1a64(uid)) === this.identity;
  }

  private async run(signal: AbortSignal): Promise<void> {
    await this.detectMode(signal);
    this.log.info('joining the ring', { lease: `${this.namespace}/${this.leaseName}`, mode: this.serverSide ? 'server-side shard selector' : 'client-side filter' });
    while (!signal.aborted) {
      await this.tick(signal);
      if (this.guard()) throw this.guard()!;
      await sleep(this.retryPeriodMs, signal);
    }
  }

  /** One round: renew our Lease, read the ring, apply a changed ring, and settle whether we may reconcile. */
  private async tick(signal: AbortSignal): Promise<void> {
    if (!(await this.renew(signal))) return;
    let leases: Lease[];
    try {
      leases = await this.listLeases(signal);
    } catch (err) {
      if (!signal.aborted) this.log.error('failed to list shard leases', err);
      return;
    }
    const members = this.live(leases);
    const view = members.map((m) => m.name).join(',');
    if (view !== this.appliedView) {
      await this.apply(members.map((m) => m.name), signal);
      if (signal.aborted) return;
      // Acknowledge at once rather than a round later.
      if (!(await this.renew(signal))) return;
    }
    const ack = viewHash(this.appliedView);
    const settled = members.every((m) => (m.name === this.identity ? true : m.view === ack)) && members.some((m) => m.name === this.identity);
    if (settled !== this.active) {
      this.active = settled;
      this.metrics.active(settled);
      this.log.info(settled ? 'ring settled: reconciling this replica\'s share' : 'waiting for every member to acknowledge the ring', { members: this.appliedView });
      if (settled) {
        const now = performance.now();
        for (const [member, lastSeen] of this.lost) {
          const seconds = (now - lastSeen) / 1000;
          this.metrics.takeover(seconds);
          this.log.info('a lost member\'s objects are owned again', { lostMember: member, secondsSinceItsLastRenew: Math.round(seconds * 10) / 10 });
        }
        this.lost.clear();
      }
    }
    this.countOwned();
    await this.collectExpired(leases, signal);
  }

  /**
   * Stops starting reconciles, waits for those in flight, lists the new share; only then is the new
   * ring acknowledged (by the caller's renew).
   */
  private async apply(members: string[], signal: AbortSignal): Promise<void> {
    const before = this.appliedView ? this.appliedView.split(',') : [];
    const next = new HashRing(members, this.virtualNodes);
    this.active = false;
    this.metrics.active(false);
    if (this.inFlight > 0) await this.renewing(new Promise<void>((resolve) => this.idle.push(resolve)), signal);
    let out = 0;
    for (const kind of this.kinds.values()) for (const obj of this.cache?.informerFor(kind).store.list() ?? []) if (!this.owns(obj, next)) out++;
    const old = this.applied;
    this.applied = next;
    this.appliedView = members.join(',');
    this.myRanges = next.rangesOf(this.identity);
    this.metrics.changes();
    this.metrics.members(members.length);
    this.log.info('shard ring changed', {
      members: this.appliedView,
      joined: members.filter((m) => !before.includes(m)).join(',') || undefined,
      left: before.filter((m) => !members.includes(m)).join(',') || undefined,
      handedOver: out,
    });
    // Lists with the new selector (or filter); objects that left the share go as deletes, new ones come as adds.
    await this.renewing(Promise.all([...this.kinds.values()].map((kind) => this.cache?.informerFor(kind).relist())), signal);
    if (signal.aborted) return;
    let gained = 0;
    for (const kind of this.kinds.values()) for (const obj of this.cache?.informerFor(kind).store.list() ?? []) if (!this.owns(obj, old)) gained++;
    this.metrics.handovers('out', out);
    this.metrics.handovers('in', gained);
  }

  /** Waits for `work` (a slow reconcile, a long list) while renewing our Lease every retryPeriod, still acknowledging the old ring. */
  private async renewing(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
    let done = false;
    void work.finally(() => (done = true));
    while (!done && !signal.aborted) {
      await Promise.race([work, sleep(this.retryPeriodMs, signal)]);
      if (!done && !signal.aborted) await this.renew(signal);
      const fence = this.guard();
      if (fence) throw fence;
    }
  }

  /** Members whose Lease is held and was seen renewing within its leaseDurationSeconds; sorted. */
  private live(leases: Lease[]): Member[] {
    const now = performance.now();
    const seen = new Set<string>();
    const members: Member[] = [];
    for (const lease of leases) {
      const name = lease.metadata?.name ?? '';
      seen.add(name);
      const spec = JSON.stringify(lease.spec ?? {});
      const prev = this.observed.get(name);
      if (!prev || prev.spec !== spec) this.observed.set(name, { spec, at: now });
      const holder = lease.spec?.holderIdentity ?? '';
      if (!holder) continue;
      const at = this.observed.get(name)!.at;
      const valid = name === this.leaseName || at + (lease.spec?.leaseDurationSeconds ?? 0) * 1000 > now;
      if (valid) members.push({ name: holder, lease, view: lease.metadata?.annotations?.[viewAnnotation] ?? '' });
      else if (this.appliedView.split(',').includes(holder) && !this.lost.has(holder)) {
        this.lost.set(holder, at);
        this.log.info('a member\'s shard lease expired; its share goes to the others', { lostMember: holder, lease: `${this.namespace}/${name}` });
      }
    }
    for (const name of this.observed.keys()) if (!seen.has(name)) this.observed.delete(name);
    return members.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Creates or renews our Lease, carrying our acknowledged ring; false when it failed this round. */
  private async renew(signal: AbortSignal): Promise<boolean> {
    const now = microTime(new Date());
    const sentAt = performance.now();
    // A controller of its own per attempt, unhooked after it: AbortSignal.any would leave one
    // listener per renew on the long-lived `signal` until garbage collection.
    const scope = new AbortController();
    const attempt = scope.signal;
    const onAbort = () => scope.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const deadline = setTimer(() => scope.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), this.renewDeadlineMs);
    const annotations = { [viewAnnotation]: viewHash(this.appliedView) };
    const spec = { holderIdentity: this.identity, leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000), renewTime: now, acquireTime: this.lease?.spec?.acquireTime ?? now };
    try {
      if (!this.lease) {
        this.lease = await this.transport.request<Lease>('POST', this.leasesPath(), {
          body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.leaseName, namespace: this.namespace, labels: { [ringLabel]: this.ring }, annotations }, spec },
          signal: attempt,
          context: 'create shard lease',
        });
      } else {
        const body: Lease = { ...this.lease, metadata: { ...this.lease.metadata, annotations: { ...this.lease.metadata?.annotations, ...annotations } }, spec };
        this.lease = await this.transport.request<Lease>('PUT', `${this.leasesPath()}/${this.leaseName}`, { body, signal: attempt, context: 'renew shard lease' });
      }
      this.renewedAt = sentAt;
      return true;
    } catch (err) {
      if (signal.aborted) return false;
      // Someone else wrote our Lease (deleted as expired, say): another replica may own our share by now.
      if (isConflict(err) || (isNotFound(err) && this.lease)) throw new Error(`sharding: the shard lease ${this.namespace}/${this.leaseName} was changed by someone else; stopping`);
      this.log.error('failed to renew the shard lease', err, { sinceLastRenewMs: Math.round(performance.now() - this.renewedAt) });
      return false;
    } finally {
      deadline.clear();
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async listLeases(signal: AbortSignal): Promise<Lease[]> {
    const list = await this.transport.request<KubeList<Lease>>('GET', this.leasesPath(), { query: { labelSelector: `${ringLabel}=${this.ring}` }, signal, context: 'list shard leases' });
    return list.items ?? [];
  }

  /** Leases expired for three lease durations are deleted (their holders stopped writing long ago). */
  private async collectExpired(leases: Lease[], signal: AbortSignal): Promise<void> {
    const now = performance.now();
    for (const lease of leases) {
      const name = lease.metadata?.name ?? '';
      const at = this.observed.get(name)?.at ?? now;
      if (name === this.leaseName || at + 3 * (lease.spec?.leaseDurationSeconds ?? 0) * 1000 > now) continue;
      try {
        await this.transport.request('DELETE', `${this.leasesPath()}/${name}`, { body: { preconditions: { resourceVersion: lease.metadata?.resourceVersion } }, signal, context: 'delete expired shard lease' });
        this.log.info('deleted an expired shard lease', { lease: `${this.namespace}/${name}` });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err) && !signal.aborted) this.log.error('failed to delete an expired shard lease', err);
      }
    }
  }

  /**
   * Server-side shard selection when the API server answers a list with metadata.shardInfo (the
   * ShardedListAndWatch gate of Kubernetes 1.36 is on); else this replica filters what it lists.
   */
  private async detectMode(signal: AbortSignal): Promise<void> {
    if (this.mode !== 'auto') {
      this.serverSide = this.mode === 'server';
    } else {
      // Asked of Leases, which we may list anyway: a built-in list echoes metadata.shardInfo, while a
      // custom resource list (kube-apiserver 1.36.3) filters by the selector but echoes nothing.
      try {
        const list = await this.transport.request<KubeList<KubeObject> & { metadata?: { shardInfo?: unknown } }>('GET', this.leasesPath(), {
          query: { limit: 1, shardSelector: shardSelector([{ start: 0n, end: 1n << 63n }]) },
          signal,
          context: 'check for server-side shard selection',
        });
        this.serverSide = list.metadata?.shardInfo !== undefined;
      } catch (err) {
        if (signal.aborted) return;
        this.log.info('the API server refused a shard selector; filtering on this side', { error: err instanceof Error ? err.message : String(err) });
        this.serverSide = false;
      }
    }
    this.metrics.serverSide(this.serverSide);
  }

  private leasesPath(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`;
  }

  private countOwned(): void {
    for (const kind of this.kinds.values()) this.metrics.owned(kind.kind, this.cache?.informerFor(kind).store.list().length ?? 0);
  }
}

function viewHash(view: string): string {
  return createHash('sha256').update(view).digest('hex').slice(0, 16);
}

/** <hostname>-<8 hex>: the pod name in a cluster, made unique per process (a restarted replica is a new member). */
function defaultIdentity(): string {
  const host = hostname().toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'replica';
  return `${host}-${randomBytes(4).toString('hex')}`;
}

interface ShardingMetrics {
  members(n: number): void;
  owned(kind: string, n: number): void;
  active(on: boolean): void;
  changes(): void;
  handovers(direction: 'in' | 'out', n: number): void;
  takeover(seconds: number): void;
  serverSide(on: boolean): void;
}

function shardingMetrics(m: RuntimeMetrics, ring: string): ShardingMetrics {
  const r = m.registry;
  const members = r.gauge({ name: 'opgen_sharding_ring_members', help: 'Members of the shard ring as this replica applied it.', labelNames: ['ring'] });
  const owned = r.gauge({ name: 'opgen_sharding_objects_owned', help: 'Objects of each sharded kind this replica owns (caches and reconciles).', labelNames: ['ring', 'kind'] });
  const active = r.gauge({ name: 'opgen_sharding_active', help: '1 while this replica reconciles its share (every member acknowledged the ring), 0 during a handover.', labelNames: ['ring'] });
  const changes = r.counter({ name: 'opgen_sharding_ring_changes_total', help: 'Ring changes this replica applied.', labelNames: ['ring'] });
  const handovers = r.counter({ name: 'opgen_sharding_handovers_total', help: 'Objects that moved to (in) or away from (out) this replica on ring changes.', labelNames: ['ring', 'direction'] });
  const takeover = r.gauge({ name: 'opgen_sharding_takeover_seconds', help: 'From a lost member\'s last renew to this replica reconciling again without it (last takeover).', labelNames: ['ring'] });
  const server = r.gauge({ name: 'opgen_sharding_server_side', help: '1 when the API server filters lists and watches by shard selector (KEP-5866), 0 when this replica filters.', labelNames: ['ring'] });
  return {
    members: (n) => members.set({ ring }, n),
    owned: (kind, n) => owned.set({ ring, kind }, n),
    active: (on) => active.set({ ring }, on ? 1 : 0),
    changes: () => changes.inc({ ring }),
    handovers: (direction, n) => handovers.inc({ ring, direction }, n),
    takeover: (s) => takeover.set({ ring }, s),
    serverSide: (on) => server.set({ ring }, on ? 1 : 0),
  };
}

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
//
// Mode 'label' (no server-side selector, leader election on): ownership is a label instead. The
// leader's sharder (sharder.ts) labels each object with its member; a replica's informers select
// that label, it reconciles an object only while the object carries its label and no drain label, and
// it acknowledges a drain by removing both once its reconcile of the object has ended. No ring barrier
// is needed there: the label is the lock.
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
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { Result, type Reconciler } from '../reconcile/index.js';
import { resourcePath, Transport } from '../transport/index.js';
import type { Runnable } from '../manager/runnable.js';
import { fnv1a64, HashRing, shardSelector, defaultVirtualNodes, type HashRange } from './ring.js';
import { ShardFencedError } from './errors.js';
import { Sharder } from './sharder.js';
import { objectKey } from '../cache/store.js';

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
   * 'auto' picks 'label' instead of 'client' when the manager runs leader election: the leader labels
   * each object with its replica (sharding.opgen.dev/shard-<ring>) and replicas select their label.
   * 'label' needs leaderElection.
   */
  mode?: 'auto' | 'server' | 'client' | 'label';
  /**
   * Called synchronously whenever this replica starts or stops being allowed to reconcile a part of
   * the objects (audit, tests): a ring span in the 'server'/'client' modes, an object span in 'label'.
   */
  onOwnership?: (e: OwnershipEvent) => void;
}

/**
 * When a replica may reconcile what: `ring` spans (it reconciles the objects its arcs of `members`
 * cover, from 'start' until 'end'), or `object` spans in label mode (one object, by uid). `at` is ms
 * since the epoch.
 */
export type OwnershipEvent =
  | { span: 'ring'; member: string; phase: 'start' | 'end'; members: string[]; virtualNodes: number; at: number }
  | { span: 'object'; member: string; phase: 'start' | 'end'; kind: string; key: string; uid: string; at: number };

export const ringLabel = 'sharding.opgen.dev/ring';
export const viewAnnotation = 'sharding.opgen.dev/ring-view';
/** Label mode: the owner replica of an object (and of the objects it controls), and the drain request. */
export const shardLabelOf = (ring: string) => `sharding.opgen.dev/shard-${ring}`;
export const drainLabelOf = (ring: string) => `sharding.opgen.dev/drain-${ring}`;

interface Observed {
  spec: string;
  at: number;
  /** When its holder counts as gone unless it changes again (at + its leaseDurationSeconds). */
  expires: number;
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
  /** Whether the manager elects a leader (the sharder of label mode runs there). */
  leaderElection?: boolean;
  /** The namespaces the manager's cache watches (the sharder watches the same). */
  namespaces?: string[];
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
  /** Kinds controllers own, with the for-kinds owning them (label mode shards them by their owner's label). */
  private readonly owned = new Map<string, { kind: ResourceKind; owners: ResourceKind[] }>();
  private cache?: Cache;
  /** The manager's transport (its fences apply): label writes go through it. */
  private writer?: Transport;
  readonly shardLabel: string;
  readonly drainLabel: string;
  private labelMode = false;
  private modeKnown!: () => void;
  private readonly modeDecided = new Promise<void>((resolve) => (this.modeKnown = resolve));
  private sharder?: Sharder;
  private readonly onOwnership?: (e: OwnershipEvent) => void;
  private ringSpan = false;
  /** Label mode: objects this replica may reconcile now, by "<kindKey>|<ns>/<name>", with what their end event names. */
  private readonly objectSpans = new Map<string, { kind: string; key: string; uid: string }>();
  private readonly releasing = new Set<string>();
  private acking = 0;
  private readonly ackSlot: (() => void)[] = [];
  private readonly keysInFlight = new Map<string, number>();
  private readonly keyIdle = new Map<string, (() => void)[]>();

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
    // The Lease requests themselves are fenced too: after a stop (SIGSTOP, a blocked event loop) past
    // renewDeadline, a renew sent now would make our stale view of the ring live again.
    this.transport = new Transport(ctx.kubeConfig, { requestTimeoutMs: Math.max(1000, this.renewDeadlineMs), guard: () => this.guard() });
    this.log = ctx.log.child({ logger: 'sharding', ring: this.ring, member: this.identity });
    this.metrics = shardingMetrics(ctx.metrics, this.ring);
    this.mode = opts.mode ?? 'auto';
    this.onOwnership = opts.onOwnership;
    this.shardLabel = shardLabelOf(this.ring);
    this.drainLabel = drainLabelOf(this.ring);
    this.leaderElection = ctx.leaderElection === true;
    this.namespaces = ctx.namespaces;
    if (this.mode === 'label' && !this.leaderElection) throw new Error("sharding: mode 'label' needs leaderElection (the sharder labels objects from the leader); set leaderElection: true and leaderElectionID, or use mode 'client'");
    if (this.mode !== 'server' && this.mode !== 'client' && this.leaderElection && `shard-${this.ring}`.length > 63) throw new Error(`sharding: ring name "${this.ring}" is too long for the label key sharding.opgen.dev/shard-<ring> (at most 57 characters); set sharding.name`);
    this.metricsRef = ctx.metrics;
  }

  private readonly mode: 'auto' | 'server' | 'client' | 'label';
  private readonly leaderElection: boolean;
  private readonly namespaces?: string[];
  private readonly metricsRef: RuntimeMetrics;

  /** A kind a controller is for: only its objects are split between replicas. */
  addKind(kind: ResourceKind): void {
    this.kinds.set(kindKey(kind), kind);
  }

  /** A kind a controller of `owner` owns: in label mode its objects follow their owner's shard label. */
  addOwned(owner: ResourceKind, kind: ResourceKind): void {
    const k = kindKey(kind);
    if (this.kinds.has(k)) return;
    const entry = this.owned.get(k) ?? { kind, owners: [] };
    if (!entry.owners.some((o) => kindKey(o) === kindKey(owner))) entry.owners.push(owner);
    this.owned.set(k, entry);
  }

  attach(cache: Cache, writer?: Transport): void {
    this.cache = cache;
    this.writer = writer;
  }

  /** The cache hook (CacheOptions.shardFor): this replica's shard selector and filter for sharded (and, in label mode, owned) kinds. */
  shardFor(kind: ResourceKind): InformerOptions['shard'] {
    const k = kindKey(kind);
    const mine = () => `${this.shardLabel}=${this.identity}`;
    const labelled = (obj: KubeObject) => obj.metadata?.labels?.[this.shardLabel] === this.identity;
    if (this.owned.has(k)) {
      // Before the mode is known (auto), the whole kind, as without sharding; relisted once it is.
      return { selector: () => undefined, labelSelector: () => (this.labelMode ? mine() : undefined), accepts: (obj) => !this.labelMode || labelled(obj) };
    }
    if (!this.kinds.has(k)) return undefined;
    return {
      selector: () => (this.serverSide ? shardSelector(this.myRanges) : undefined),
      labelSelector: () => (this.labelMode ? mine() : undefined),
      accepts: (obj) => (this.labelMode ? labelled(obj) : this.owns(obj, this.applied)),
    };
  }

  /** The sharder, a leader-only runnable: it labels objects in label mode, and ends at once otherwise. */
  sharderRunnable(): Runnable {
    return {
      needLeaderElection: true,
      start: async (signal) => {
        await Promise.race([this.modeDecided, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
        if (!this.labelMode || signal.aborted || !this.writer) return;
        const written = this.metricsRef.registry.counter({ name: 'opgen_sharding_labels_written_total', help: 'Shard and drain labels the sharder (leader, label mode) wrote on objects, by kind and reason (assign, drain, reassign, owned).', labelNames: ['ring', 'kind', 'reason'] });
        this.sharder = new Sharder(
          {
            shardLabel: this.shardLabel,
            drainLabel: this.drainLabel,
            ringView: () => (this.appliedView.split(',').includes(this.identity) ? this.applied : undefined),
            kinds: this.kinds,
            owned: this.owned,
            namespaces: this.namespaces,
            written: (kind, reason) => written.inc({ ring: this.ring, kind, reason }),
          },
          this.writer,
          this.log.child({ logger: 'sharder' }),
        );
        try {
          await this.sharder.run(signal);
        } finally {
          this.sharder = undefined;
        }
      },
    };
  }

  /**
   * An error once this replica may no longer write as a ring member: renewDeadline has passed on the
   * monotonic clock since the last successful renew was sent (for good from then on). Checked
   * synchronously before each request goes on the wire, so it holds whatever ran first after the
   * process resumed (a timer, a watch event), and the renew itself is refused.
   */
  guard(): Error | undefined {
    if (!this.fenced && this.renewedAt > -Infinity && performance.now() >= this.renewedAt + this.renewDeadlineMs) this.fenced = true;
    return this.fenced ? new ShardFencedError(`${this.namespace}/${this.leaseName}`, `sharding: the shard lease ${this.namespace}/${this.leaseName} was not renewed within renewDeadline (${this.renewDeadlineMs} ms); nothing more is sent`) : undefined;
  }

  /**
   * The reconciler hook: reconciles only objects of this replica's share, and only while the ring is
   * settled (label mode: only while the object carries this replica's label and no drain label).
   */
  wrap(kind: ResourceKind, inner: Reconciler): Reconciler {
    const k = kindKey(kind);
    if (!this.kinds.has(k)) return inner;
    return {
      reconcile: async (req, ctx) => {
        const fence = this.guard();
        if (fence) throw fence;
        const obj = this.cache?.informerFor(kind).store.get(kind.namespaced ? req.namespace : undefined, req.name);
        if (this.labelMode) {
          // Not labelled for us, or being drained (we acknowledge once no reconcile of it runs).
          if (!obj || !this.objectSpans.has(`${k}|${objectKey(obj)}`) || obj.metadata?.labels?.[this.drainLabel]) return Result.done();
        } else {
          if (!this.active) return Result.requeueAfter(this.retryPeriodMs);
          // Not in this replica's cache: another replica's object, or deleted (finalizers see deletions).
          if (!obj || !this.owns(obj, this.applied)) return Result.done();
        }
        const key = `${k}|${objectKey(obj)}`;
        this.inFlight++;
        this.keysInFlight.set(key, (this.keysInFlight.get(key) ?? 0) + 1);
        try {
          return await inner.reconcile(req, ctx);
        } finally {
          const left = this.keysInFlight.get(key)! - 1;
          if (left > 0) this.keysInFlight.set(key, left);
          else {
            this.keysInFlight.delete(key);
            for (const wake of this.keyIdle.get(key)?.splice(0) ?? []) wake();
            this.keyIdle.delete(key);
          }
          if (--this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
        }
      },
    };
  }

  /** Label mode: this replica's informer saw `obj` labelled for it; a drain label is acknowledged once its reconcile ended. */
  private labelled(kind: ResourceKind, obj: KubeObject): void {
    const key = `${kindKey(kind)}|${objectKey(obj)}`;
    const labels = obj.metadata?.labels ?? {};
    if (labels[this.shardLabel] !== this.identity) return this.endObjectSpan(key);
    if (labels[this.drainLabel]) {
      void this.release(kind, key, obj);
    } else if (!this.objectSpans.has(key)) {
      const span = { kind: kind.kind, key: objectKey(obj), uid: obj.metadata?.uid ?? '' };
      this.objectSpans.set(key, span);
      this.onOwnership?.({ span: 'object', member: this.identity, phase: 'start', ...span, at: epochNow() });
    }
  }

  private endObjectSpan(key: string): void {
    const span = this.objectSpans.get(key);
    if (!span) return;
    this.objectSpans.delete(key);
    this.onOwnership?.({ span: 'object', member: this.identity, phase: 'end', ...span, at: epochNow() });
  }

  /** Acknowledges a drain: once no reconcile of the object runs, removes our shard label and the drain label (only if the label is still ours). */
  private async release(kind: ResourceKind, key: string, obj: KubeObject): Promise<void> {
    if (this.releasing.has(key)) return;
    this.releasing.add(key);
    try {
      if (this.keysInFlight.has(key)) await new Promise<void>((resolve) => this.keyIdle.set(key, [...(this.keyIdle.get(key) ?? []), resolve]));
      this.endObjectSpan(key);
      // A few acknowledgements at a time, as the sharder writes: a drain can ask for many at once.
      while (this.acking >= 8) await new Promise<void>((resolve) => this.ackSlot.push(resolve));
      this.acking++;
      try {
        await this.acknowledge(kind, obj);
      } finally {
        this.acking--;
        this.ackSlot.shift()?.();
      }
    } finally {
      this.releasing.delete(key);
    }
  }

  /** The acknowledgement: one JSON patch that tests the shard label is still ours, then removes it and the drain label. */
  private async acknowledge(kind: ResourceKind, obj: KubeObject): Promise<void> {
    const esc = (label: string) => `/metadata/labels/${label.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    for (let attempt = 0; !this.stopLoop.signal.aborted && this.writer; attempt++) {
      try {
        await this.writer.request('PATCH', resourcePath(kind, obj.metadata?.namespace, obj.metadata?.name), {
          body: [{ op: 'test', path: esc(this.shardLabel), value: this.identity }, { op: 'remove', path: esc(this.shardLabel) }, { op: 'remove', path: esc(this.drainLabel) }],
          contentType: 'application/json-patch+json',
          context: `release ${kind.plural} ${objectKey(obj)} from shard ${this.identity}`,
        });
        this.metrics.handovers('out', 1);
        return;
      } catch (err) {
        // 404: deleted; 409/422: no longer labelled for us (a failed test) - nothing to acknowledge.
        const code = (err as { code?: number }).code;
        if (isNotFound(err) || isConflict(err) || code === 422 || this.guard()) return;
        if (attempt === 0) this.log.error('failed to acknowledge a drain; trying again', err, { object: objectKey(obj) });
        await sleep(this.retryPeriodMs, this.stopLoop.signal);
      }
    }
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
    // The manager drained its reconciles before: nothing of ours runs from here on.
    this.endRingSpan();
    for (const [key, span] of [...this.objectSpans]) {
      this.objectSpans.delete(key);
      this.onOwnership?.({ span: 'object', member: this.identity, phase: 'end', ...span, at: epochNow() });
    }
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
    this.log.info('joining the ring', { lease: `${this.namespace}/${this.leaseName}`, mode: this.serverSide ? 'server-side shard selector' : this.labelMode ? 'labels written by the leader\'s sharder' : 'client-side filter' });
    if (this.labelMode) {
      this.log.info('label mode: the leader writes the labels sharding.opgen.dev/shard-<ring> and drain-<ring> on objects of the sharded and owned kinds', {
        label: this.shardLabel, kinds: [...this.kinds.values(), ...[...this.owned.values()].map((o) => o.kind)].map((k) => k.kind).join(','),
      });
      for (const kind of this.kinds.values()) {
        this.cache?.informerFor(kind).addEventHandler({
          onAdd: (o) => this.labelled(kind, o),
          onUpdate: (_, o) => this.labelled(kind, o),
          onDelete: (o) => this.endObjectSpan(`${kindKey(kind)}|${objectKey(o)}`),
        });
      }
    }
    while (!signal.aborted) {
      await this.tick(signal);
      if (this.guard()) throw this.guard()!;
      await sleep(this.untilNextTick(), signal);
    }
  }

  /**
   * The next round: after retryPeriod, sooner when a member's Lease expires before that (its share is
   * taken over from that moment, not up to a retryPeriod later), and every quarter retryPeriod while
   * waiting for the others' acknowledgements (the barrier lifts as soon as the last one is seen).
   */
  private untilNextTick(): number {
    const now = performance.now();
    let wait = this.active || this.labelMode ? this.retryPeriodMs : this.retryPeriodMs / 4;
    for (const [name, o] of this.observed) if (name !== this.leaseName && o.expires > now) wait = Math.min(wait, o.expires - now + 1);
    return wait;
  }

  /** One round: renew our Lease, read the ring, apply a changed ring, and settle whether we may reconcile. */
  private async tick(signal: AbortSignal): Promise<void> {
    // Rounds can come faster than retryPeriod (untilNextTick); the Lease is renewed about every retryPeriod.
    if (performance.now() - this.renewedAt >= this.retryPeriodMs * 0.75 && !(await this.renew(signal))) return;
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
    // Label mode has no ring barrier (the labels are the lock): a member may reconcile at once.
    const ack = viewHash(this.appliedView);
    const settled = members.some((m) => m.name === this.identity) && (this.labelMode || members.every((m) => m.name === this.identity || m.view === ack));
    if (settled && !this.labelMode && !this.ringSpan) {
      this.ringSpan = true;
      this.onOwnership?.({ span: 'ring', member: this.identity, phase: 'start', members: this.applied.members.slice(), virtualNodes: this.virtualNodes, at: epochNow() });
    }
    if (settled !== this.active) {
      this.active = settled;
      this.metrics.active(settled);
      const waiting = this.labelMode ? 'not a member of the ring' : 'waiting for every member to acknowledge the ring';
      this.log.info(settled ? 'ring settled: reconciling this replica\'s share' : waiting, { members: this.appliedView });
    }
    if (settled && this.lost.size > 0) {
      const now = performance.now();
      for (const [member, lastSeen] of this.lost) {
        const seconds = (now - lastSeen) / 1000;
        const secondsSinceItsLastRenew = Math.round(seconds * 10) / 10;
        // Label mode: the ring without it is what the sharder relabels its objects by, from now on.
        if (this.labelMode) {
          this.log.info('a lost member left the ring; the leader\'s sharder relabels its objects', { lostMember: member, secondsSinceItsLastRenew });
          continue;
        }
        this.metrics.takeover(seconds);
        this.log.info('a lost member\'s objects are owned again', { lostMember: member, secondsSinceItsLastRenew });
      }
      this.lost.clear();
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
    const first = this.appliedView === '';
    // Label mode: the labels are the lock, so the ring is applied without pausing (the sharder in the
    // leader reads it).
    if (!this.labelMode) {
      this.active = false;
      this.metrics.active(false);
      if (this.inFlight > 0) await this.renewing(new Promise<void>((resolve) => this.idle.push(resolve)), signal);
      this.endRingSpan();
    }
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
    this.sharder?.ringChanged();
    // Lists with the new selector (or filter); objects that left the share go as deletes, new ones come
    // as adds. Label mode: the selector never changes, so only the first list after the mode is known.
    if (!this.labelMode || first) {
      const relisted = [...this.kinds.values(), ...(this.labelMode ? [...this.owned.values()].map((o) => o.kind) : [])];
      await this.renewing(Promise.all(relisted.map((kind) => this.cache?.informerFor(kind).relist())), signal);
    }
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
      if (!prev || prev.spec !== spec) this.observed.set(name, { spec, at: now, expires: now + (lease.spec?.leaseDurationSeconds ?? 0) * 1000 });
      const holder = lease.spec?.holderIdentity ?? '';
      if (!holder) continue;
      const { at, expires } = this.observed.get(name)!;
      const valid = name === this.leaseName || expires > now;
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
    // No longer than the deadline left: an answer after it would not count anyway.
    const left = this.lease ? this.renewedAt + this.renewDeadlineMs - sentAt : this.renewDeadlineMs;
    const deadline = setTimer(() => scope.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), Math.max(1, left));
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
      // Answered after the deadline: the others may have dropped us meanwhile, so this renew does not
      // count (guard() fences for good before renewedAt moves).
      const late = this.guard();
      if (late) throw late;
      this.renewedAt = sentAt;
      return true;
    } catch (err) {
      if (signal.aborted) return false;
      const fence = this.guard();
      if (fence) throw fence;
      // Someone else wrote our Lease (deleted as expired, say): another replica may own our share by now.
      if (isConflict(err) || (isNotFound(err) && this.lease)) throw new ShardFencedError(`${this.namespace}/${this.leaseName}`, `sharding: the shard lease ${this.namespace}/${this.leaseName} was changed by someone else; stopping`);
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
      this.labelMode = this.mode === 'label';
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
      this.labelMode = !this.serverSide && this.leaderElection;
    }
    this.metrics.serverSide(this.serverSide);
    this.metrics.labelMode(this.labelMode);
    this.modeKnown();
  }

  private endRingSpan(): void {
    if (!this.ringSpan) return;
    this.ringSpan = false;
    this.onOwnership?.({ span: 'ring', member: this.identity, phase: 'end', members: this.applied.members.slice(), virtualNodes: this.virtualNodes, at: epochNow() });
  }

  private leasesPath(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`;
  }

  private countOwned(): void {
    for (const kind of this.kinds.values()) this.metrics.owned(kind.kind, this.cache?.informerFor(kind).store.list().length ?? 0);
    // Label mode: the owned kinds' caches hold only the objects of this replica's owners.
    if (this.labelMode) for (const { kind } of this.owned.values()) this.metrics.owned(kind.kind, this.cache?.informerFor(kind).store.list().length ?? 0);
  }
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
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
  labelMode(on: boolean): void;
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
  const label = r.gauge({ name: 'opgen_sharding_label_mode', help: '1 when the leader labels objects with their shard and replicas select their label (label mode), else 0.', labelNames: ['ring'] });
  return {
    members: (n) => members.set({ ring }, n),
    owned: (kind, n) => owned.set({ ring, kind }, n),
    active: (on) => active.set({ ring }, on ? 1 : 0),
    changes: () => changes.inc({ ring }),
    handovers: (direction, n) => handovers.inc({ ring, direction }, n),
    takeover: (s) => takeover.set({ ring }, s),
    serverSide: (on) => server.set({ ring }, on ? 1 : 0),
    labelMode: (on) => label.set({ ring }, on ? 1 : 0),
  };
}

// The labelling sharder (mode 'label', docs/sharding.md), after timebertt/kubernetes-controller-sharding:
// it runs in the leader only, watches every object of the sharded kinds (and of the kinds they own),
// and writes each object's owner into a label, sharding.opgen.dev/shard-<ring>: <member>. Replicas
// list and watch with a label selector for their own member, so the API server sends each only its
// share.
//
// Handover never has two owners: the label is the lock. An object whose owner is still live but no
// longer its ring owner gets a drain label; the old owner stops, waits for its reconcile of the object,
// and removes both labels (its acknowledgement, sharding.ts). Only an unlabelled object, or one whose
// owner's Lease expired (it stopped writing after renewDeadline, before that), is given a new owner.
// Owned objects (by their controller ownerReference) carry their owner's label, moved before the owner's.
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import { kindKey } from '../cache/cache.js';
import { objectKey } from '../cache/store.js';
import { Informer } from '../cache/informer.js';
import { isConflict, isNotFound } from '../client/errors.js';
import { getControllerOf, groupOf } from '../helpers/owner-references.js';
import type { Logger } from '../log/index.js';
import type { Transport } from '../transport/index.js';
import { resourcePath } from '../transport/index.js';
import { setTimer } from '../internal/timers/index.js';
import { fnv1a64, type HashRing } from './ring.js';

/** Why the sharder wrote a label (the reason label of opgen_sharding_labels_written_total). */
export type ShardLabelReason = 'assign' | 'drain' | 'reassign' | 'owned';

/** What the sharder needs from its replica's Sharding. */
export interface SharderHost {
  readonly shardLabel: string;
  readonly drainLabel: string;
  /** The ring as this replica applied it, or undefined before its first; `live` are its members. */
  ringView(): HashRing | undefined;
  /** The kinds controllers are for, and for each owned kind the for-kinds that own it. */
  readonly kinds: ReadonlyMap<string, ResourceKind>;
  readonly owned: ReadonlyMap<string, { kind: ResourceKind; owners: ResourceKind[] }>;
  readonly namespaces?: string[];
  written(kind: string, reason: ShardLabelReason): void;
}

/** Only what the sharder reads: the cost of its watch is the objects' transfer, not their memory. */
function metadataOnly(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, labels: m.labels, ownerReferences: m.ownerReferences } };
}

export class Sharder {
  private readonly informers = new Map<string, Informer>();
  /** Owner uid → keys ("<kindKey>|<ns>/<name>") of the objects it controls. */
  private readonly children = new Map<string, Set<string>>();
  private readonly queue = new Set<string>();
  private wake?: () => void;
  private readonly counts: Record<ShardLabelReason, number> = { assign: 0, drain: 0, reassign: 0, owned: 0 };

  constructor(
    private readonly host: SharderHost,
    private readonly transport: Transport,
    private readonly log: Logger,
  ) {}

  /** Called on every ring change this replica applies: every sharded object is looked at again. */
  ringChanged(): void {
    for (const [k, inf] of this.informers) if (this.host.kinds.has(k)) for (const obj of inf.store.list()) this.enqueue(k, obj);
  }

  async run(signal: AbortSignal): Promise<void> {
    const watched = [...this.host.kinds.values(), ...[...this.host.owned.values()].map((o) => o.kind)];
    for (const kind of watched) {
      const k = kindKey(kind);
      if (this.informers.has(k)) continue;
      const inf = new Informer(this.transport, kind, { namespaces: this.host.namespaces, log: this.log.child({ kind: kind.kind }), transform: metadataOnly });
      this.informers.set(k, inf);
      const owner = this.host.kinds.has(k);
      inf.addEventHandler({
        onAdd: (o) => this.observe(k, owner, undefined, o),
        onUpdate: (old, o) => this.observe(k, owner, old, o),
        onDelete: (o) => this.forget(k, owner, o),
      });
      void inf.start(signal);
    }
    this.log.info('sharder started: labelling objects with their shard', { label: this.host.shardLabel, kinds: watched.map((k) => k.kind).join(',') });
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    this.ringChanged();
    // One listener for the whole run (not one per wait on the long-lived signal).
    const onAbort = () => this.wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.work(signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async work(signal: AbortSignal): Promise<void> {
    let lastLog = performance.now();
    while (!signal.aborted) {
      if (this.queue.size === 0 || !this.host.ringView()) {
        // Woken by an event (or the stop); also looks again now and then, in case the ring is not applied yet.
        await new Promise<void>((resolve) => {
          const timer = setTimer(resolve, 1000);
          this.wake = () => (timer.clear(), resolve());
        });
        this.wake = undefined;
        continue;
      }
      // A few writes at a time: a flood of patches slows the API server for everyone, shard and
      // leader Lease renewals included.
      const batch = [...this.queue].slice(0, 8);
      for (const key of batch) this.queue.delete(key);
      await Promise.all(batch.map((key) => this.process(key, signal).catch((err: unknown) => this.failed(key, err, signal))));
      if (this.queue.size === 0 || performance.now() - lastLog > 10_000) {
        if (Object.values(this.counts).some((n) => n > 0)) this.log.info('sharder wrote shard labels', { ...this.counts, pending: this.queue.size });
        for (const r of Object.keys(this.counts) as ShardLabelReason[]) this.counts[r] = 0;
        lastLog = performance.now();
      }
    }
  }

  private observe(k: string, owner: boolean, old: KubeObject | undefined, obj: KubeObject): void {
    if (!owner) {
      const before = old && getControllerOf(old)?.uid;
      const after = getControllerOf(obj)?.uid;
      const key = `${k}|${objectKey(obj)}`;
      if (before && before !== after) this.children.get(before)?.delete(key);
      if (after) this.children.set(after, (this.children.get(after) ?? new Set()).add(key));
    }
    this.enqueue(k, obj);
  }

  private forget(k: string, owner: boolean, obj: KubeObject): void {
    const uid = owner ? obj.metadata?.uid : getControllerOf(obj)?.uid;
    if (!uid) return;
    if (owner) this.children.delete(uid);
    else this.children.get(uid)?.delete(`${k}|${objectKey(obj)}`);
  }

  private enqueue(k: string, obj: KubeObject): void {
    this.queue.add(`${k}|${objectKey(obj)}`);
    // An owner's label moves its children's.
    if (this.host.kinds.has(k)) for (const child of this.children.get(obj.metadata?.uid ?? '') ?? []) this.queue.add(child);
    this.wake?.();
  }

  private lookup(key: string): { k: string; obj?: KubeObject } {
    const bar = key.indexOf('|');
    const k = key.slice(0, bar);
    const objKey = key.slice(bar + 1);
    const slash = objKey.indexOf('/');
    const store = this.informers.get(k)?.store;
    return { k, obj: slash >= 0 ? store?.get(objKey.slice(0, slash), objKey.slice(slash + 1)) : store?.get(undefined, objKey) };
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    const ring = this.host.ringView();
    const { k, obj } = this.lookup(key);
    if (!ring || !obj || signal.aborted) return;
    const labels = obj.metadata?.labels ?? {};
    if (!this.host.kinds.has(k)) {
      // An owned object: its controller owner's label, once the owner has one.
      const want = this.ownerLabel(k, obj);
      if (want && labels[this.host.shardLabel] !== want) await this.label(k, obj, want, false, 'owned', signal);
      return;
    }
    const uid = obj.metadata?.uid;
    const desired = uid ? ring.ownerOf(fnv1a64(uid)) : undefined;
    const current = labels[this.host.shardLabel];
    if (!desired) return;
    if (!current) {
      await this.moveChildren(obj, desired, signal);
      await this.label(k, obj, desired, false, 'assign', signal);
    } else if (current === desired) {
      // Draining away and back: the owner acknowledges first, then it is assigned again.
      if (!labels[this.host.drainLabel]) await this.moveChildren(obj, desired, signal);
    } else if (ring.members.includes(current)) {
      if (!labels[this.host.drainLabel]) await this.label(k, obj, current, true, 'drain', signal);
    } else {
      // Its owner's Lease expired: it stopped writing (renewDeadline) before the ring dropped it.
      await this.moveChildren(obj, desired, signal);
      await this.label(k, obj, desired, false, 'reassign', signal);
    }
  }

  /** The shard label of `obj`'s controller owner when that owner is of a kind that owns `k`. */
  private ownerLabel(k: string, obj: KubeObject): string | undefined {
    const ref = getControllerOf(obj);
    if (!ref) return undefined;
    const ownerKind = this.host.owned.get(k)?.owners.find((o) => o.kind === ref.kind && o.group === groupOf(ref.apiVersion));
    if (!ownerKind) return undefined;
    const owner = this.informers.get(kindKey(ownerKind))?.store.get(ownerKind.namespaced ? obj.metadata?.namespace : undefined, ref.name);
    return owner?.metadata?.uid === ref.uid ? owner?.metadata?.labels?.[this.host.shardLabel] : undefined;
  }

  /** Labels an owner's children for `member` before the owner, so the new owner's caches hold them when it starts. */
  private async moveChildren(owner: KubeObject, member: string, signal: AbortSignal): Promise<void> {
    const keys = [...(this.children.get(owner.metadata?.uid ?? '') ?? [])];
    await Promise.all(
      keys.map(async (key) => {
        const { k, obj } = this.lookup(key);
        if (obj && obj.metadata?.labels?.[this.host.shardLabel] !== member) await this.label(k, obj, member, false, 'owned', signal).catch((err: unknown) => this.failed(key, err, signal));
      }),
    );
  }

  /**
   * A merge patch of the shard label (and the drain label: set with `drain`, else removed), made
   * conditional on the resourceVersion the sharder saw: a change since then is a conflict, and the
   * change's own event brings the object back.
   */
  private async label(k: string, obj: KubeObject, member: string, drain: boolean, reason: ShardLabelReason, signal: AbortSignal): Promise<void> {
    const kind = this.host.kinds.get(k) ?? this.host.owned.get(k)!.kind;
    const labels: Record<string, string | null> = { [this.host.shardLabel]: member };
    if (this.host.kinds.has(k)) labels[this.host.drainLabel] = drain ? 'true' : null;
    if (signal.aborted) return;
    // No signal of its own: the transport's deadline and the manager's hard stop bound it, and the loop stops between batches.
    await this.transport.request('PATCH', resourcePath(kind, obj.metadata?.namespace, obj.metadata?.name), {
      body: { metadata: { resourceVersion: obj.metadata?.resourceVersion, labels } },
      contentType: 'application/merge-patch+json',
      context: `label ${kind.plural} ${objectKey(obj)} for shard ${member}`,
    });
    this.counts[reason]++;
    this.host.written(kind.kind, reason);
  }

  private failed(key: string, err: unknown, signal: AbortSignal): void {
    if (signal.aborted || isConflict(err) || isNotFound(err)) return;
    this.log.error('failed to write a shard label; trying again', err, { object: key.slice(key.indexOf('|') + 1) });
    setTimer(() => {
      this.queue.add(key);
      this.wake?.();
    }, 1000);
  }
}

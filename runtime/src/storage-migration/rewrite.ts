// The client-side migration: every object listed in pages and written back unchanged, which the API
// server stores again in the current storage version. A merge patch that only repeats the object's
// resourceVersion changes nothing in the object, so the server encodes it anew and writes it only when
// the encoded bytes differ from etcd's (kube-apiserver 1.36 skips a write whose bytes are equal): an
// object stored in an older version is rewritten, one already in the storage version is left alone
// (its resourceVersion does not move), and the resourceVersion doubles as a precondition, so a
// concurrent writer's update is never overwritten.
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import type { Client } from '../client/client.js';
import { isConflict, isGone, isNotFound } from '../client/errors.js';

/** What a pass did to each object it listed. */
export interface PassCounts {
  /** Written again: it was stored in another version. */
  rewritten: number;
  /** Already in the storage version (the write was a no-op, or someone wrote it since the migration began). */
  current: number;
  /** Deleted between the listing and the write. */
  gone: number;
}

export interface PassOptions {
  kind: ResourceKind<KubeObject>;
  /** The list resourceVersion when the migration began: objects written after it are in the storage version. */
  since: bigint;
  pageSize: number;
  concurrency: number;
  /** The page to start at (a continue token of an interrupted run); expired tokens restart from the top. */
  continueFrom?: string;
  /** Objects known to be in the storage version at this resourceVersion (`ns/name@rv`), skipped; filled with those found so. */
  confirmed: Set<string>;
  signal?: AbortSignal;
  /** After each page: the token of the next (undefined at the end) and the counts so far. */
  onPage?: (next: string | undefined, counts: PassCounts, total: number | undefined) => void | Promise<void>;
}

const rv = (o: KubeObject): bigint => BigInt(o.metadata?.resourceVersion ?? '0');
const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}@${o.metadata?.resourceVersion ?? ''}`;

/** One listing of every object, each not yet known to be in the storage version written back unchanged. */
export async function rewritePass(client: Client, o: PassOptions): Promise<PassCounts> {
  const counts: PassCounts = { rewritten: 0, current: 0, gone: 0 };
  let token = o.continueFrom;
  let total: number | undefined;
  const list = async (cont: string | undefined): Promise<KubeList<KubeObject>> => {
    try {
      return await client.list(o.kind, { limit: o.pageSize, ...(cont === undefined ? {} : { continue: cont }), signal: o.signal });
    } catch (err) {
      // The token outlived etcd's compaction: start over; what is done is skipped by resourceVersion.
      if (cont !== undefined && isGone(err)) return list(undefined);
      throw err;
    }
  };
  let page = await list(token);
  for (;;) {
    const next = page.metadata?.continue || undefined;
    // The next page is fetched while this one is written.
    const fetching = next === undefined ? undefined : list(next);
    fetching?.catch(() => {});
    if (total === undefined && page.metadata?.remainingItemCount !== undefined) total = counts.rewritten + counts.current + counts.gone + page.items.length + Number(page.metadata.remainingItemCount);
    await eachLimited(page.items, o.concurrency, async (item) => {
      const outcome = await touch(client, o, item);
      counts[outcome]++;
    });
    token = next;
    await o.onPage?.(token, counts, total);
    if (fetching === undefined) return counts;
    page = await fetching;
  }
}

/** Writes one object back unchanged unless it is known to be in the storage version; conflicts re-read it. */
async function touch(client: Client, o: PassOptions, listed: KubeObject): Promise<keyof PassCounts> {
  let obj = listed;
  for (;;) {
    if (rv(obj) > o.since || o.confirmed.has(keyOf(obj))) return 'current';
    const key = { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' };
    try {
      const written = await client.patch(o.kind, key, { type: 'merge', body: { metadata: { resourceVersion: obj.metadata?.resourceVersion } } }, { signal: o.signal });
      if (written.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return 'rewritten';
      o.confirmed.add(keyOf(written));
      return 'current';
    } catch (err) {
      if (isNotFound(err)) return 'gone';
      if (!isConflict(err)) throw err;
      // Someone wrote it after the listing: read it again (its new resourceVersion is usually past `since`).
      try {
        obj = await client.get(o.kind, key, { signal: o.signal });
      } catch (e) {
        if (isNotFound(e)) return 'gone';
        throw e;
      }
    }
  }
}

/** `fn` over `items`, at most `limit` at a time; the first failure stops taking new items and is thrown. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

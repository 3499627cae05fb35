// The consistent-hash ring: each member places `virtualNodes` points (default 32) on the 64-bit circle, and an
// object belongs to the member of the first point at or after its hash (wrapping at 2^64). A member
// joining or leaving moves only the arcs next to its own points, about 1/N of the objects.
// Objects are placed by the 64-bit FNV-1a hash of their metadata.uid, the hash Kubernetes 1.36's
// server-side shard selector (KEP-5866) computes, so a member's arcs are exactly the shardRange()
// terms the API server filters by.

import { createHash } from 'node:crypto';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;
const FULL = 1n << 64n;

/** 64-bit FNV-1a of the UTF-8 bytes of `text` (k8s.io/apimachinery/pkg/sharding HashField). */
export function fnv1a64(text: string): bigint {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK;
  }
  return h;
}

/** A half-open hash range [start, end); end may be 2^64. */
export interface HashRange {
  start: bigint;
  end: bigint;
}

export const defaultVirtualNodes = 32;

/**
 * Where a member's i-th point sits: the first 8 bytes of sha256("<member>#<i>"). Members' names
 * differ in a few characters only, and FNV-1a of such near-identical short strings clusters on the
 * circle; sha256 spreads them (the points are ours alone, only objects need the server's hash).
 */
function pointOf(member: string, i: number): bigint {
  return createHash('sha256').update(`${member}#${i}`).digest().readBigUInt64BE(0);
}

export class HashRing {
  readonly members: readonly string[];
  /** Points sorted by position; ties (never seen in practice) broken by member name. */
  private readonly points: { at: bigint; member: string }[];

  constructor(members: Iterable<string>, readonly virtualNodes = defaultVirtualNodes) {
    this.members = [...new Set(members)].sort();
    this.points = this.members
      .flatMap((member) => Array.from({ length: virtualNodes }, (_, i) => ({ at: pointOf(member, i), member })))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.member < b.member ? -1 : 1));
  }

  /** The member owning `hash`; undefined on an empty ring. */
  ownerOf(hash: bigint): string | undefined {
    const pts = this.points;
    if (pts.length === 0) return undefined;
    let lo = 0;
    let hi = pts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pts[mid]!.at < hash) lo = mid + 1;
      else hi = mid;
    }
    return (pts[lo] ?? pts[0]!).member;
  }

  /** The ranges `member` owns, merged and sorted: point p with predecessor q owns (q, p]. */
  rangesOf(member: string): HashRange[] {
    const pts = this.points;
    const raw: HashRange[] = [];
    pts.forEach((p, i) => {
      if (p.member !== member) return;
      if (i === 0) {
        // The first point also takes the wrap-around arc after the last point.
        const last = pts[pts.length - 1]!.at;
        if (pts.length === 1 || last === p.at) raw.push({ start: 0n, end: FULL });
        else {
          raw.push({ start: 0n, end: p.at + 1n });
          raw.push({ start: last + 1n, end: FULL });
        }
      } else {
        raw.push({ start: pts[i - 1]!.at + 1n, end: p.at + 1n });
      }
    });
    raw.sort((a, b) => (a.start < b.start ? -1 : 1));
    const merged: HashRange[] = [];
    for (const r of raw) {
      const prev = merged[merged.length - 1];
      if (prev && prev.end >= r.start) prev.end = prev.end > r.end ? prev.end : r.end;
      else if (r.start < r.end) merged.push({ ...r });
    }
    return merged;
  }
}

/** `0x` and 16 lowercase hex digits (17 for 2^64), the form shardRange() takes. */
export function hex64(n: bigint): string {
  return `0x${n.toString(16).padStart(16, '0')}`;
}

/**
 * The KEP-5866 shard selector for `ranges` of `field` (object.metadata.uid):
 * `shardRange(object.metadata.uid, '0x…', '0x…') || …`; undefined when the ranges cover everything.
 */
export function shardSelector(ranges: readonly HashRange[], field = 'object.metadata.uid'): string | undefined {
  if (ranges.length === 1 && ranges[0]!.start === 0n && ranges[0]!.end === FULL) return undefined;
  // No range at all (not in the ring yet): the one-hash range [0, 1), so the replica lists next to
  // nothing rather than everything; the client-side filter drops even that.
  const terms = ranges.length > 0 ? ranges : [{ start: 0n, end: 1n }];
  return terms.map((r) => `shardRange(${field}, '${hex64(r.start)}', '${hex64(r.end)}')`).join(' || ');
}

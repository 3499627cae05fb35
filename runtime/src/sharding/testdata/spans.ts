// The handover check of sharding.test.ts, deterministic where the overlap of reconciles that happened
// to run is not: from every replica's ownership spans (ShardingOptions.onOwnership) it asserts that
// (1) for every object, no two replicas' spans that cover it overlap in time, and (2) every reconcile
// ran inside a span of its replica that covers its object. Together they mean no two replicas could
// ever have reconciled one object at once, whatever the timing of the reconciles.
import type { OwnershipEvent } from '../sharding.js';
import { fnv1a64, HashRing } from '../ring.js';

export interface Reconcile { r: string; k: string; u: string; v: string; s: number; e: number }

interface Span { member: string; start: number; end: number; covers: (uid: string, key: string) => boolean; what: string }

/** Spans from the events; a span still open ends at the member's death (`endOf`), else it is open-ended. */
function spansOf(events: OwnershipEvent[], endOf: (member: string) => number): Span[] {
  const spans: Span[] = [];
  const open = new Map<string, { e: OwnershipEvent; covers: Span['covers']; what: string }>();
  const sorted = [...events].sort((a, b) => a.at - b.at);
  for (const e of sorted) {
    const id = e.span === 'ring' ? `ring|${e.member}` : `object|${e.member}|${e.kind}|${e.key}`;
    if (e.phase === 'start') {
      if (e.span === 'ring') {
        const ring = new HashRing(e.members, e.virtualNodes);
        open.set(id, { e, covers: (uid) => ring.ownerOf(fnv1a64(uid)) === e.member, what: `ring [${e.members.join(',')}]` });
      } else {
        open.set(id, { e, covers: (_uid, key) => key === e.key, what: `label on ${e.key}` });
      }
    } else {
      const o = open.get(id);
      if (!o) continue;
      open.delete(id);
      spans.push({ member: e.member, start: o.e.at, end: e.at, covers: o.covers, what: o.what });
    }
  }
  for (const o of open.values()) spans.push({ member: o.e.member, start: o.e.at, end: endOf(o.e.member), covers: o.covers, what: o.what });
  return spans;
}

/** Violations (at most `limit`): overlapping spans of two replicas over one object, and reconciles outside their replica's spans. */
export function ownershipViolations(events: OwnershipEvent[], records: Reconcile[], objects: { uid: string; key: string }[], endOf: (member: string) => number, limit = 5): string[] {
  const spans = spansOf(events, endOf);
  const bad: string[] = [];
  const fmt = (s: Span) => `${s.member} ${s.what} [${s.start.toFixed(1)}, ${s.end.toFixed(1)}]`;
  for (const { uid, key } of objects) {
    const cover = spans.filter((s) => s.covers(uid, key)).sort((a, b) => a.start - b.start);
    for (let i = 0; i < cover.length && bad.length < limit; i++) {
      for (let j = i + 1; j < cover.length && cover[j]!.start < cover[i]!.end; j++) {
        if (cover[j]!.member !== cover[i]!.member) bad.push(`${key}: ${fmt(cover[i]!)} overlaps ${fmt(cover[j]!)}`);
      }
    }
  }
  const keyOf = new Map(objects.map((o) => [o.uid, o.key]));
  for (const r of records) {
    if (bad.length >= limit) break;
    const key = keyOf.get(r.u) ?? r.k;
    if (!spans.some((s) => s.member === r.r && s.covers(r.u, key) && s.start <= r.s && r.e <= s.end)) bad.push(`${key}: reconciled by ${r.r} [${r.s.toFixed(1)}, ${r.e.toFixed(1)}] outside its ownership spans`);
  }
  return bad;
}

// The pure parts of label mode and of the handover check: setControllerReference carries the owner's
// shard label onto what it creates, and the span check (testdata/spans.ts, used by sharding.test.ts)
// flags overlapping ownership and reconciles outside it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../api/builtins.js';
import { setControllerReference } from '../helpers/owner-references.js';
import { Guestbook } from '../manager/testdata/guestbook.js';
import { fnv1a64, HashRing } from './ring.js';
import type { OwnershipEvent } from './sharding.js';
import { ownershipViolations } from './testdata/spans.js';

describe('owned objects follow their owner\'s shard label', () => {
  it('setControllerReference copies sharding.opgen.dev/shard-* labels, and only those', () => {
    const owner = { apiVersion: 'runtime.opgen.dev/v1', kind: 'Guestbook', metadata: { name: 'gb', namespace: 'ns', uid: 'u-1', labels: { 'sharding.opgen.dev/shard-ring': 'r1', 'sharding.opgen.dev/drain-ring': 'true', app: 'gb' } } };
    const cm: ConfigMap = { metadata: { name: 'cm', namespace: 'ns', labels: { keep: 'me' } } };
    setControllerReference(owner, cm, Guestbook);
    expect(cm.metadata!.labels).toEqual({ keep: 'me', 'sharding.opgen.dev/shard-ring': 'r1' });
    const plain: ConfigMap = { metadata: { name: 'p', namespace: 'ns' } };
    setControllerReference({ ...owner, metadata: { ...owner.metadata, labels: { app: 'gb' } } }, plain, Guestbook);
    expect(plain.metadata!.labels).toBeUndefined();
  });
});

describe('the ownership span check', () => {
  const obj = (uid: string) => ({ uid, key: `ns/${uid}` });
  const ring = (member: string, phase: 'start' | 'end', members: string[], at: number): OwnershipEvent => ({ span: 'ring', member, phase, members, virtualNodes: 32, at });
  // An object that moves from a to b when b joins the ring (uid-like strings: FNV-1a of near-identical short strings clusters).
  const moving = Array.from({ length: 200 }, (_, i) => createHash('md5').update(String(i)).digest('hex')).find((u) => new HashRing(['a']).ownerOf(fnv1a64(u)) === 'a' && new HashRing(['a', 'b']).ownerOf(fnv1a64(u)) === 'b')!;

  it('passes a handover where the old ring span ends before the new one starts', () => {
    const events = [ring('a', 'start', ['a'], 0), ring('a', 'end', ['a'], 10), ring('a', 'start', ['a', 'b'], 12), ring('b', 'start', ['a', 'b'], 12)];
    const records = [{ r: 'a', k: moving, u: moving, v: '1', s: 1, e: 9 }, { r: 'b', k: moving, u: moving, v: '2', s: 13, e: 14 }];
    expect(ownershipViolations(events, records, [obj(moving)], () => Infinity)).toEqual([]);
  });

  it('flags a newcomer that starts before the old owner stopped, and a reconcile outside its span', () => {
    const events = [ring('a', 'start', ['a'], 0), ring('b', 'start', ['a', 'b'], 5), ring('a', 'end', ['a'], 10)];
    expect(ownershipViolations(events, [], [obj(moving)], () => Infinity)[0]).toMatch(/overlaps/);
    const late = [{ r: 'a', k: moving, u: moving, v: '1', s: 8, e: 11 }];
    expect(ownershipViolations([ring('a', 'start', ['a'], 0), ring('a', 'end', ['a'], 10)], late, [obj(moving)], () => Infinity)[0]).toMatch(/outside its ownership spans/);
  });

  it('object spans (label mode): a relabel before the old owner released is flagged; a killed owner\'s span ends at its death', () => {
    const span = (member: string, phase: 'start' | 'end', at: number): OwnershipEvent => ({ span: 'object', member, phase, kind: 'Guestbook', key: 'ns/x', uid: 'x', at });
    expect(ownershipViolations([span('a', 'start', 0), span('b', 'start', 5), span('a', 'end', 6)], [], [{ uid: 'x', key: 'ns/x' }], () => Infinity)[0]).toMatch(/overlaps/);
    expect(ownershipViolations([span('a', 'start', 0), span('b', 'start', 5)], [], [{ uid: 'x', key: 'ns/x' }], (m) => (m === 'a' ? 4 : Infinity))).toEqual([]);
  });
});

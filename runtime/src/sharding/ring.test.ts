import { describe, expect, it } from 'vitest';
import { fnv1a64, HashRing, hex64, shardSelector } from './ring.js';

const uids = Array.from({ length: 20_000 }, (_, i) => `${(i * 2654435761) >>> 0}-uid-${i}`);

describe('ring', () => {
  it('hashes with 64-bit FNV-1a (the published test vectors)', () => {
    expect(hex64(fnv1a64(''))).toBe('0xcbf29ce484222325');
    expect(hex64(fnv1a64('a'))).toBe('0xaf63dc4c8601ec8c');
    expect(hex64(fnv1a64('foobar'))).toBe('0x85944171f73967e8');
  });

  it('spreads objects over the members and moves about 1/N when one joins or leaves', () => {
    const three = new HashRing(['a', 'b', 'c']);
    const four = new HashRing(['a', 'b', 'c', 'd']);
    const counts = new Map<string, number>();
    let moved = 0;
    for (const uid of uids) {
      const h = fnv1a64(uid);
      const before = three.ownerOf(h)!;
      const after = four.ownerOf(h)!;
      counts.set(before, (counts.get(before) ?? 0) + 1);
      if (before !== after) {
        moved++;
        // Only towards the new member: nothing moves between the members that stay.
        expect(after).toBe('d');
      }
    }
    const shares = [...counts.values()].map((n) => n / uids.length);
    for (const share of shares) expect(share, `shares ${shares.join(' ')}`).toBeGreaterThan(0.2);
    expect(moved / uids.length).toBeGreaterThan(0.12);
    expect(moved / uids.length).toBeLessThan(0.4);
  });

  it("a member's ranges hold exactly the hashes it owns, and the members' ranges tile the circle", () => {
    const ring = new HashRing(['x', 'y', 'z', 'w', 'v']);
    const all = ring.members.flatMap((m) => ring.rangesOf(m).map((r) => ({ ...r, m })));
    all.sort((a, b) => (a.start < b.start ? -1 : 1));
    expect(all[0]!.start).toBe(0n);
    expect(all[all.length - 1]!.end).toBe(1n << 64n);
    for (let i = 1; i < all.length; i++) expect(all[i]!.start).toBe(all[i - 1]!.end);
    for (const uid of uids.slice(0, 2000)) {
      const h = fnv1a64(uid);
      const holder = all.find((r) => r.start <= h && h < r.end)!;
      expect(holder.m).toBe(ring.ownerOf(h));
    }
  });

  it('writes shardRange() terms joined by ||, none for a lone member', () => {
    expect(shardSelector(new HashRing(['only']).rangesOf('only'))).toBeUndefined();
    expect(shardSelector([{ start: 0n, end: 1n << 63n }])).toBe("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    expect(shardSelector([{ start: 1n, end: 2n }, { start: 5n, end: 1n << 64n }])).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000001', '0x0000000000000002') || shardRange(object.metadata.uid, '0x0000000000000005', '0x10000000000000000')",
    );
  });
});

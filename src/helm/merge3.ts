// Three-way merge of text files, line by line, as `git merge-file` does it: the last generated version
// (base), the user's file (yours) and the new generated version (generated). A region changed on one
// side takes that side; changed alike on both, once; changed differently, a conflict left in the file
// between git's markers, with the lines both sides share at its edges moved out of it (git's "zealous"
// level). Regeneration of a Helm chart uses it so the user's edits survive and nothing is dropped silently.

export interface Merge3Result {
  text: string;
  /** 1-based line of each conflict's `<<<<<<<` marker in `text`. */
  conflicts: number[];
}

export interface Merge3Labels {
  yours: string;
  generated: string;
}

/** Lines with their line breaks, so a missing final newline survives the merge. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** For each line of `a`, the index of its partner in `b` on a longest common subsequence, or -1. */
function lcsMatches(a: string[], b: string[]): number[] {
  // Common prefix and suffix first: regenerated files differ in a few places, which keeps the table small.
  const match = new Array<number>(a.length).fill(-1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) match[start] = start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) match[--endA] = --endB;
  const n = endA - start;
  const m = endB - start;
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = a[start + i] === b[start + j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[start + i] === b[start + j]) {
      match[start + i] = start + j;
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return match;
}

function same(x: string[], y: string[]): boolean {
  return x.length === y.length && x.every((line, i) => line === y[i]);
}

type Region = { kind: 'stable'; lines: string[] } | { kind: 'change'; lines: string[] } | { kind: 'conflict'; a: string[]; b: string[] };

export function merge3(base: string, yours: string, generated: string, labels: Merge3Labels = { yours: 'yours', generated: 'generated' }): Merge3Result {
  const regions = simplify(regionsOf(lines(base), lines(yours), lines(generated)));
  const out: string[] = [];
  const conflicts: number[] = [];
  const endsWithNewline = (xs: string[]): string[] => (xs.length > 0 && !xs[xs.length - 1]!.endsWith('\n') ? [...xs.slice(0, -1), `${xs[xs.length - 1]!}\n`] : xs);
  for (const r of regions) {
    if (r.kind !== 'conflict') {
      out.push(...r.lines);
      continue;
    }
    conflicts.push(out.join('').split('\n').length);
    out.push(`<<<<<<< ${labels.yours}\n`, ...endsWithNewline(r.a), '=======\n', ...endsWithNewline(r.b), `>>>>>>> ${labels.generated}\n`);
  }
  return { text: out.join(''), conflicts };
}

/** Stable lines, one-sided (or identical) changes, and conflicts split where both sides share lines. */
function regionsOf(o: string[], a: string[], b: string[]): Region[] {
  const toA = lcsMatches(o, a);
  const toB = lcsMatches(o, b);
  const regions: Region[] = [];
  const push = (r: Region): void => {
    const last = regions[regions.length - 1];
    if (r.kind === 'stable' && last?.kind === 'stable') last.lines.push(...r.lines);
    // An empty change (a deletion) still separates two conflicts: git does not join them across it.
    else if (r.kind !== 'stable' || r.lines.length > 0) regions.push(r);
  };
  let i = 0;
  let ia = 0;
  let ib = 0;
  while (i < o.length || ia < a.length || ib < b.length) {
    if (i < o.length && toA[i] === ia && toB[i] === ib) {
      push({ kind: 'stable', lines: [o[i]!] });
      i++;
      ia++;
      ib++;
      continue;
    }
    // The next base line both sides still have ends this unstable region.
    let j = i;
    while (j < o.length && (toA[j]! < ia || toB[j]! < ib)) j++;
    const endA = j < o.length ? toA[j]! : a.length;
    const endB = j < o.length ? toB[j]! : b.length;
    const chunkO = o.slice(i, j);
    const chunkA = a.slice(ia, endA);
    const chunkB = b.slice(ib, endB);
    if (same(chunkA, chunkO)) push({ kind: 'change', lines: chunkB });
    else if (same(chunkB, chunkO) || same(chunkA, chunkB)) push({ kind: 'change', lines: chunkA });
    else {
      // git's "zealous" refinement: the lines the two sides share split the conflict.
      const shared = lcsMatches(chunkA, chunkB);
      let x = 0;
      let y = 0;
      while (x < chunkA.length || y < chunkB.length) {
        if (x < chunkA.length && shared[x] === y) {
          push({ kind: 'stable', lines: [chunkA[x]!] });
          x++;
          y++;
          continue;
        }
        let x2 = x;
        while (x2 < chunkA.length && shared[x2]! < y) x2++;
        const y2 = x2 < chunkA.length ? shared[x2]! : chunkB.length;
        push({ kind: 'conflict', a: chunkA.slice(x, x2), b: chunkB.slice(y, y2) });
        x = x2;
        y = y2;
      }
    }
    i = j;
    ia = endA;
    ib = endB;
  }
  return regions;
}

/**
 * git's simplification: two conflicts with only a few unchanged lines between them (3 or fewer, or lines
 * without a letter or digit) become one conflict, so a reader resolves one block instead of a staircase.
 */
function simplify(regions: Region[]): Region[] {
  const out: Region[] = [];
  for (let k = 0; k < regions.length; k++) {
    const r = regions[k]!;
    const prev = out[out.length - 1];
    const before = out[out.length - 2];
    if (r.kind === 'conflict' && prev?.kind === 'stable' && before?.kind === 'conflict' && (prev.lines.length <= 3 || !prev.lines.some((l) => /[A-Za-z0-9]/.test(l)))) {
      out.pop();
      out[out.length - 1] = { kind: 'conflict', a: [...before.a, ...prev.lines, ...r.a], b: [...before.b, ...prev.lines, ...r.b] };
      continue;
    }
    out.push(r);
  }
  return out;
}

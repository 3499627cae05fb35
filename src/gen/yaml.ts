// The one serialiser for generated manifests: objects → YAML with controller-gen's layout (keys sorted by
// yaml.v2's comparator, sequences not indented under their key, literal blocks for multi-line text), each
// document preceded by `---`. Same input, same bytes.

/** yaml.v2's keyList.Less for string keys: letters by code point, a non-letter before a letter, digit runs numerically. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isLetter = (c: string): boolean => /\p{L}/u.test(c);
  const isDigit = (c: string | undefined): boolean => c !== undefined && /\p{Nd}/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i]!;
    const bc = br[i]!;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac.codePointAt(0)! < bc.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac.codePointAt(0)! < bc.codePointAt(0)!;
  }
  return ar.length < br.length;
}

export function yamlKeyCompare(a: string, b: string): number {
  return yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0;
}

/** Serialises each object as a YAML document preceded by `---`, optionally after a header. */
export async function toYaml(docs: readonly object[], header = ''): Promise<string> {
  const { stringify } = await import('yaml');
  let out = header;
  for (const doc of docs) {
    out += '---\n';
    out += stringify(doc, {
      version: '1.1',
      indent: 2,
      indentSeq: false,
      lineWidth: 80,
      minContentWidth: 0,
      blockQuote: 'literal',
      aliasDuplicateObjects: false,
      sortMapEntries: (a, b) => yamlKeyCompare(String(a.key), String(b.key)),
    });
  }
  return out;
}

// 1-based line and column of a path (map keys, list indexes) in a parsed YAML document: the key of the
// deepest part of the path that exists, so a finding about a removed field points at its parent.
import { isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

export type YamlPath = readonly (string | number)[];

export function locateIn(doc: Document.Parsed, lines: LineCounter): (path: YamlPath) => { line: number; column: number } {
  return (path) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as { range?: [number] } | null)?.range?.[0] ?? 0;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && p.key.value === seg);
        if (!pair) break;
        offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
        node = node.items[seg];
        offset = (node as { range?: [number] }).range?.[0] ?? offset;
      } else break;
    }
    const pos = lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
}

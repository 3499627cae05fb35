// controller-gen sorts names with Go's string comparison, which compares UTF-8 bytes; JavaScript's
// default sort compares UTF-16 code units and orders some non-ASCII names differently.
export function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

// The handful of ASN.1 DER encoders an X.509 certificate needs. Node 20 can parse and verify
// certificates (crypto.X509Certificate) but not create them; these few encoders avoid pulling a
// PKI library and its dozen packages into every operator image that depends on @opgen/runtime.

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
export const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
/** [n] EXPLICIT: wraps a complete encoding. */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
/** [n] IMPLICIT on a primitive type: replaces the tag, keeps the bytes. */
export const implicitPrimitive = (n: number, bytes: Buffer): Buffer => tlv(0x80 | n, bytes);

/** A non-negative INTEGER from big-endian magnitude bytes. */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  // A leading 1 bit would read as negative.
  const needsPad = (trimmed[0] ?? 0) & 0x80;
  return tlv(0x02, needsPad ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A BIT STRING holding whole bytes (signatures, public keys). */
export const bitStringBytes = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);

/** A named-bit BIT STRING (KeyUsage): DER drops trailing zero bits and counts the unused ones. */
export function namedBits(bitIndexes: number[]): Buffer {
  const highest = Math.max(...bitIndexes);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bitIndexes) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8;
  const unused = 7 - (highest % 8);
  return tlv(0x03, Buffer.from([unused]), bytes);
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 requires. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-30T02:57:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '') + 'Z'; // 20261130025700Z
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(digits, 'ascii'));
}

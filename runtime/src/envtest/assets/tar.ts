// A streaming reader for the .tar.gz archives envtest releases ship, on node built-ins only (the runtime
// takes no archive dependency). Like setup-envtest, it keeps regular files by their base name and
// skips directories, links and anything else.
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

function sizeOf(header: Buffer): number {
  const raw = header.subarray(124, 136);
  // GNU base-256 for sizes over 8 GiB: high bit set, big-endian in the remaining bytes.
  if ((raw[0] ?? 0) & 0x80) return raw.subarray(1).reduce((n, b) => n * 256 + b, (raw[0] ?? 0) & 0x7f);
  const text = field(header, 124, 12).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

/** Path from a pax extended header body ("<len> path=<value>\n" records). */
function paxPath(body: Buffer): string | undefined {
  for (const line of body.toString('utf8').split('\n')) {
    const m = /^\d+ path=(.*)$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

/**
 * Unpacks `archive` (gzip-compressed tar) into `dest`, flattening paths to base names and writing only
 * regular files whose base name `keep` accepts, executable. Returns the names written.
 */
export async function extractTarGz(archive: string, dest: string, keep: (name: string) => boolean): Promise<string[]> {
  const written: string[] = [];
  let pending: Buffer = Buffer.alloc(0);
  // The entry being read: bytes left in its body, padding after it, where its bytes go.
  let entry: { remaining: number; padding: number; out?: WriteStream; collect?: Buffer[]; kind: string } | undefined;
  let nextName: string | undefined; // from a GNU long-name or pax header, for the following entry
  let ended = false;

  const finishEntry = async (): Promise<void> => {
    if (!entry) return;
    if (entry.out) {
      entry.out.end();
      await once(entry.out, 'finish');
    }
    if (entry.collect) {
      const body = Buffer.concat(entry.collect);
      nextName = entry.kind === 'L' ? field(body, 0, body.length) : paxPath(body) ?? nextName;
    }
  };

  for await (const chunk of createReadStream(archive).pipe(createGunzip())) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    for (;;) {
      if (ended) break;
      if (entry && entry.remaining > 0) {
        if (pending.length === 0) break;
        const part = pending.subarray(0, Math.min(entry.remaining, pending.length));
        pending = pending.subarray(part.length);
        entry.remaining -= part.length;
        if (entry.out && !entry.out.write(part)) await once(entry.out, 'drain');
        entry.collect?.push(Buffer.from(part));
        if (entry.remaining > 0) break;
      }
      if (entry) {
        if (pending.length < entry.padding) break;
        pending = pending.subarray(entry.padding);
        await finishEntry();
        entry = undefined;
      }
      if (pending.length < BLOCK) break;
      const header = pending.subarray(0, BLOCK);
      pending = pending.subarray(BLOCK);
      if (header.every((b) => b === 0)) { ended = true; break; }
      const size = sizeOf(header);
      const kind = String.fromCharCode(header[156] ?? 0);
      const prefix = field(header, 345, 155);
      const name = nextName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      const padding = (BLOCK - (size % BLOCK)) % BLOCK;
      if (kind === 'L' || kind === 'x') {
        entry = { remaining: size, padding, collect: [], kind };
        continue;
      }
      nextName = undefined;
      const base = basename(name);
      const regular = kind === '0' || kind === '\0' || kind === '7';
      if (regular && base !== '' && keep(base)) {
        const out = createWriteStream(join(dest, base), { mode: 0o755 });
        written.push(base);
        entry = { remaining: size, padding, out, kind };
        if (size === 0) { await finishEntry(); entry = { remaining: 0, padding, kind }; }
      } else {
        entry = { remaining: size, padding, kind };
      }
    }
  }
  if (entry && entry.remaining > 0) {
    entry.out?.destroy();
    throw new ArchiveError(`${archive}: the archive ends in the middle of a file`);
  }
  await finishEntry();
  return written;
}

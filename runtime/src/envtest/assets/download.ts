// Downloads an envtest release archive, hashing it while it streams to disk, and unpacks it only when
// the sha512 matches the index: a corrupt or tampered archive leaves nothing behind.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ProgressSink } from './progress.js';
import type { Release } from './releases.js';
import { extractTarGz } from './tar.js';

export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
}

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

export async function fetchText(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new DownloadError(`could not fetch ${url}: ${causeOf(err)}`);
  }
  if (!res.ok) throw new DownloadError(`could not fetch ${url}: HTTP ${res.status} ${res.statusText}`);
  return res.text();
}

function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

const BINARIES = new Set(['kube-apiserver', 'etcd', 'kubectl', 'kube-apiserver.exe', 'etcd.exe', 'kubectl.exe']);

/**
 * Downloads `release` into the cache root and unpacks its binaries into `dest` (created by renaming a
 * finished temp folder, so a reader never sees half a folder).
 */
export async function downloadRelease(release: Release, cacheRoot: string, dest: string, progress: ProgressSink): Promise<void> {
  const work = mkdtempSync(join(cacheRoot, '.download-'));
  try {
    const archive = join(work, release.name);
    let res: Response;
    try {
      // No overall timeout: a slow link may need minutes; the connection itself must answer in 30 s.
      const controller = new AbortController();
      const connect = setTimeout(() => controller.abort(new Error('no answer in 30s')), 30_000);
      res = await fetch(release.url, { signal: controller.signal }).finally(() => clearTimeout(connect));
    } catch (err) {
      throw new DownloadError(`could not download ${release.url}: ${causeOf(err)}`);
    }
    if (!res.ok || !res.body) throw new DownloadError(`could not download ${release.url}: HTTP ${res.status} ${res.statusText}`);
    const total = Number(res.headers.get('content-length') ?? 0);
    const hash = createHash('sha512');
    const out = createWriteStream(archive);
    let received = 0;
    const label = `downloading ${release.name}`;
    progress.step(label, 0, total);
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        received += chunk.length;
        if (!out.write(chunk)) await once(out, 'drain');
        progress.step(label, received, total);
      }
    } catch (err) {
      out.destroy();
      throw new DownloadError(`download of ${release.url} broke off after ${received} bytes: ${causeOf(err)}`);
    }
    out.end();
    await once(out, 'finish');
    progress.end();
    const actual = hash.digest('hex');
    if (actual !== release.sha512) {
      throw new ChecksumMismatchError(
        `envtest: ${release.name} from ${release.url} does not match the release index: sha512 ${actual}, expected ${release.sha512}. ` +
        'Nothing was cached; retry, and if it persists the download is being altered on the way (proxy, mirror).',
      );
    }
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    const names = await extractTarGz(archive, unpacked, (n) => BINARIES.has(n));
    for (const needed of ['kube-apiserver', 'etcd']) {
      if (!names.some((n) => n.replace(/\.exe$/, '') === needed)) {
        throw new DownloadError(`envtest: ${release.name} holds no ${needed} (it has: ${names.join(', ') || 'nothing'})`);
      }
    }
    renameSync(unpacked, dest);
    progress.note(`${release.name}: ${names.join(', ')} in ${dest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// The three ways a project gets kube-apiserver and etcd, each for real: a download from a local HTTP
// server standing in for GitHub (an archive made from the built binaries, listed in an index in
// controller-tools' format), a refused download, and a Go build from the module proxy; and the two ways
// it gets the simulated cluster's binaries: opgen's cache, a Go build.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissingBinariesError } from '../internal/binaries.js';
import { findCached } from './cache.js';
import { ChecksumMismatchError, progressTo, resolveBinaries, setupCluster, setupEnvtest } from './index.js';
import { goPlatform, parseReleaseIndex, pickRelease } from './releases.js';
import { extractTarGz } from './tar.js';

/** The opgen repository, whose .ci/cluster-assets.sh fills the cache the runtime reads. */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const sha = (alg: string, file: string) => createHash(alg).update(readFileSync(file)).digest('hex');
const { os, arch } = goPlatform();

describe('envtest binaries: cache, download, build', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'opgen-assets-'));
  const assets = process.env.KUBEBUILDER_ASSETS ?? '';
  const files = new Map<string, Buffer>();
  let requests: string[] = [];
  let server: Server;
  let base = '';
  /** An index URL nobody answers (a port that was free a moment ago): "offline". */
  let offline = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const body = files.get(req.url ?? '');
      if (!body) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    offline = `http://127.0.0.1:${port}/index.yaml`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(scratch, { recursive: true, force: true });
  });

  /**
   * An archive laid out like controller-tools' (controller-tools/envtest/<binary>), from `folder`: tar
   * follows symlinks to the binaries (no copies), gzip at level 0 (valid gzip, fast on a busy machine).
   */
  async function makeArchive(folder: string, names: string[], into: string): Promise<string> {
    const tree = join(into, 'tree', 'controller-tools', 'envtest');
    mkdirSync(tree, { recursive: true });
    for (const n of names) symlinkSync(join(folder, n), join(tree, n));
    const tar = join(into, 'envtest.tar');
    execFileSync('tar', ['-C', join(into, 'tree'), '-chf', tar, 'controller-tools']);
    const archive = join(into, 'envtest.tar.gz');
    await pipeline(createReadStream(tar), createGzip({ level: 0 }), createWriteStream(archive));
    rmSync(tar);
    return archive;
  }

  function index(entries: Array<{ version: string; os?: string; arch?: string; path: string; hash: string }>): string {
    const byVersion = new Map<string, string[]>();
    for (const e of entries) {
      const name = `envtest-v${e.version}-${e.os ?? os}-${e.arch ?? arch}.tar.gz`;
      const lines = byVersion.get(e.version) ?? [];
      lines.push(`    ${name}:\n      hash: ${e.hash}\n      selfLink: ${base}${e.path}`);
      byVersion.set(e.version, lines);
    }
    return `releases:\n${[...byVersion].map(([v, l]) => `  v${v}:\n${l.join('\n')}`).join('\n')}\n`;
  }

  it('reads the releases index and picks the newest patch of the wanted minor for this platform', () => {
    const releases = parseReleaseIndex(index([
      { version: '1.36.1', path: '/a', hash: 'AA' },
      { version: '1.36.3', path: '/b', hash: 'bb' },
      { version: '1.36.4', os: 'windows', arch: 'amd64', path: '/c', hash: 'cc' },
      { version: '1.37.0', path: '/d', hash: 'dd' },
    ]), 'test index');
    expect(releases).toHaveLength(4);
    expect(releases[0]).toMatchObject({ version: '1.36.1', sha512: 'aa', url: `${base}/a` });
    expect(pickRelease(releases, '1.36', os, arch)?.version).toBe(os === 'windows' ? '1.36.4' : '1.36.3');
    expect(pickRelease(releases, '1.36.1', os, arch)?.version).toBe('1.36.1');
    expect(pickRelease(releases, undefined, os, arch)?.version).toBe('1.37.0');
    expect(pickRelease(releases, '1.35', os, arch)).toBeUndefined();
  });

  it('unpacks tar.gz entries by base name, skipping links and folders, with long (pax/GNU) names', async () => {
    const tree = join(scratch, 'tar-src');
    const deep = join(tree, 'x'.repeat(60), 'y'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'etcd'), 'long-name body\n');
    writeFileSync(join(tree, 'kubectl'), Buffer.alloc(70_000, 7)); // spans many blocks
    writeFileSync(join(tree, 'empty'), '');
    symlinkSync('kubectl', join(tree, 'link'));
    const archive = join(scratch, 't.tar.gz');
    execFileSync('sh', ['-c', `tar -C "${tree}" -cf - . | gzip > "${archive}"`]);
    const out = join(scratch, 'tar-out');
    mkdirSync(out);
    const names = await extractTarGz(archive, out, (n) => n !== 'ignored');
    expect(names.sort()).toEqual(['empty', 'etcd', 'kubectl']);
    expect(readFileSync(join(out, 'etcd'), 'utf8')).toBe('long-name body\n');
    expect(readFileSync(join(out, 'kubectl'))).toEqual(Buffer.alloc(70_000, 7));
    expect(statSync(join(out, 'kubectl')).mode & 0o111).not.toBe(0);
  });

  it('downloads the archive named by the index, checks its sha512, unpacks it into the cache, and the binaries run', async () => {
    const archive = await makeArchive(assets, ['kube-apiserver', 'etcd'], join(scratch, 'archive'));
    files.set('/envtest-v1.36.3.tar.gz', readFileSync(archive));
    files.set('/index.yaml', Buffer.from(index([
      { version: '1.36.3', path: '/envtest-v1.36.3.tar.gz', hash: sha('sha512', archive) },
      { version: '1.36.2', path: '/missing.tar.gz', hash: 'ff' },
    ])));
    const cache = join(scratch, 'cache');
    const lines: string[] = [];
    requests = [];
    const folder = await setupEnvtest({ version: '1.36', cacheRoots: [cache], indexUrl: `${base}/index.yaml`, progress: progressTo((t) => lines.push(t)), build: false });
    expect(folder).toBe(join(cache, `envtest-v1.36.3-${os}-${arch}`));
    expect(requests).toEqual(['/index.yaml', '/envtest-v1.36.3.tar.gz']);
    for (const b of ['kube-apiserver', 'etcd']) expect(sha('sha256', join(folder, b)), b).toBe(sha('sha256', join(assets, b)));
    const log = lines.join('');
    expect(log).toContain(`downloading envtest-v1.36.3-${os}-${arch}.tar.gz: 0.0 MB of`);
    expect(log).toMatch(/\(100%\)\n/);
    expect(readdirSync(cache).sort()).toEqual([`envtest-v1.36.3-${os}-${arch}`]); // no temp files, no lock left

    // Cached now: no request at all, also through startTestEnv's own lookup with nothing configured.
    requests = [];
    expect(await setupEnvtest({ version: '1.36.3', cacheRoots: [cache], indexUrl: `${base}/index.yaml`, progress: false })).toBe(folder);
    const env = { PATH: process.env.PATH, HOME: scratch, OPGEN_ASSETS_CACHE: cache, XDG_DATA_HOME: join(scratch, 'none') };
    expect(await resolveBinaries(undefined, env)).toEqual({ kubeApiserver: join(folder, 'kube-apiserver'), etcd: join(folder, 'etcd') });
    expect(requests).toEqual([]);

    // Byte-identical to the binaries the other tests run; and they start.
    expect(execFileSync(join(folder, 'kube-apiserver'), ['--version'], { encoding: 'utf8' })).toMatch(/^Kubernetes v\d+\.\d+\.\d+/);
    expect(execFileSync(join(folder, 'etcd'), ['--version'], { encoding: 'utf8' })).toContain('etcd Version:');
  }, 240_000);

  it('refuses an archive whose sha512 differs from the index, and caches nothing', async () => {
    const archive = await makeArchive(scratch, [], join(scratch, 'bad'));
    files.set('/bad.tar.gz', readFileSync(archive));
    files.set('/bad-index.yaml', Buffer.from(index([{ version: '1.36.3', path: '/bad.tar.gz', hash: 'ab'.repeat(64) }])));
    const cache = join(scratch, 'cache-bad');
    const err = await setupEnvtest({ cacheRoots: [cache], indexUrl: `${base}/bad-index.yaml`, progress: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
    expect((err as Error).message).toMatch(
      new RegExp(`^envtest: envtest-v1\\.36\\.3-${os}-${arch}\\.tar\\.gz from ${base}/bad\\.tar\\.gz does not match the release index: sha512 ${sha('sha512', archive)}, expected ${'ab'.repeat(64)}\\. Nothing was cached`),
    );
    expect(readdirSync(cache)).toEqual([]);
    expect(findCached([cache], undefined, { os, arch })).toEqual([]);
  });

  it('without network and without building, says what it tried and how to fix it', async () => {
    const cache = join(scratch, 'cache-offline');
    const err = await setupEnvtest({ cacheRoots: [cache], indexUrl: offline, progress: false, build: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingBinariesError);
    expect((err as Error).message).toContain(`could not fetch ${offline}: ECONNREFUSED`);
    expect((err as Error).message).toContain('npx opgen setup-envtest');
    // An explicit KUBEBUILDER_ASSETS that lacks the binaries stays an error: no download behind a typo.
    await expect(resolveBinaries(undefined, { KUBEBUILDER_ASSETS: join(scratch, 'typo'), HOME: scratch })).rejects.toThrow(MissingBinariesError);
  });

  it('offline with Go installed, builds kube-apiserver and etcd from the Go module proxy, showing progress', async () => {
    const cache = join(scratch, 'cache-build');
    const lines: string[] = [];
    const folder = await setupEnvtest({ version: '1.36.3', cacheRoots: [cache], indexUrl: offline, progress: progressTo((t) => lines.push(t)) });
    expect(folder).toBe(join(cache, 'k8s-1.36.3-etcd-3.6.16'));
    const version = execFileSync(join(folder, 'kube-apiserver'), ['--version'], { encoding: 'utf8' });
    expect(version.trim()).toBe('Kubernetes v1.36.3');
    expect(execFileSync(join(folder, 'etcd'), ['--version'], { encoding: 'utf8' })).toContain('etcd Version: 3.6.16');
    const log = lines.join('');
    expect(log).toContain(`could not fetch ${offline}: ECONNREFUSED; building Kubernetes 1.36.3 test binaries with Go instead`);
    expect(log).toMatch(/compiling kube-apiserver v1\.36\.3: \d+ of \d+ \(\d+%\)/);
    expect(readdirSync(cache).sort()).toEqual(['k8s-1.36.3-etcd-3.6.16']);
  }, 1_200_000);

  it("the simulated cluster's binaries: found where .ci/cluster-assets.sh puts them, else built from the Go module proxy", async () => {
    // The repository's own build script, asked only for its folder (it builds nothing with --cached).
    const env = { ...process.env };
    delete env.OPGEN_CLUSTER_ASSETS;
    const script = execFileSync('bash', [join(repoRoot, '.ci/cluster-assets.sh'), '--cached'], { encoding: 'utf8', env }).trim();
    expect(await setupCluster({ env, progress: false, build: false })).toBe(script);

    const cache = join(scratch, 'cache-cluster');
    const lines: string[] = [];
    const folder = await setupCluster({ env: { ...env, OPGEN_ASSETS_CACHE: cache }, progress: progressTo((t) => lines.push(t)) });
    expect(folder).toBe(join(cache, 'cluster-k8s-1.36.3-kwok-0.8.0'));
    for (const b of ['kube-controller-manager', 'kube-scheduler']) expect(execFileSync(join(folder, b), ['--version'], { encoding: 'utf8' }).trim()).toBe('Kubernetes v1.36.3');
    expect(execFileSync(join(folder, 'kwok'), ['--version'], { encoding: 'utf8' })).toContain('kwok version v0.8.0');
    // The same stages the script takes from the same kwok release.
    expect(readFileSync(join(folder, 'kwok-stages.yaml'), 'utf8')).toBe(readFileSync(join(script, 'kwok-stages.yaml'), 'utf8'));
    expect(lines.join('')).toContain('building kube-controller-manager, kube-scheduler v1.36.3 and kwok v0.8.0 from the Go module proxy');
    expect(readdirSync(cache).sort()).toEqual(['cluster-k8s-1.36.3-kwok-0.8.0']);
  }, 1_200_000);
});

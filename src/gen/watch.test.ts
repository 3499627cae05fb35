// `opgen generate --watch`: the incremental runs behind it (one GenerateSession, in process), then the real
// command in a child process on a scaffolded project: edits, errors, created and deleted files, Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OpgenErrors } from '../diag/diagnostic.js';
import { opgenOk } from '../testdata/cli.js';
import { generateCommand, newSession, type GenerateSession } from './command.js';
import { watchGenerate } from './watch.js';

const root = join(import.meta.dirname, '../..');
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-watch-'));
  temps.push(dir);
  return dir;
}

function edit(file: string, from: string | RegExp, to: string): void {
  const before = readFileSync(file, 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`${file}: ${String(from)} not found`);
  writeFileSync(file, after);
}

describe('incremental runs (one session, as --watch keeps it)', () => {
  let dir: string;
  let session: GenerateSession;
  const bases = (): string => join(dir, 'config/crd/bases');

  async function again(): Promise<{ lines: string[]; last: NonNullable<GenerateSession['last']> }> {
    const lines: string[] = [];
    await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, (l) => lines.push(l), session);
    return { lines, last: session.last! };
  }

  /** A fresh run without the session finds nothing to change: the incremental output is the full one. */
  async function expectSameAsFullRun(): Promise<void> {
    const lines: string[] = [];
    await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, (l) => lines.push(l));
    expect(lines).toEqual([]);
  }

  beforeAll(() => {
    dir = tempDir();
    cpSync(join(root, 'test/fixtures/generate/watch'), dir, { recursive: true });
    session = newSession();
  });

  it('parses and builds everything on the first run, nothing when no source changed', async () => {
    const first = await again();
    expect(first.lines).toEqual([
      'CREATE config/crd/bases/watch.example.com_anchors.yaml',
      'CREATE config/crd/bases/watch.example.com_bridges.yaml',
      'CREATE config/crd/bases/watch.example.com_canals.yaml',
    ]);
    expect(first.last).toMatchObject({ parsed: 6, crds: 3, built: 3 });
    const second = await again();
    expect(second.lines).toEqual([]);
    expect(second.last).toMatchObject({ parsed: 0, crds: 3, built: 0 });
  });

  it('re-parses one changed file and rebuilds only the CRD built from it', async () => {
    edit(join(dir, 'src/api/v1/canal-types.ts'), 'size?: number;', 'size?: number;\n  /** Mode is new. */\n  mode?: string;');
    const r = await again();
    expect(r.lines).toEqual(['UPDATE config/crd/bases/watch.example.com_canals.yaml']);
    expect(r.last).toMatchObject({ parsed: 1, built: 1 });
    expect(parse(readFileSync(join(bases(), 'watch.example.com_canals.yaml'), 'utf8')).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.mode).toEqual({ description: 'Mode is new.', type: 'string' });
    await expectSameAsFullRun();
  });

  it('rebuilds every CRD using a changed shared type, and those resolved through a changed re-export', async () => {
    edit(join(dir, 'src/api/shared/endpoint.ts'), 'host: string;', 'host: string;\n  /** Port is a TCP port. */\n  port?: number;');
    const r = await again();
    expect(r.lines).toEqual(['UPDATE config/crd/bases/watch.example.com_anchors.yaml', 'UPDATE config/crd/bases/watch.example.com_bridges.yaml']);
    expect(r.last).toMatchObject({ parsed: 1, built: 2 });
    await expectSameAsFullRun();
    // The index only re-exports; Anchor and Bridge resolved Endpoint through it, Canal did not.
    edit(join(dir, 'src/api/shared/index.ts'), 'kinds import them from here.', 'kinds import them from here (edited).');
    expect((await again()).last).toMatchObject({ parsed: 1, built: 2 });
  });

  it('rebuilds everything when a folder marker changes, and deletes the CRDs of the old group', async () => {
    edit(join(dir, 'src/api/v1/groupversion-info.ts'), '+groupName=watch.example.com', '+groupName=moved.example.com');
    const r = await again();
    expect(r.last).toMatchObject({ parsed: 1, built: 3 });
    expect(readdirSync(bases()).sort()).toEqual(['moved.example.com_anchors.yaml', 'moved.example.com_bridges.yaml', 'moved.example.com_canals.yaml']);
    await expectSameAsFullRun();
  });

  it('reports an error on each run until it is fixed, keeping the CRDs of other kinds', async () => {
    const bridge = join(dir, 'src/api/v1/bridge-types.ts');
    edit(bridge, 'target?: Endpoint;', 'target?: Endpont;');
    for (let i = 0; i < 2; i++) {
      const err = await again().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpgenErrors);
      expect((err as OpgenErrors).errors.map((e) => e.format())).toEqual([expect.stringMatching(/^src\/api\/v1\/bridge-types\.ts:6:12: error: Bridge\.spec\.target: cannot resolve type Endpont/)]);
    }
    expect(session.last).toMatchObject({ parsed: 0, built: 1 }); // Bridge is rebuilt to find the error again
    edit(bridge, 'target?: Endpont;', 'target?: Endpoint;');
    expect((await again()).last).toMatchObject({ parsed: 1, built: 1 });
    await expectSameAsFullRun();
  });

  it('takes in a new kind file and deletes the CRD of a removed one', async () => {
    const dock = join(dir, 'src/api/v1/dock-types.ts');
    writeFileSync(dock, readFileSync(join(dir, 'src/api/v1/canal-types.ts'), 'utf8').replaceAll('Canal', 'Dock'));
    const r = await again();
    expect(r.lines).toEqual(['CREATE config/crd/bases/moved.example.com_docks.yaml']);
    unlinkSync(dock);
    expect((await again()).lines).toEqual(['DELETE config/crd/bases/moved.example.com_docks.yaml']);
    expect(session.parsed.has(dock)).toBe(false); // the deleted file's parse is not kept
    await expectSameAsFullRun();
  });
});

describe('opgen generate --watch with wrong options', () => {
  const ctx = { cwd: '', out: () => undefined, err: () => undefined };
  it('refuses --check and --dry-run, and a --paths that does not exist, at once', async () => {
    const cwd = tempDir();
    const stop = new AbortController().signal;
    const base = { cwd, targets: [], check: false, dryRun: false };
    await expect(watchGenerate({ ...base, check: true }, ctx, stop)).rejects.toThrow(/--watch writes the files; it does not combine with --check/);
    await expect(watchGenerate({ ...base, dryRun: true }, ctx, stop)).rejects.toThrow(/does not combine with --dry-run/);
    await expect(watchGenerate({ ...base, paths: 'nope' }, ctx, stop)).rejects.toThrow(/nope does not exist/);
  });
});

describe('opgen generate --watch, in process: the scanned folder deleted and made again', () => {
  it('sees the folder come back and regenerates from what it holds then', async () => {
    const dir = tempDir();
    cpSync(join(root, 'test/fixtures/generate/watch'), dir, { recursive: true });
    const v1 = join(dir, 'src/api/v1');
    const saved = Object.fromEntries(readdirSync(v1).map((f) => [f, readFileSync(join(v1, f), 'utf8')]));
    const lines: string[] = [];
    const stop = new AbortController();
    const ctx = { cwd: dir, out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
    const watching = watchGenerate({ cwd: dir, targets: ['crd'], paths: 'src/api/v1', check: false, dryRun: false }, ctx, stop.signal);
    const until = async (what: string, ok: () => boolean): Promise<void> => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ok(), `${what}; the watcher printed:\n${lines.join('\n')}`).toBe(true);
    };
    const canal = join(dir, 'config/crd/bases/watch.example.com_canals.yaml');
    try {
      await until('the first run', () => existsSync(canal));
      rmSync(v1, { recursive: true });
      await until('the deletion reported', () => lines.some((l) => l.includes('src/api/v1 does not exist')));
      // Made again the way `git checkout` or a move does: the folder first, its files a moment later.
      mkdirSync(v1);
      await new Promise((r) => setTimeout(r, 150));
      for (const [f, text] of Object.entries(saved)) writeFileSync(join(v1, f), f === 'canal-types.ts' ? text.replace('size?: number;', 'size?: number;\n  /** Depth is new. */\n  depth?: number;') : text);
      await until('the CRD regenerated from the folder made again', () => readFileSync(canal, 'utf8').includes('Depth is new.'));
    } finally {
      stop.abort();
      await watching;
    }
  }, 30_000);
});

describe('opgen generate --watch (bin/opgen.js in a child process)', () => {
  let dir: string;
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let exit: Promise<number | null>;
  const types = (): string => join(dir, 'src/api/v1/memcached-types.ts');
  const crdFile = (): string => join(dir, 'config/crd/bases/cache.example.com_memcacheds.yaml');
  const otherCrd = (): string => join(dir, 'config/crd/bases/cache.example.com_caches.yaml');
  const specOf = (file: string): { properties: Record<string, { type?: string }> } => parse(readFileSync(file, 'utf8')).spec.versions[0].schema.openAPIV3Schema.properties.spec;

  /** Waits until stdout, after `from` characters, matches `re` (the watcher's status line ends each run). */
  async function waitForOut(from: number, re: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const seen = stdout.slice(from);
      if (re.test(seen)) return seen;
      if (child.exitCode !== null) throw new Error(`the watcher exited ${child.exitCode}:\n${stdout}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${String(re)} within ${timeoutMs} ms; stdout:\n${stdout.slice(from)}\nstderr:\n${stderr}`);
  }

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist/cli/main.js'))) throw new Error('dist/ is missing; run `npm run build` first');
    dir = join(tempDir(), 'watched-operator');
    mkdirSync(dir);
    await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
    await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Cache', '--controller=false');
    child = spawn(process.execPath, [join(root, 'bin/opgen.js'), 'generate', '--watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (s: string) => void (stdout += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => void (stderr += s));
    exit = new Promise((done) => child.on('exit', (code) => done(code)));
  });
  afterAll(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('generates everything first: both CRDs and the role', async () => {
    const out = await waitForOut(0, /^generated in \d+ ms \(parsed \d+ of \d+ files, rebuilt 2 of 2 CRDs\); watching for changes, Ctrl-C stops$/m);
    expect(out).toContain('CREATE config/crd/bases/cache.example.com_memcacheds.yaml\n');
    expect(out).toContain('CREATE config/crd/bases/cache.example.com_caches.yaml\n');
    expect(out).toMatch(/^(CREATE|UPDATE) config\/rbac\/role\.yaml$/m);
    expect(stderr).toBe('');
  });

  it('a changed field updates that CRD alone; the other files are not rewritten', async () => {
    const untouched = [otherCrd(), join(dir, 'config/rbac/role.yaml')].map((f) => [f, statSync(f).mtimeMs] as const);
    const from = stdout.length;
    edit(types(), 'foo?: string;', 'foo?: string;\n  /** Size is how many. */\n  size?: number;');
    const out = await waitForOut(from, /^regenerated in .*$/m);
    expect(out).toMatch(/^UPDATE config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml\nregenerated in \d+ ms \(parsed 1 of \d+ files, rebuilt 1 of 2 CRDs\); watching for changes, Ctrl-C stops\n$/);
    expect(specOf(crdFile()).properties.size).toEqual({ description: 'Size is how many.', type: 'number' });
    for (const [f, mtime] of untouched) expect(statSync(f).mtimeMs, f).toBe(mtime);
  });

  it('an error is printed as one file:line:col line, nothing is written, and the watcher stays', async () => {
    const before = readFileSync(crdFile(), 'utf8');
    const from = stdout.length;
    const errFrom = stderr.length;
    edit(types(), 'size?: number;', 'size?: nmber;');
    await waitForOut(from, /^1 error, nothing written; watching for changes, Ctrl-C stops$/m);
    expect(stderr.slice(errFrom)).toMatch(/^src\/api\/v1\/memcached-types\.ts:\d+:\d+: error: Memcached\.spec\.size: cannot resolve type nmber[^\n]*\n$/);
    expect(readFileSync(crdFile(), 'utf8')).toBe(before);
    expect(child.exitCode).toBeNull();
  });

  it('the fix, saved the way editors save safely (a copy renamed over the file), regenerates', async () => {
    const from = stdout.length;
    const copy = join(dir, 'src/api/v1/.memcached-types.ts.swp');
    writeFileSync(copy, readFileSync(types(), 'utf8').replace('size?: nmber;', 'size?: boolean;'));
    renameSync(copy, types());
    await waitForOut(from, /^regenerated in .*rebuilt 1 of 2 CRDs/m);
    expect(specOf(crdFile()).properties.size).toEqual({ description: 'Size is how many.', type: 'boolean' });
  });

  it('a new kind file gets its CRD; deleting it deletes the CRD', async () => {
    const dock = join(dir, 'src/api/v1/dock-types.ts');
    let from = stdout.length;
    writeFileSync(dock, readFileSync(join(dir, 'src/api/v1/cache-types.ts'), 'utf8').replaceAll('Cache', 'Dock').replaceAll('caches', 'docks'));
    await waitForOut(from, /^CREATE config\/crd\/bases\/cache\.example\.com_docks\.yaml\nregenerated in /m);
    from = stdout.length;
    unlinkSync(dock);
    await waitForOut(from, /^DELETE config\/crd\/bases\/cache\.example\.com_docks\.yaml\nregenerated in /m);
    expect(existsSync(join(dir, 'config/crd/bases/cache.example.com_docks.yaml'))).toBe(false);
  });

  it('Ctrl-C (SIGINT) ends it with exit code 0 and leaves no temp file', async () => {
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    const leftovers = ['config/crd/bases', 'config/rbac', 'src/api/v1'].flatMap((d) => readdirSync(join(dir, d)).filter((f) => f.startsWith('.opgen-')));
    expect(leftovers).toEqual([]);
  });
});

// `npm run example` on a machine with neither Go nor built binaries: it cannot start a cluster, so it must
// fail at once, in one line that says how to get them, before it scaffolds or starts anything. (The demo's
// runs with binaries, --keep and the plain-envtest fallback take minutes each; of those, the suite runs
// one, interrupted with Ctrl+C once the operator has scaled the sample, to check how fast it stops.)
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

describe('npm run example without Go and without cached binaries', () => {
  const cache = mkdtempSync(join(tmpdir(), 'opgen-example-empty-cache-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it('fails in one line that says how to get them, and exits 1', async () => {
    // What e2e/example.sh runs after `npm run build` (the suite has built dist/ already).
    const tsc = await execa('npx', ['--no-install', 'tsc', '-p', 'e2e/demo/tsconfig.json'], { cwd: repoRoot, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);

    const withoutGo = (process.env.PATH ?? '').split(':').filter((dir) => dir && !existsSync(join(dir, 'go'))).join(':');
    const r = await execa(process.execPath, ['e2e/demo/dist/demo/main.js'], {
      cwd: repoRoot, reject: false, extendEnv: false,
      // No KUBEBUILDER_ASSETS / OPGEN_CLUSTER_ASSETS, and the scripts' cache (.ci/test-assets.sh) is empty.
      env: { PATH: withoutGo, HOME: process.env.HOME, OPGEN_ASSETS_CACHE: cache, XDG_CACHE_HOME: cache },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^example: needs kube-apiserver and etcd: install Go >= 1\.26 .*KUBEBUILDER_ASSETS=.*run `npm run example` again$/);
    // Nothing was built or started: the cache holds at most the build lock.
    expect(readdirSync(cache).filter((f) => !f.endsWith('.lock'))).toEqual([]);
  }, 120_000);
});

describe('npm run example -- --help', () => {
  it('prints the usage and exits 0 without building or starting anything', async () => {
    const built = statSync(join(repoRoot, 'dist/cli/main.js')).mtimeMs;
    const r = await execa('npm', ['run', '--silent', 'example', '--', '--help'], { cwd: repoRoot, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('Usage: npm run example -- [folder] [--keep]');
    expect(r.stdout).toContain('--keep  leave the cluster running');
    expect(statSync(join(repoRoot, 'dist/cli/main.js')).mtimeMs).toBe(built); // `npm run build` did not run
  }, 60_000);

  it('the demo itself answers --help, and an unknown option in one line with the usage (exit 2)', async () => {
    const tsc = await execa('npx', ['--no-install', 'tsc', '-p', 'e2e/demo/tsconfig.json'], { cwd: repoRoot, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);
    const help = await execa(process.execPath, ['e2e/demo/dist/demo/main.js', '-h'], { cwd: repoRoot, reject: false });
    expect([help.exitCode, help.stdout]).toEqual([0, 'Usage: npm run example -- [folder] [--keep]']);
    const bad = await execa(process.execPath, ['e2e/demo/dist/demo/main.js', '--kep'], { cwd: repoRoot, reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^example: Unknown option '--kep'.*\(Usage: npm run example -- \[folder\] \[--keep\]\)$/);
  }, 120_000);
});

describe('npm run example, stopped with Ctrl+C', () => {
  /** Runs the demo in its own process group (a terminal's foreground job), sends SIGINT to the group once `when` is printed; exit code and seconds to exit. */
  async function interruptWhen(args: string[], when: string): Promise<{ code: number | undefined; seconds: number; output: string }> {
    const demo = execa(process.execPath, ['e2e/demo/dist/demo/main.js', ...args], { cwd: repoRoot, reject: false, all: true, detached: true });
    let output = '';
    const reached = new Promise<void>((resolve) => demo.all.on('data', (c: Buffer) => {
      output += c.toString();
      if (output.includes(when)) resolve();
    }));
    await Promise.race([reached, demo.then(() => { throw new Error(`the demo ended before printing ${when}:\n${output}`); })]);
    const interrupted = performance.now();
    process.kill(-demo.pid!, 'SIGINT');
    const r = await demo;
    const seconds = (performance.now() - interrupted) / 1000;
    console.log(`${args.join(' ') || 'example'}: stopped ${seconds.toFixed(1)} s after Ctrl+C`);
    return { code: r.exitCode, seconds, output };
  }

  it('--keep: the cluster left running stops within a few seconds, exit 0', async () => {
    expect(process.env.KUBEBUILDER_ASSETS, 'set by test/global-setup.ts').toBeTruthy();
    const tsc = await execa('npx', ['--no-install', 'tsc', '-p', 'e2e/demo/tsconfig.json'], { cwd: repoRoot, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);
    const { code, seconds, output } = await interruptWhen(['--keep'], 'The cluster keeps running until you press Ctrl+C');
    expect(code, output).toBe(0);
    expect(seconds, output).toBeLessThan(10);
  }, 900_000);

  it('once the operator has scaled the sample: operator and cluster stop within a few seconds, exit 130', async () => {
    expect(process.env.KUBEBUILDER_ASSETS, 'set by test/global-setup.ts').toBeTruthy();
    const tsc = await execa('npx', ['--no-install', 'tsc', '-p', 'e2e/demo/tsconfig.json'], { cwd: repoRoot, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);
    // The sample is applied and scaled, and carries the operator's finalizer.
    const { code, seconds, output } = await interruptWhen([], 'what the operator did');
    expect(code, output).toBe(130);
    expect(seconds, output).toBeLessThan(10);
  }, 900_000);
});

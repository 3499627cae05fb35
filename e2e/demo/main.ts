// `npm run example`: an operator at work. Scaffolds docs/tutorial.md's Memcached operator (running the
// tutorial's own code blocks, from the packed opgen and @opgen/runtime), generates its manifests, starts
// a local cluster, runs the operator, applies the sample and scales it, prints what the cluster did, and
// cleans up. The cluster is simulated (kube-controller-manager, kube-scheduler and kwok beside
// kube-apiserver and etcd) when those binaries exist or Go can build them; otherwise it is the plain
// test API server, and the demo says what is missing.
// Usage: npm run example -- [folder] [--keep]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { packPackages, repoRoot } from '../helpers.js';
import { TutorialRunner } from '../tutorial-runner.js';

const USAGE = 'Usage: npm run example -- [folder] [--keep]';
const say = (line: string) => console.log(`\x1b[1mexample:\x1b[0m ${line}`);
const fail = (line: string): never => { console.error(`example: ${line}`); process.exit(1); };
const { values, positionals } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
  } catch (err) {
    console.error(`example: ${(err as Error).message.split('\n')[0]} (${USAGE})`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const started = performance.now();
const elapsed = () => `${Math.round((performance.now() - started) / 1000)} s`;

/** What a .ci script gave: the folder of built binaries, or why there is none (one line, or a build's last lines). */
type Assets = { folder: string } | { missing: string };

/**
 * The binaries a .ci script builds: from its cache when built before (`--cached` builds nothing), else
 * built with Go, printing a line every 30 s while it works (a cold build takes minutes).
 */
async function getAssets(script: string, what: string): Promise<Assets> {
  const cached = spawnSync('bash', [join(repoRoot, '.ci', script), '--cached'], { encoding: 'utf8' });
  if (cached.status === 0) return { folder: cached.stdout.trim() };
  if (!onPath('go')) return { missing: 'not built yet, and no Go on PATH to build them' };
  say(`getting ${what} (built from the Go module proxy on the first run; later runs reuse ~/.cache/opgen)`);
  const t0 = performance.now();
  const ticker = setInterval(() => say(`  still building ${what}: ${Math.round((performance.now() - t0) / 1000)} s`), 30_000);
  try {
    const child = spawn('bash', [join(repoRoot, '.ci', script)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    // The scripts' own progress lines ("building kube-scheduler ...") are worth showing; go's download chatter is not.
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      for (const line of c.toString().split('\n')) if (/^(test-assets|cluster-assets):/.test(line)) say(`  ${line}`);
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    if (code === 0) return { folder: out.trim() };
    return { missing: `building ${what} failed (.ci/${script}):\n${err.trimEnd().split('\n').slice(-15).join('\n')}` };
  } finally {
    clearInterval(ticker);
  }
}

const onPath = (command: string) => (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, command)));

async function main(): Promise<void> {
  // 1. The cluster's binaries.
  if (!process.env.KUBEBUILDER_ASSETS) {
    const got = await getAssets('test-assets.sh', 'kube-apiserver and etcd');
    if ('missing' in got) {
      fail(got.missing.includes('no Go on PATH')
        ? 'needs kube-apiserver and etcd: install Go >= 1.26 (the first run then builds them, about 10 minutes) or ' +
          '`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)` (kubebuilder\'s setup-envtest), and run `npm run example` again'
        : got.missing);
    }
    process.env.KUBEBUILDER_ASSETS = (got as { folder: string }).folder;
  }
  const assets = process.env.KUBEBUILDER_ASSETS!;
  if (!onPath('kubectl') && existsSync(join(assets, 'kubectl'))) process.env.PATH = `${assets}:${process.env.PATH ?? ''}`;
  if (!onPath('kubectl')) fail('needs kubectl on PATH (the tutorial uses it): https://kubernetes.io/docs/tasks/tools/');
  // The simulated cluster's binaries when there are or can be; otherwise the plain test API server, saying why.
  let simulated = true;
  if (!process.env.OPGEN_CLUSTER_ASSETS) {
    const got = await getAssets('cluster-assets.sh', 'kube-controller-manager, kube-scheduler and kwok');
    if ('folder' in got) process.env.OPGEN_CLUSTER_ASSETS = got.folder;
    else {
      simulated = false;
      say(`no kube-controller-manager, kube-scheduler and kwok: ${got.missing}`);
      say('running on the plain test API server (kube-apiserver, etcd), where a Deployment gets no pods. For the simulated ' +
        'cluster install Go >= 1.26 (the next run builds them), or export OPGEN_CLUSTER_ASSETS=<folder holding them>.');
    }
  }

  // 2. Where the operator goes.
  const target = positionals[0] ? resolve(positionals[0]) : undefined;
  if (target && existsSync(join(target, 'memcached-operator'))) fail(`${join(target, 'memcached-operator')} exists; pass another folder`);
  const work = target ?? mkdtempSync(join(tmpdir(), 'opgen-example-'));
  mkdirSync(work, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'opgen-example-packages-'));

  say(`starting a ${simulated ? 'simulated cluster (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok with one fake node)' : 'test API server (kube-apiserver, etcd)'} and packing opgen`);
  const [packed, startedEnv] = await Promise.allSettled([packPackages(scratch), startTestEnv({ simulatedCluster: simulated })]);
  if (packed.status === 'rejected' || startedEnv.status === 'rejected') {
    // e.g. Ctrl+C while the cluster starts, or a binary that does not run: say so, leave nothing behind.
    if (startedEnv.status === 'fulfilled') await startedEnv.value.stop();
    rmSync(scratch, { recursive: true, force: true });
    if (!target) rmSync(work, { recursive: true, force: true });
    const err = (packed.status === 'rejected' ? packed.reason : (startedEnv as PromiseRejectedResult).reason) as Error;
    fail(`${packed.status === 'rejected' ? 'packing opgen' : 'starting the cluster'} failed: ${err.message}`);
  }
  const tarballs = (packed as PromiseFulfilledResult<Awaited<ReturnType<typeof packPackages>>>).value;
  const env = (startedEnv as PromiseFulfilledResult<TestEnv>).value;
  say(`cluster up (${elapsed()}); KUBECONFIG=${env.kubeconfigPath}`);
  const unpacked = join(scratch, 'opgen-cli');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarballs.opgen, '-C', unpacked]);
  symlinkSync(join(repoRoot, 'node_modules'), join(unpacked, 'package', 'node_modules'), 'dir');

  const tutorial = new TutorialRunner({
    work, tarballs, cli: join(unpacked, 'package', 'bin', 'opgen.js'),
    env: { KUBECONFIG: env.kubeconfigPath },
    onOutput: (text) => process.stdout.write(text.replace(/^(?=.)/gm, '  ')),
    // The project's own tests are the tutorial's business; the demo shows the operator running.
    skip: (block) => block.attrs.id === 'test',
  });
  const operatorRunning = () => tutorial.background.length > 0;
  const kubectl = async (...args: string[]) => {
    console.log(`  $ kubectl ${args.join(' ')}`);
    const r = await execa('kubectl', args, { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, all: true, reject: false });
    console.log(String(r.all).replace(/^(?=.)/gm, '  '));
  };
  let cleaned = false;
  const cleanUp = async ({ interrupted = false } = {}) => {
    if (cleaned) return;
    cleaned = true;
    if (operatorRunning()) {
      // Deleting while the operator runs lets it release its finalizer (and record the event). Not after
      // Ctrl+C: the terminal sent SIGINT to the operator too, so nobody would remove the finalizer and
      // the delete would wait out its timeout; the cluster goes away with its data anyway.
      if (!interrupted) await execa('kubectl', ['delete', '--ignore-not-found', '--timeout=30s', 'memcached/memcached-sample'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, reject: false });
      for (const { process: p } of tutorial.background) p.kill('SIGTERM');
      await Promise.all(tutorial.background.map((b) => b.process));
    }
    await env.stop();
    rmSync(scratch, { recursive: true, force: true });
    if (!target) {
      // The scaffolded project holds a full node_modules: removing it takes seconds to tens of seconds on a
      // busy disk. After Ctrl+C a detached `rm -rf` does it, so the demo exits at once.
      if (interrupted) spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
      else rmSync(work, { recursive: true, force: true });
    }
  };
  // Ctrl+C: the way out of --keep (exit 0), or an interruption (130).
  process.once('SIGINT', () => { void cleanUp({ interrupted: true }).then(() => process.exit(values.keep ? 0 : 130)); });

  try {
    say('scaffolding the Memcached operator of docs/tutorial.md (its code blocks, in order)');
    await tutorial.runUntil('run-operator');
    say(`the operator runs (${elapsed()})`);
    if (simulated) {
      await tutorial.runUntil('scale');
      say(`what the operator did (${elapsed()}):`);
      await kubectl('get', 'deployment', 'memcached-sample');
      await kubectl('get', 'pods', '-l', 'app.kubernetes.io/instance=memcached-sample', '-o', 'wide');
      await kubectl('get', 'memcached', 'memcached-sample', '-o',
        'jsonpath={range .status.conditions[*]}{.type}={.status} ({.reason}: {.message}) observedGeneration={.observedGeneration}{"\\n"}{end}');
      await kubectl('get', 'events', '--sort-by=.lastTimestamp');
    } else {
      await kubectl('apply', '-f', join(tutorial.projectDir, 'config/samples/cache_v1alpha1_memcached.yaml'));
      await execa('kubectl', ['wait', '--for=create', '--timeout=60s', 'deployment/memcached-sample'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, reject: false });
      say('the operator created the Deployment; without kube-controller-manager and kwok no pods run, so it stays 0/1 and Available=False:');
      await kubectl('get', 'deployment', 'memcached-sample');
      await kubectl('get', 'memcached', 'memcached-sample', '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status} ({.message}){"\\n"}{end}');
    }
    if (values.keep) {
      say('--keep: removing the sample and stopping the demo\'s operator, so you can follow docs/tutorial.md on this cluster');
      await execa('kubectl', ['delete', '--timeout=30s', 'memcached/memcached-sample'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, reject: false });
      for (const { process: p } of tutorial.background) p.kill('SIGTERM');
      await Promise.all(tutorial.background.map((b) => b.process));
      tutorial.background.length = 0;
      await execa('kubectl', ['delete', 'crd', 'memcacheds.cache.example.com'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, reject: false });
      console.log(`\nThe cluster keeps running until you press Ctrl+C. In another terminal:\n\n  export KUBECONFIG=${env.kubeconfigPath}\n  kubectl get ${simulated ? 'nodes' : 'namespaces'}\n`);
      // Without kube-controller-manager and kwok the tutorial's `kubectl wait --for=condition=Available` never returns.
      if (!simulated) say('this is the plain test API server: Deployments get no pods, so the tutorial\'s operator never reports Available here');
      // The cluster's processes do not keep Node alive (envtest unrefs them); this timer does, until Ctrl+C.
      setInterval(() => {}, 1 << 30);
      await new Promise<void>(() => { /* until SIGINT */ });
    }
  } catch (err) {
    await cleanUp().catch(() => {});
    fail((err as Error).message);
  }
  await cleanUp();
  say(`done in ${elapsed()}${target ? `; the operator's project is in ${join(work, 'memcached-operator')}` : ''}`);
}

void main();

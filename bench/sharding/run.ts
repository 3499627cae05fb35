// bench/sharding: N Guestbooks (default 10,000) reconciled to a Ready condition by 1 and then by 3
// sharded replicas (bench/sharding/replica.ts, each its own Node process, set up as a scaffolded
// operator) against one envtest kube-apiserver 1.36. For each run: the replicas start and settle their
// ring first, then the Guestbooks are created (50 at a time) in a namespace of their own; the time is
// from the first create to every Guestbook's Ready condition written (each replica prints a line per
// reconcile after its status write). CPU is user + sys of every replica process (from /proc) over the
// same span (user and system apart), peak RSS is each replica's VmHWM, idle RSS its VmRSS once the ring
// settled, and idle CPU each settled replica's CPU per second over 10 s before the creates. Replicas run
// with the scaffolded image's node flags and environment.
// --mode server (default): the API server's shard selector is on (--feature-gates=ShardedListAndWatch=true),
// so each replica lists and watches only its share; --mode client: the gate is off and each replica
// lists everything, keeping its share.
// --cpu-prof <dir>: each replica writes a V8 CPU profile there when it stops (<replicas>-r<i>.cpuprofile).
// Usage: npm run bench:sharding -- [--count 10000] [--mode server|client] [--cpu-prof <dir>]
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient, groupVersion, Namespace, type Client, type KubeObject } from '@opgen/runtime';
import { startTestEnv } from '@opgen/runtime/envtest';

const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind<KubeObject & { spec?: { size?: number } }>('Guestbook');

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const replicaScript = fileURLToPath(new URL('replica.js', import.meta.url));
const crd = join(repo, 'runtime/src/manager/testdata/guestbooks.yaml');

const { values } = parseArgs({ options: { count: { type: 'string', default: '10000' }, mode: { type: 'string', default: 'server' }, 'cpu-prof': { type: 'string' } } });
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1) fail(`--count must be a whole number ≥ 1 (got '${values.count}')`);
if (values.mode !== 'server' && values.mode !== 'client') fail(`--mode takes 'server' or 'client' (got '${values.mode}')`);
const serverSide = values.mode === 'server';

function fail(message: string): never {
  process.stderr.write(`bench/sharding: ${message}\n`);
  process.exit(1);
}

const say = (figure: string, value: string) => process.stdout.write(`sharding: ${figure}: ${value}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ticks = 100;

/** User and system CPU seconds of a live process. */
function cpuOf(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / ticks, sys: Number(fields[12]) / ticks };
}
const cpuSeconds = (pid: number) => {
  const { user, sys } = cpuOf(pid);
  return user + sys;
};
/** Seconds of an idle, settled replica's CPU per second, measured over this long (the fixed cost each replica adds). */
const idleWindowMs = 10_000;

/** VmHWM (peak) or VmRSS (now) of a live process, in MiB. */
function rssMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Replica {
  child: ChildProcess;
  gauges: Record<string, number>;
  done: Set<string>;
  exited: Promise<void>;
}

/**
 * The node flags and environment of the scaffolded image (templates/init/Dockerfile.hbs: its ENTRYPOINT's
 * flags and ENV lines), so each replica runs as a deployed operator does.
 */
function scaffoldImage(): { flags: string[]; env: Record<string, string> } {
  const dockerfile = readFileSync(join(repo, 'templates/init/Dockerfile.hbs'), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!entrypoint) fail('templates/init/Dockerfile.hbs has no ENTRYPOINT ["…"] line to take the node flags from');
  const flags = (JSON.parse(entrypoint) as string[]).filter((a) => a.startsWith('--'));
  const env: Record<string, string> = {};
  for (const m of dockerfile.matchAll(/^ENV (\w+)=(\S+)$/gm)) env[m[1]!] = m[2]!;
  return { flags, env };
}
const image = scaffoldImage();

function startReplica(id: string, kubeconfigPath: string, namespace: string, of: number): Replica {
  const prof = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`, `--cpu-prof-name=${of}-${id}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...image.flags, ...prof, replicaScript, '--namespace', namespace, '--identity', id, '--replicas', String(of)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...image.env, ...process.env, KUBECONFIG: kubeconfigPath },
  });
  const replica: Replica = { child, gauges: {}, done: new Set(), exited: new Promise((resolve) => child.on('exit', () => resolve())) };
  let buffered = '';
  child.stdout!.on('data', (c: Buffer) => {
    buffered += c.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      const msg = JSON.parse(line) as { k?: string; m?: Record<string, number> };
      if (msg.m) Object.assign(replica.gauges, msg.m);
      else if (msg.k) replica.done.add(msg.k);
    }
  });
  return replica;
}

async function run(env: Awaited<ReturnType<typeof startTestEnv>>, client: Client, n: number): Promise<{ seconds: number; cpu: number; user: number; sys: number; idleCpu: number; idle: number[]; rss: number[] }> {
  const namespace = `bench-${n}`;
  await client.create(Namespace, { metadata: { name: namespace } });
  const replicas = Array.from({ length: n }, (_, i) => startReplica(`r${i}`, env.kubeconfigPath, namespace, n));
  const settled = () => replicas.every((r) => r.gauges.opgen_sharding_ring_members === n && r.gauges.opgen_sharding_active === 1);
  for (let waited = 0; !settled(); waited += 100) {
    if (waited > 120_000) fail(`the ${n} replicas did not settle their ring within 120 s`);
    await sleep(100);
  }
  const idle = replicas.map((r) => rssMiB(r.child.pid!, 'VmRSS'));
  const idle0 = replicas.map((r) => cpuSeconds(r.child.pid!));
  await sleep(idleWindowMs);
  const idleCpu = replicas.reduce((sum, r, i) => sum + cpuSeconds(r.child.pid!) - idle0[i]!, 0) / n / (idleWindowMs / 1000);
  const cpu0 = replicas.map((r) => cpuOf(r.child.pid!));
  const t0 = performance.now();
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => client.create(Guestbook, { metadata: { name: `gb-${i + j}`, namespace }, spec: { size: 1 } })));
  }
  const ready = () => replicas.reduce((sum, r) => sum + r.done.size, 0);
  while (ready() < count) {
    if (performance.now() - t0 > 1_800_000) fail(`only ${ready()} of ${count} Ready after 30 minutes`);
    await sleep(100);
  }
  const seconds = (performance.now() - t0) / 1000;
  const end = replicas.map((r) => cpuOf(r.child.pid!));
  const user = end.reduce((sum, c, i) => sum + c.user - cpu0[i]!.user, 0);
  const sys = end.reduce((sum, c, i) => sum + c.sys - cpu0[i]!.sys, 0);
  const cpu = user + sys;
  const rss = replicas.map((r) => rssMiB(r.child.pid!, 'VmHWM'));
  for (const r of replicas) r.child.kill('SIGTERM');
  await Promise.all(replicas.map((r) => r.exited));
  return { seconds, cpu, user, sys, idleCpu, idle, rss };
}

const env = await startTestEnv({ crdPaths: [crd], apiServerFlags: serverSide ? { 'feature-gates': 'ShardedListAndWatch=true' } : {} });
const client = createClient(env.kubeConfig);
try {
  say('objects', String(count));
  say('replica node flags', `${image.flags.join(' ')} ${Object.entries(image.env).map(([k, v]) => `${k}=${process.env[k] ?? v}`).join(' ')}`);
  say('mode', serverSide ? 'server-side shard selector (ShardedListAndWatch on)' : 'client-side filter (gate off)');
  const one = await run(env, client, 1);
  say('1 replica: time to all Ready', `${one.seconds.toFixed(1)} s`);
  say('1 replica: CPU', `${one.cpu.toFixed(1)} s (user ${one.user.toFixed(1)}, sys ${one.sys.toFixed(1)})`);
  say('1 replica: idle CPU', `${(one.idleCpu * 1000).toFixed(1)} ms/s`);
  say('1 replica: idle RSS', `${one.idle[0]!.toFixed(0)} MiB`);
  say('1 replica: peak RSS', `${one.rss[0]!.toFixed(0)} MiB`);
  const three = await run(env, client, 3);
  say('3 replicas: time to all Ready', `${three.seconds.toFixed(1)} s`);
  say('3 replicas: total CPU', `${three.cpu.toFixed(1)} s (user ${three.user.toFixed(1)}, sys ${three.sys.toFixed(1)})`);
  say('3 replicas: idle CPU per replica', `${(three.idleCpu * 1000).toFixed(1)} ms/s`);
  // What two more idle processes cost over the run, beside the work itself.
  say('3 replicas: CPU of 2 more idle replicas over the run', `${(2 * three.idleCpu * three.seconds).toFixed(1)} s`);
  say('3 replicas: idle RSS per replica', three.idle.map((r) => `${r.toFixed(0)} MiB`).join(' / '));
  say('3 replicas: peak RSS per replica', three.rss.map((r) => `${r.toFixed(0)} MiB`).join(' / '));
  say('ratio time (3 / 1)', (three.seconds / one.seconds).toFixed(2));
  say('ratio total CPU (3 / 1)', (three.cpu / one.cpu).toFixed(2));
  say('ratio peak RSS (largest of 3 / 1)', (Math.max(...three.rss) / one.rss[0]!).toFixed(2));
  // What the share can shrink: a replica's peak above its own idle process.
  const above = (r: { idle: number[]; rss: number[] }) => Math.max(...r.rss.map((peak, i) => peak - r.idle[i]!));
  say('ratio peak RSS above idle (largest of 3 / 1)', (above(three) / above(one)).toFixed(2));
} finally {
  await env.stop();
}

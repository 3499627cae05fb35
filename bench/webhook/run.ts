// bench/webhook: admission round trips per second and p50/p99 latency on loopback, for opgen's
// webhook server (server.ts) and controller-runtime's (bench/peers/webhook-server), each in its own
// process with the same trivial allow-everything handler, loaded by the same client: --concurrency
// keep-alive HTTPS connections sending a realistic AdmissionReview (a Pod CREATE) as the API server
// does. A bare node:https server giving the same answer runs too, as the floor Node's HTTPS stack
// sets (--only node|ts|go picks one). Rounds alternate the servers so drifting machine load hits both alike. Target: opgen's p99
// ≤ 1.5× controller-runtime's. Printed, not asserted.
// Usage (via `npm run bench:webhook -- <flags>`): --requests 20000 --warmup 2000 --concurrency 8 --rounds 3 --only ts|go|node
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const benchDir = fileURLToPath(new URL('../', import.meta.url));
const peersDir = join(benchDir, '..', 'peers');
const serverJs = fileURLToPath(new URL('./server.js', import.meta.url));
const bareServerJs = fileURLToPath(new URL('./bare-server.js', import.meta.url));
// The runtime's own tiny CA (internal, so not exported by @opgen/runtime); this file runs from bench/webhook/dist.
const { TinyCa } = (await import(new URL('../../../runtime/dist/internal/tls/tiny-ca.js', import.meta.url).href)) as typeof import('../../runtime/dist/internal/tls/tiny-ca.js');

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
for (const [flag, n] of [['--requests', requests], ['--concurrency', concurrency], ['--rounds', rounds]] as const) {
  if (!Number.isInteger(n) || n < 1) fail(`${flag} must be a whole number ≥ 1`);
}
if (!Number.isInteger(warmup) || warmup < 0) fail('--warmup must be a whole number ≥ 0');
if (values.only !== undefined && !['ts', 'go', 'node'].includes(values.only)) fail(`--only takes 'ts', 'go' or 'node' (got '${values.only}')`);

function fail(message: string): never {
  process.stderr.write(`bench/webhook: ${message}\n`);
  process.exit(1);
}

interface Server { label: string; key: 'ts' | 'go' | 'node'; command: string; args: (port: number, certDir: string) => string[] }
interface Outcome { rps: number; p50: number; p99: number; errors: number }

// What the API server sends for `kubectl run` (trimmed of nothing that matters for size: ~2 KB).
function review(i: number): string {
  const pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `bench-${i}`, namespace: 'default', labels: { app: 'bench', run: `bench-${i}` }, annotations: { 'kubectl.kubernetes.io/default-container': 'app' } },
    spec: {
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } }, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', securityContext: {}, schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {},
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' }, requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: `bench-${i}`, namespace: 'default', operation: 'CREATE',
      userInfo: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
      object: pod, oldObject: null, dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-run' },
    },
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

function post(agent: Agent, port: number, ca: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/validate?timeout=10s', method: 'POST', agent, ca, servername: 'localhost',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200 || !text.includes('"allowed":true')) reject(new Error(`${res.statusCode}: ${text.slice(0, 200)}`));
        else resolve();
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitUntilServing(port: number, ca: string, child: ChildProcess): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      await post(agent, port, ca, review(0));
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('the server did not start serving within 10 s');
}

async function load(port: number, ca: string, total: number, bodies: string[]): Promise<Outcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = new Float64Array(total);
  let next = 0;
  let errors = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const i = next++;
      const t0 = process.hrtime.bigint();
      try {
        await post(agent, port, ca, bodies[i % bodies.length]!);
      } catch {
        errors++;
      }
      latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  latencies.sort();
  const at = (q: number) => latencies[Math.min(total - 1, Math.floor(q * total))]!;
  return { rps: total / seconds, p50: at(0.5), p99: at(0.99), errors };
}

async function measure(server: Server, certDir: string, ca: string, bodies: string[]): Promise<Outcome> {
  const port = await freePort();
  const child = spawn(server.command, server.args(port, certDir), { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await waitUntilServing(port, ca, child);
    if (warmup > 0) await load(port, ca, warmup, bodies);
    return await load(port, ca, requests, bodies);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  }
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'opgen-bench-webhook-'));
  try {
    const ca = TinyCa.create('bench-webhook-ca');
    const pair = ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
    writeFileSync(join(workDir, 'tls.crt'), pair.certPem);
    writeFileSync(join(workDir, 'tls.key'), pair.keyPem);
    const goBinary = join(workDir, 'webhook-server');
    const peerVersion = /sigs\.k8s\.io\/controller-runtime (v\S+)/.exec(readFileSync(join(peersDir, 'go.mod'), 'utf8'))?.[1] ?? '?';
    const servers = ([
      { label: `controller-runtime ${peerVersion} (Go)`, key: 'go', command: goBinary, args: (port: number, dir: string) => ['--port', String(port), '--cert-dir', dir] },
      { label: `@opgen/runtime (Node ${process.version})`, key: 'ts', command: process.execPath, args: (port: number, dir: string) => [serverJs, '--port', String(port), '--cert-dir', dir] },
      { label: 'bare node:https, same answer (floor)', key: 'node', command: process.execPath, args: (port: number, dir: string) => [bareServerJs, '--port', String(port), '--cert-dir', dir] },
    ] satisfies Server[]).filter((s) => values.only === undefined || s.key === values.only);
    if (servers.some((s) => s.key === 'go')) {
      process.stderr.write('bench/webhook: building the controller-runtime peer (bench/peers/webhook-server)…\n');
      try {
        await promisify(execFile)('go', ['build', '-o', goBinary, './webhook-server'], { cwd: peersDir, maxBuffer: 16 << 20 });
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { stderr?: string };
        throw new Error(e.code === 'ENOENT' ? 'go is not installed; it builds the controller-runtime peer in bench/peers (or pass --only ts)' : `go build failed:\n${e.stderr ?? e.message}`);
      }
    }
    const bodies = Array.from({ length: 64 }, (_, i) => review(i));
    process.stdout.write(`bench/webhook: ${requests} admission reviews (${Buffer.byteLength(bodies[0]!)} B) per round after ${warmup} warm-up, ${concurrency} keep-alive connections, ${rounds} round(s), loopback\n`);
    const results = new Map<string, Outcome[]>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const o = await measure(s, workDir, ca.certPem, bodies);
        results.set(s.key, [...(results.get(s.key) ?? []), o]);
        process.stdout.write(`  round ${round + 1} ${s.label}: ${o.rps.toFixed(0)} reviews/s, p50 ${o.p50.toFixed(2)} ms, p99 ${o.p99.toFixed(2)} ms${o.errors ? `, ${o.errors} errors` : ''}\n`);
      }
    }
    // Median round per server, by p99.
    const median = (os: Outcome[]) => [...os].sort((a, b) => a.p99 - b.p99)[Math.floor(os.length / 2)]!;
    process.stdout.write('median round:\n');
    for (const s of servers) {
      const o = median(results.get(s.key)!);
      process.stdout.write(`  ${s.label}: ${o.rps.toFixed(0)} reviews/s, p50 ${o.p50.toFixed(2)} ms, p99 ${o.p99.toFixed(2)} ms\n`);
    }
    const ts = results.get('ts');
    const go = results.get('go');
    if (ts && go) {
      const t = median(ts);
      const g = median(go);
      const ratio = t.p99 / g.p99;
      process.stdout.write(`opgen / controller-runtime: p99 ${ratio.toFixed(2)}× (target ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'NOT met'}), p50 ${(t.p50 / g.p50).toFixed(2)}×, throughput ${(t.rps / g.rps).toFixed(2)}×\n`);
    }
    const bare = results.get('node');
    if (ts && bare) {
      const t = median(ts);
      const b = median(bare);
      process.stdout.write(`opgen / bare node:https: p99 ${(t.p99 / b.p99).toFixed(2)}×, p50 ${(t.p50 / b.p50).toFixed(2)}×, throughput ${(t.rps / b.rps).toFixed(2)}×\n`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();

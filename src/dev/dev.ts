// `opgen dev`: the inner loop. Generates and applies the CRDs, builds, runs the operator locally against
// the current context (or a simulated cluster with --cluster), streams its logs, and on a source change
// transpiles only the changed files and restarts it; regenerates (and re-applies the CRDs when they
// changed) in the background. Cleans up on exit: the operator is stopped with SIGTERM, so the runtime
// restores any webhook configuration it pointed at itself; a simulated cluster is stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { ts } from 'ts-morph';
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { Kubectl, KubectlError } from '../doctor/kubectl.js';
import { loadDoctorProject, yamlObjects } from '../doctor/project.js';

export interface DevOptions {
  kubeconfig?: string;
  /** Start the simulated cluster (`npm run example`'s) and use it. */
  cluster: boolean;
  /** The URL the cluster should call for webhooks (a tunnel to this machine), for a remote API server. */
  webhookUrl?: string;
  /** Arguments for the operator (after `--`). */
  args: string[];
}

/** The operator gets this long to stop (and restore webhooks) before SIGKILL. */
const STOP_GRACE_MS = 10_000;
const DEBOUNCE_MS = 30;

/** Whether a kubeconfig server URL names this machine by a loopback address (the runtime's rule: names are not resolved). */
export function isLoopbackServer(server: string): boolean {
  let host: string;
  try {
    host = new URL(server).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Where each source file's JavaScript goes: tsconfig.build.json's rootDir src, outDir dist. */
const outFile = (root: string, file: string): string => join(root, 'dist', relative(join(root, 'src'), file)).replace(/\.ts$/, '.js');

/** One file to JavaScript with its source map, without type checking: milliseconds, where tsc takes seconds. */
export function transpileFile(root: string, file: string): void {
  const out = outFile(root, file);
  const r = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, sourceMap: true, inlineSources: false },
  });
  mkdirSync(dirname(out), { recursive: true });
  const map = JSON.parse(r.sourceMapText ?? '{}') as { sources?: string[]; file?: string };
  map.file = `${out.split('/').pop()}`;
  map.sources = [relative(dirname(out), file)];
  writeFileSync(out, r.outputText.replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${map.file}.map`));
  writeFileSync(`${out}.map`, JSON.stringify(map));
}

function crdDigest(root: string): string {
  return createHash('sha256').update(JSON.stringify(yamlObjects(join(root, 'config/crd/bases')))).digest('hex');
}

export async function devCommand(ctx: CommandContext, opts: DevOptions, signal: AbortSignal): Promise<number> {
  const root = ctx.cwd;
  const project = loadDoctorProject(root);
  let stopCluster: (() => Promise<void>) | undefined;
  let kubeconfig = opts.kubeconfig;
  if (opts.cluster) {
    if (kubeconfig) throw new OpgenError('--cluster starts its own cluster; it takes no --kubeconfig', { flag: '--cluster' }, 'pass one of them');
    ctx.err('dev: starting the simulated cluster (kube-apiserver, etcd, controller-manager, scheduler, kwok)');
    const { startTestEnv } = await import('@opgen/runtime/envtest');
    const env = await startTestEnv({ simulatedCluster: true });
    stopCluster = () => env.stop();
    kubeconfig = env.kubeconfigPath;
    ctx.err(`dev: simulated cluster at ${env.server}; kubectl --kubeconfig ${kubeconfig}`);
  }
  const kubectl = new Kubectl(kubeconfig ? { kubeconfig } : {}, root);
  let child: ChildProcess | undefined;
  let watcher: FSWatcher | undefined;
  try {
    const server = (await kubectl.run(['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}'])).stdout.trim();
    if (server === '') throw new OpgenError('no current cluster in the kubeconfig', { flag: '--kubeconfig' }, 'kubectl config use-context <name>, pass --kubeconfig, or use --cluster');
    const hasWebhooks = project.config.resources.some((r) => r.webhooks !== undefined);
    if (hasWebhooks && !isLoopbackServer(server) && opts.webhookUrl === undefined) {
      throw new OpgenError(`the API server ${server} is not on this machine, so opgen dev will not point its webhooks here`, { flag: '--webhook-url' },
        'pass --webhook-url <https URL of a tunnel to this machine\'s port 9443>, or use --cluster');
    }

    if (!existsSync(join(root, 'node_modules/@opgen/runtime'))) {
      throw new OpgenError('@opgen/runtime is not installed in this project', { file: 'package.json' }, 'run npm install');
    }

    const generate = async (): Promise<void> => {
      const { generateCommand } = await import('../gen/command.js');
      const lines: string[] = [];
      const code = await generateCommand({ cwd: root, targets: [], check: false, dryRun: false }, (l) => lines.push(l)).catch((err: unknown) => {
        ctx.err(`dev: generate failed: ${err instanceof OpgenError ? err.format() : String(err)}`);
        return 1;
      });
      if (code !== 0) for (const l of lines) ctx.err(l);
    };
    const applyCrds = async (): Promise<void> => {
      if (!existsSync(join(root, 'config/crd/bases'))) return;
      const r = await kubectl.run(['apply', '--server-side', '--force-conflicts', '-f', 'config/crd/bases']);
      if (r.code !== 0) throw new OpgenError(`applying the CRDs failed: ${new KubectlError(['apply'], r).message}`, { file: 'config/crd/bases' }, 'run opgen doctor');
      for (const l of r.stdout.trim().split('\n')) if (l !== '') ctx.err(`dev: ${l}`);
    };

    await generate();
    let crds = crdDigest(root);
    await applyCrds();
    const tsc = await spawnCollect(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], root);
    if (tsc.code !== 0) throw new OpgenError(`the build failed:\n${tsc.output.trim()}`, { file: 'tsconfig.build.json' }, 'fix the type errors above, then run opgen dev again');

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
      OPGEN_LOG_LEVEL: process.env.OPGEN_LOG_LEVEL ?? 'debug',
      ...(opts.webhookUrl !== undefined ? { OPGEN_WEBHOOK_LOCAL_DEVELOPMENT: opts.webhookUrl } : {}),
    };
    const start = (): ChildProcess => {
      const c = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js', ...opts.args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      lines(c.stdout!, ctx.out);
      lines(c.stderr!, ctx.err);
      return c;
    };
    child = start();

    // fs.watch reports one save as several events: gather them for a few ms, then act once.
    let pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    let busy: Promise<void> = Promise.resolve();
    const retired: Promise<void>[] = [];
    const onChanges = async (files: string[]): Promise<void> => {
      const t0 = performance.now();
      for (const f of files) {
        const abs = join(root, 'src', f);
        if (existsSync(abs)) transpileFile(root, abs);
        else rmSync(outFile(root, abs), { force: true });
      }
      // Without webhooks the old process may finish its in-flight reconciles while the new one starts
      // (it takes no new work after SIGTERM). With webhooks it must first restore what it redirected.
      const stopping = stop(child);
      retired.push(stopping);
      if (hasWebhooks) await stopping;
      child = start();
      ctx.err(`dev: restarted in ${Math.round(performance.now() - t0)} ms (${files.map((f) => `src/${f}`).join(', ')})`);
      // Markers may have changed: regenerate, and re-apply the CRDs when they differ.
      await generate();
      const now = crdDigest(root);
      if (now !== crds) {
        crds = now;
        await applyCrds().catch((err: unknown) => ctx.err(`dev: ${err instanceof OpgenError ? err.format() : String(err)}`));
      }
    };
    watcher = watch(join(root, 'src'), { recursive: true }, (_event, name) => {
      if (!name || !name.endsWith('.ts') || name.endsWith('.test.ts')) return;
      pending.add(name);
      clearTimeout(timer);
      timer = setTimeout(() => {
        const files = [...pending].sort();
        pending = new Set();
        busy = busy.then(() => onChanges(files)).catch((err: unknown) => ctx.err(`dev: ${String(err)}`));
      }, DEBOUNCE_MS);
    });
    ctx.err(`dev: running dist/main.js against ${server}; watching src/ (Ctrl-C stops)`);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    clearTimeout(timer);
    await busy;
    await Promise.all(retired);
    return 0;
  } finally {
    watcher?.close();
    await stop(child);
    await stopCluster?.();
  }
}

/** SIGTERM, and SIGKILL after the grace period; resolves when the process has exited. */
function stop(c: ChildProcess | undefined): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => c.kill('SIGKILL'), STOP_GRACE_MS);
    c.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    c.kill('SIGTERM');
  });
}

function lines(stream: NodeJS.ReadableStream, out: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) out(p);
  });
  stream.on('end', () => {
    if (rest !== '') out(rest);
  });
}

function spawnCollect(cmd: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    c.stdout.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr.on('data', (d: Buffer) => (output += d.toString()));
    c.on('error', (err) => resolve({ code: 1, output: String(err) }));
    c.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

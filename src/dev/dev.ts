// `opgen dev`: the inner loop. Generates and applies the CRDs, builds, runs the operator locally against
// the current context (or a simulated cluster with --cluster), streams its logs, and on a source change
// transpiles only the changed files and restarts it; regenerates (and re-applies the CRDs when they
// changed) in the background. Cleans up on exit: the operator is stopped with SIGTERM, so the runtime
// restores any webhook configuration it pointed at itself; a simulated cluster is stopped.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { Kubectl, KubectlError } from '../doctor/kubectl.js';
import { loadDoctorProject, yamlObjects } from '../doctor/project.js';
import { FolderWatch } from './folder-watch.js';
import { Operators } from './operator.js';
import { CompiledState } from './sources.js';
import { lowerPriority, TypeCheck } from './typecheck.js';

export interface DevOptions {
  kubeconfig?: string;
  /** Start the simulated cluster (`npm run example`'s) and use it. */
  cluster: boolean;
  /** The URL the cluster should call for webhooks (a tunnel to this machine), for a remote API server. */
  webhookUrl?: string;
  /** Arguments for the operator (after `--`). */
  args: string[];
}

/** opgen's own executable, for `opgen generate` in a process of its own (dist/dev → bin). */
const OPGEN_BIN = fileURLToPath(new URL('../../bin/opgen.js', import.meta.url));
/** How long src/ must be quiet after a change before a restart (an editor's save is several events). */
const DEBOUNCE_MS = 50;

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

const transpileOptions = (fileName: string): ts.TranspileOptions => ({
  fileName,
  reportDiagnostics: true,
  compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, sourceMap: true, inlineSources: false },
});

/**
 * The first transpileModule call in a process takes ~1 s more than the next ones (the compiler's code is
 * compiled and optimised on first use): pay it while the first build runs, not on the first edit.
 */
function warmUpTranspiler(root: string): void {
  const main = join(root, 'src/main.ts');
  if (existsSync(main)) ts.transpileModule(readFileSync(main, 'utf8'), transpileOptions(main));
}

/** Where each source file's JavaScript goes: tsconfig.build.json's rootDir src, outDir dist. */
const outFile = (root: string, file: string): string => join(root, 'dist', relative(join(root, 'src'), file)).replace(/\.ts$/, '.js');

/**
 * One file (`source`, its text) to JavaScript with its source map, without type checking: milliseconds,
 * where tsc takes seconds. Returns the syntax errors as `file:line:column: error TSnnnn: message`
 * (nothing is written then).
 */
export function transpileFile(root: string, file: string, source = readFileSync(file, 'utf8')): string[] {
  const out = outFile(root, file);
  const r = ts.transpileModule(source, transpileOptions(file));
  const errors = (r.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
    return `${relative(root, file)}:${at.line + 1}:${at.character + 1}: error TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
  if (errors.length > 0) return errors;
  mkdirSync(dirname(out), { recursive: true });
  const map = JSON.parse(r.sourceMapText ?? '{}') as { sources?: string[]; file?: string };
  map.file = `${out.split('/').pop()}`;
  map.sources = [relative(dirname(out), file)];
  writeFileSync(out, r.outputText.replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${map.file}.map`));
  writeFileSync(`${out}.map`, JSON.stringify(map));
  return [];
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
  let operators: Operators | undefined;
  let typecheck: TypeCheck | undefined;
  let watcher: FolderWatch | undefined;
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

    // generate runs as its own process, so that parsing the project never holds up dev's log streaming;
    // after a restart at low priority, so that it does not slow the new operator's start.
    const generate = async (background: boolean): Promise<void> => {
      const r = await spawnCollect(process.execPath, [OPGEN_BIN, 'generate'], root, background);
      if (r.code !== 0) for (const l of r.output.trim().split('\n')) ctx.err(`dev: generate: ${l}`);
    };
    const applyCrds = async (): Promise<void> => {
      if (!existsSync(join(root, 'config/crd/bases'))) return;
      const r = await kubectl.run(['apply', '--server-side', '--force-conflicts', '-f', 'config/crd/bases']);
      if (r.code !== 0) throw new OpgenError(`applying the CRDs failed: ${new KubectlError(['apply'], r).message}`, { file: 'config/crd/bases' }, 'run opgen doctor');
      for (const l of r.stdout.trim().split('\n')) if (l !== '') ctx.err(`dev: ${l}`);
    };

    await generate(false);
    let crds = crdDigest(root);
    await applyCrds();
    // What the build compiles: each source as it is now (an edit during the build is compiled at the next restart).
    const compiled = new CompiledState(join(root, 'src'));
    compiled.recordAll();
    const building = spawnCollect(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], root, false);
    warmUpTranspiler(root);
    const tsc = await building;
    if (tsc.code !== 0) throw new OpgenError(`the build failed:\n${tsc.output.trim()}`, { file: 'tsconfig.build.json' }, 'fix the type errors above, then run opgen dev again');

    operators = new Operators({
      root,
      args: opts.args,
      out: ctx.out,
      err: ctx.err,
      env: {
        ...process.env,
        ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
        OPGEN_LOG_LEVEL: process.env.OPGEN_LOG_LEVEL ?? 'debug',
        ...(opts.webhookUrl !== undefined ? { OPGEN_WEBHOOK_LOCAL_DEVELOPMENT: opts.webhookUrl } : {}),
      },
    });
    operators.activate();
    // The sources that do not parse: the operator runs the code from before they changed.
    const unparsed = new Set<string>();
    typecheck = new TypeCheck(root, ctx.err, () => [...unparsed].sort());
    const types = typecheck;
    const ops = operators;

    // Markers may have changed: regenerate, and re-apply the CRDs when they differ. One run at a time;
    // changes during a run start one more after it.
    let regen: Promise<void> | undefined;
    let regenAgain = false;
    const regenerate = (): void => {
      if (regen) {
        regenAgain = true;
        return;
      }
      regen = (async () => {
        do {
          regenAgain = false;
          await generate(true);
          const now = crdDigest(root);
          if (now !== crds) {
            crds = now;
            await applyCrds().catch((err: unknown) => ctx.err(`dev: ${err instanceof OpgenError ? err.format() : String(err)}`));
          }
        } while (regenAgain);
      })().finally(() => (regen = undefined));
    };

    // A restart compiles what differs from what dist/ was compiled from, whichever events were seen.
    let busy: Promise<void> = Promise.resolve();
    const onChanges = async (): Promise<void> => {
      const t0 = performance.now();
      const { changed, removed } = compiled.stale();
      if (changed.length === 0 && removed.length === 0) return; // an editor's temp file, a save without edits
      const errors: string[] = [];
      for (const { file, text } of changed) {
        const found = transpileFile(root, file, text);
        if (found.length > 0) {
          errors.push(...found);
          unparsed.add(relative(root, file));
          continue;
        }
        unparsed.delete(relative(root, file));
        compiled.compiledFrom(file, text);
      }
      for (const file of removed) {
        rmSync(outFile(root, file), { force: true });
        rmSync(`${outFile(root, file)}.map`, { force: true });
        unparsed.delete(relative(root, file));
        compiled.removed(file);
      }
      types.ensureRunning();
      if (errors.length > 0) {
        // Code that does not parse is not run: the operator keeps the previous code (the other files
        // transpiled meanwhile run with the next restart, together with the fixed one).
        for (const e of errors) ctx.err(`dev: ${e}`);
        ctx.err('dev: not restarted: the operator keeps running the previous code until the file parses');
        return;
      }
      // The old process exits first: two operators never reconcile at once. Without webhooks it gets
      // RESTART_DRAIN_MS for its in-flight reconciles; with webhooks it must restore what it redirected.
      const t1 = performance.now();
      await ops.retire(!hasWebhooks);
      ops.activate();
      const t2 = performance.now();
      const ms = (a: number, b: number): string => `${Math.round(b - a)} ms`;
      const files = [...changed.map((c) => c.file), ...removed].map((f) => relative(root, f)).sort();
      ctx.err(`dev: restarted in ${ms(t0, t2)} (transpile ${ms(t0, t1)}, old operator stopped in ${ms(t1, t2)}; ${files.join(', ')})`);
      regenerate();
    };
    watcher = new FolderWatch(join(root, 'src'), DEBOUNCE_MS, () => {
      busy = busy.then(onChanges).catch((err: unknown) => ctx.err(`dev: ${String(err)}`));
    }, (line) => ctx.err(`dev: ${line}`));
    ctx.err(`dev: running dist/main.js against ${server}; watching src/ (Ctrl-C stops)`);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    watcher.close();
    await busy;
    await regen;
    return 0;
  } finally {
    watcher?.close();
    await Promise.all([operators?.close(), typecheck?.close()]);
    await stopCluster?.();
  }
}

function spawnCollect(cmd: string, args: string[], cwd: string, background: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    if (background) lowerPriority(c);
    let output = '';
    c.stdout.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr.on('data', (d: Buffer) => (output += d.toString()));
    c.on('error', (err) => resolve({ code: 1, output: String(err) }));
    c.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

// Builds test binaries from the Go module proxy: kube-apiserver and etcd, for machines that cannot
// download the envtest archive but have Go, and the simulated cluster's kube-controller-manager,
// kube-scheduler and kwok (the recipes of the opgen repository's .ci/test-assets.sh and
// .ci/cluster-assets.sh, carried here because a generated project has no .ci/). None of these modules
// can be `go install`ed: their go.mod files hold replace directives, so each is built as a dependency of
// a tiny local module.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProgressSink } from './progress.js';

export class BuildError extends Error {
  override readonly name = 'BuildError';
}

export interface BuildOptions {
  k8sVersion: string;
  etcdVersion: string;
  /** Final folder; filled in a temp folder next to it, then renamed. */
  dest: string;
  progress: ProgressSink;
  /** `go` executable (default: go on PATH). */
  go?: string;
}

interface GoRun { stdout: string; stderr: string }

function runGo(go: string, args: string[], cwd: string, onLine?: (line: string) => void): Promise<GoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, args, {
      cwd,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (b: Buffer) => void (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      const text = b.toString();
      stderr += text;
      if (!onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.on('error', (err) => reject(new BuildError(`could not run ${go}: ${err.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new BuildError(`\`go ${args.join(' ')}\` failed (exit ${code}) in ${cwd}:\n${stderr.split('\n').slice(-30).join('\n')}`));
    });
  });
}

/** Whether a usable `go` is on PATH. */
export async function haveGo(go = 'go'): Promise<boolean> {
  try {
    await runGo(go, ['version'], process.cwd());
    return true;
  } catch {
    return false;
  }
}

/**
 * `go build -v` names each package as it compiles it; counting them against `go list -deps` gives a
 * progress figure for a build that otherwise prints nothing for minutes.
 */
async function buildWithProgress(go: string, cwd: string, pkg: string, out: string, ldflags: string, label: string, progress: ProgressSink): Promise<void> {
  const deps = await runGo(go, ['list', '-deps', pkg], cwd);
  const total = deps.stdout.split('\n').filter(Boolean).length;
  let done = 0;
  progress.step(label, 0, total, 'packages');
  await runGo(go, ['build', '-v', '-trimpath', ...(ldflags ? ['-ldflags', ldflags] : []), '-o', out, pkg], cwd, (line) => {
    if (/^[\w.-]+(\/[\w.+~-]+)*$/.test(line.trim())) progress.step(label, ++done, total, 'packages');
  });
  progress.end();
}

export async function buildFromGoProxy(opts: BuildOptions): Promise<void> {
  const go = opts.go ?? 'go';
  const { k8sVersion, etcdVersion, progress } = opts;
  const parent = join(opts.dest, '..');
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.build-'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const started = Date.now();
  try {
    progress.note(`building etcd v${etcdVersion} from the Go module proxy (first run only)`);
    const etcd = join(work, 'etcd');
    mkdirSync(etcd);
    writeFileSync(join(etcd, 'main.go'), 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n');
    await runGo(go, ['mod', 'init', 'local/etcd'], etcd);
    await runGo(go, ['get', `go.etcd.io/etcd/server/v3@v${etcdVersion}`], etcd);
    await runGo(go, ['mod', 'tidy'], etcd);
    await buildWithProgress(go, etcd, '.', join(bin, 'etcd'), '', `compiling etcd v${etcdVersion}`, progress);

    progress.note(`building kube-apiserver v${k8sVersion} from the Go module proxy (first run only; several minutes on a small machine with empty Go caches)`);
    const kas = join(work, 'kas');
    await kubernetesModule(go, kas, k8sVersion, ['kube-apiserver']);
    await buildWithProgress(go, kas, 'k8s.io/kubernetes/cmd/kube-apiserver', join(bin, 'kube-apiserver'), k8sLdflags(k8sVersion), `compiling kube-apiserver v${k8sVersion}`, progress);

    const secs = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(bin, 'build-seconds'), `${secs}\n`);
    renameSync(bin, opts.dest);
    progress.note(`built kube-apiserver v${k8sVersion} and etcd v${etcdVersion} in ${secs}s into ${opts.dest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A local module that requires k8s.io/kubernetes at `version` and imports the app packages of `commands`.
 * k8s.io/kubernetes requires its staging modules at v0.0.0: each is pinned to v0.<minor>.<patch>, the
 * list read from that version's own go.mod.
 */
async function kubernetesModule(go: string, dir: string, version: string, commands: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const info = JSON.parse((await runGo(go, ['mod', 'download', '-json', `k8s.io/kubernetes@v${version}`], dir)).stdout) as { GoMod?: string };
  if (!info.GoMod) throw new BuildError(`could not download k8s.io/kubernetes@v${version}`);
  const staging = `v0.${version.replace(/^1\./, '')}`;
  const replaces = [...readFileSync(info.GoMod, 'utf8').matchAll(/^\s*k8s\.io\/(\S+) => \.\/staging\/src\/k8s\.io\/\S+/gm)]
    .map((m) => `\tk8s.io/${m[1]} => k8s.io/${m[1]} ${staging}`);
  writeFileSync(join(dir, 'go.mod'), `module local/k8s\n\ngo 1.26\n\nrequire k8s.io/kubernetes v${version}\n\nreplace (\n${replaces.join('\n')}\n)\n`);
  writeFileSync(join(dir, 'tools.go'), `package main\n\nimport (\n${commands.map((c) => `\t_ "k8s.io/kubernetes/cmd/${c}/app"\n`).join('')})\n`);
  await runGo(go, ['mod', 'tidy'], dir).catch(() => undefined); // as in test-assets.sh: go get below settles it
  await runGo(go, ['get', ...commands.map((c) => `k8s.io/kubernetes/cmd/${c}@v${version}`)], dir);
}

/** The version stamps a release build of Kubernetes carries (what `--version` and /version report). */
function k8sLdflags(version: string): string {
  const minor = version.split('.')[1] ?? '';
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']
    .flatMap((p) => [`-X ${p}.gitVersion=v${version}`, `-X ${p}.gitMajor=1`, `-X ${p}.gitMinor=${minor}`, `-X ${p}.gitTreeState=clean`])
    .join(' ');
}

/** kwok's default stages (kwokctl's): nodes Ready with a lease heartbeat, pods Running and Ready, completed, deleted. */
const KWOK_STAGES = [
  'node/fast/node-initialize.yaml', 'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml', 'pod/fast/pod-complete.yaml', 'pod/fast/pod-delete.yaml',
];

export interface ClusterBuildOptions {
  k8sVersion: string;
  kwokVersion: string;
  /** Final folder; filled in a temp folder next to it, then renamed. */
  dest: string;
  progress: ProgressSink;
  go?: string;
}

/**
 * kube-controller-manager and kube-scheduler (the same Kubernetes release as kube-apiserver, so Go's
 * build cache reuses what that build compiled) and kwok, plus kwok-stages.yaml, into `dest`.
 */
export async function buildClusterFromGoProxy(opts: ClusterBuildOptions): Promise<void> {
  const go = opts.go ?? 'go';
  const { k8sVersion, kwokVersion, progress } = opts;
  const parent = join(opts.dest, '..');
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.build-cluster-'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const started = Date.now();
  try {
    progress.note(`building kube-controller-manager, kube-scheduler v${k8sVersion} and kwok v${kwokVersion} from the Go module proxy (first run only; about 10 minutes on a small machine)`);
    const k8s = join(work, 'k8s');
    await kubernetesModule(go, k8s, k8sVersion, ['kube-controller-manager', 'kube-scheduler']);

    // kwok joins the same module, compiled against the Kubernetes release it simulates nodes for. Built on
    // its own, its go.mod raises golang.org/x, grpc and otel a few patch levels and Go compiles a second
    // client stack (the build cache keys packages by module version; a replace keeps the raised version):
    // so its source is copied from the module cache and its go.mod given Kubernetes' versions.
    const modules = async (): Promise<Map<string, string>> => new Map((await runGo(go, ['list', '-m', '-f', '{{if not .Replace}}{{.Path}} {{.Version}}{{end}}', 'all'], k8s)).stdout
      .split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]));
    const k8sModules = await modules();
    const kwokDir = await moduleDir(go, k8s, `sigs.k8s.io/kwok@v${kwokVersion}`);
    const kwok = join(work, 'kwok');
    cpSync(kwokDir, kwok, { recursive: true });
    makeWritable(kwok);
    rmSync(join(kwok, 'go.sum'), { force: true });
    const kwokMod = readFileSync(join(kwok, 'go.mod'), 'utf8');
    const shared = [...k8sModules].filter(([mod]) => new RegExp(`^\\s*${mod.replace(/[.+]/g, '\\$&')} v`, 'm').test(kwokMod));
    if (shared.length > 0) await runGo(go, ['mod', 'edit', ...shared.map(([mod, ver]) => `-require=${mod}@${ver}`)], kwok);
    await runGo(go, ['mod', 'edit', `-require=sigs.k8s.io/kwok@v${kwokVersion}`, `-replace=sigs.k8s.io/kwok=${kwok}`], k8s);
    writeFileSync(join(k8s, 'kwok.go'), 'package main\n\nimport _ "sigs.k8s.io/kwok/pkg/kwok/cmd"\n');
    await runGo(go, ['mod', 'tidy'], k8s);
    const raised = [...await modules()].filter(([mod, ver]) => k8sModules.has(mod) && k8sModules.get(mod) !== ver).map(([mod]) => mod);
    if (raised.length > 0) progress.note(`kwok still raises ${raised.join(' ')}; those packages compile twice`);

    const ldflags = k8sLdflags(k8sVersion);
    for (const cmd of ['kube-scheduler', 'kube-controller-manager']) {
      await buildWithProgress(go, k8s, `k8s.io/kubernetes/cmd/${cmd}`, join(bin, cmd), ldflags, `compiling ${cmd} v${k8sVersion}`, progress);
    }
    await buildWithProgress(go, k8s, 'sigs.k8s.io/kwok/cmd/kwok', join(bin, 'kwok'), '', `compiling kwok v${kwokVersion}`, progress);
    // The stages are data in kwok's module: taken from the same version, not copied into opgen.
    writeFileSync(join(bin, 'kwok-stages.yaml'), KWOK_STAGES.map((f) => `---\n${readFileSync(join(kwokDir, 'kustomize/stage', f), 'utf8')}`).join(''));

    const secs = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(bin, 'build-seconds'), `${secs}\n`);
    rmSync(opts.dest, { recursive: true, force: true }); // what an interrupted build left
    renameSync(bin, opts.dest);
    progress.note(`built kube-controller-manager, kube-scheduler and kwok in ${secs}s into ${opts.dest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function moduleDir(go: string, cwd: string, module: string): Promise<string> {
  const info = JSON.parse((await runGo(go, ['mod', 'download', '-json', module], cwd)).stdout) as { Dir?: string };
  if (!info.Dir) throw new BuildError(`could not download ${module}`);
  return info.Dir;
}

/** The module cache is read-only; the copy must take `go mod edit`. */
function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) makeWritable(path);
    else chmodSync(path, 0o644);
  }
}

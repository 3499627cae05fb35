// Builds kube-apiserver and etcd from the Go module proxy, for machines that cannot download the
// envtest archive but have Go (the same recipe as the opgen repository's .ci/test-assets.sh, carried
// here because a generated project has no .ci/). Neither module can be `go install`ed: their go.mod
// files hold replace directives, so each is built as a dependency of a tiny local module.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
    mkdirSync(kas);
    // k8s.io/kubernetes requires its staging modules at v0.0.0: pin each to v0.<minor>.<patch>, the list
    // read from that version's own go.mod.
    const info = JSON.parse((await runGo(go, ['mod', 'download', '-json', `k8s.io/kubernetes@v${k8sVersion}`], kas)).stdout) as { GoMod?: string };
    if (!info.GoMod) throw new BuildError(`could not download k8s.io/kubernetes@v${k8sVersion}`);
    const staging = `v0.${k8sVersion.replace(/^1\./, '')}`;
    const replaces = [...readFileSync(info.GoMod, 'utf8').matchAll(/^\s*k8s\.io\/(\S+) => \.\/staging\/src\/k8s\.io\/\S+/gm)]
      .map((m) => `\tk8s.io/${m[1]} => k8s.io/${m[1]} ${staging}`);
    writeFileSync(join(kas, 'go.mod'), `module local/kas\n\ngo 1.26\n\nrequire k8s.io/kubernetes v${k8sVersion}\n\nreplace (\n${replaces.join('\n')}\n)\n`);
    writeFileSync(join(kas, 'tools.go'), 'package main\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n)\n');
    await runGo(go, ['mod', 'tidy'], kas).catch(() => undefined); // as in test-assets.sh: go get below settles it
    await runGo(go, ['get', `k8s.io/kubernetes/cmd/kube-apiserver@v${k8sVersion}`], kas);
    const minor = k8sVersion.split('.')[1] ?? '';
    const ldflags = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']
      .flatMap((p) => [`-X ${p}.gitVersion=v${k8sVersion}`, `-X ${p}.gitMajor=1`, `-X ${p}.gitMinor=${minor}`, `-X ${p}.gitTreeState=clean`])
      .join(' ');
    await buildWithProgress(go, kas, 'k8s.io/kubernetes/cmd/kube-apiserver', join(bin, 'kube-apiserver'), ldflags, `compiling kube-apiserver v${k8sVersion}`, progress);

    const secs = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(bin, 'build-seconds'), `${secs}\n`);
    renameSync(bin, opts.dest);
    progress.note(`built kube-apiserver v${k8sVersion} and etcd v${etcdVersion} in ${secs}s into ${opts.dest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

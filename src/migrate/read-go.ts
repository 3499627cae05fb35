// Runs data/migrate-go, the Go program that reads Go API packages as controller-gen reads them (go/parser
// for the source, `go list` in the package's own module for its imports), and returns its JSON model.
// The program is built once per version of its source into opgen's cache folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpgenError } from '../diag/diagnostic.js';
import type { GoModel } from './go-model.js';

/** data/migrate-go at the package root (src/migrate and dist/migrate are both two levels below it). */
export const goHelperSource = fileURLToPath(new URL('../../data/migrate-go/', import.meta.url));

/**
 * Packages whose types opgen already has (the runtime's Kubernetes types): the Go program names their
 * types without reading them. Entries ending in `/` are prefixes.
 */
export const MAPPED_GO_PACKAGES = [
  'k8s.io/api/',
  'k8s.io/apimachinery/pkg/apis/meta/v1',
  'k8s.io/apimachinery/pkg/api/resource',
  'k8s.io/apimachinery/pkg/util/intstr',
  'k8s.io/apimachinery/pkg/runtime',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1',
];

const GO_MISSING_FIX = 'install Go (https://go.dev/dl/, the version your go.mod names): migrate reads your API with the Go toolchain, as controller-gen does';

function hasGo(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

/** The built helper, built on first use (a second or so) into ~/.cache/opgen/migrate-go/<source hash>. */
function helperBinary(): string {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'main.go']) hash.update(readFileSync(join(goHelperSource, f)));
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const dir = join(cache, 'opgen', 'migrate-go', hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'migrate-go');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const r = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], {
    cwd: goHelperSource,
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '', GOWORK: 'off' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new OpgenError(`building opgen's Go reader failed: ${firstLine(r.stderr || String(r.error))}`, undefined, 'check that `go build` works on this machine (Go >= 1.22)');
  renameSync(tmp, bin);
  return bin;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

/** Reads the Go packages in `dirs` (folders, relative to cwd); one-line errors for what the user must fix. */
export function readGoPackages(cwd: string, dirs: string[]): GoModel {
  // A folder, or Go's `./api/...` (every package below it), as controller-gen's paths= takes them.
  const abs = dirs.map((d) => (d.endsWith('/...') ? `${resolve(cwd, d.slice(0, -4))}/...` : resolve(cwd, d)));
  for (const [i, d] of abs.entries()) {
    const folder = d.replace(/\/\.\.\.$/, '');
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new OpgenError(`${dirs[i]} is not a folder`, { flag: 'migrate api' }, 'pass the folder of a Go API package, e.g. ./api/v1, or ./api/... for all below it');
  }
  if (!hasGo()) throw new OpgenError('go is not installed (or not on PATH)', { flag: 'migrate api' }, GO_MISSING_FIX);
  const bin = helperBinary();
  let stdout: string;
  try {
    stdout = execFileSync(bin, ['-stop', MAPPED_GO_PACKAGES.join(','), ...abs], { cwd: abs[0]!.replace(/\/\.\.\.$/, ''), encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const stderr = firstLine(String((err as { stderr?: string }).stderr ?? err));
    throw new OpgenError(`reading the Go packages failed: ${stderr}`, { flag: 'migrate api' }, 'run `go build ./...` in the module; migrate needs the packages to load, as controller-gen does');
  }
  return JSON.parse(stdout) as GoModel;
}

// The previous release (commit b23796b, the last commit before this round): its two packages, built
// from a `git worktree` of it and packed once into ~/.cache/opgen/previous-release/<commit>; later runs
// reuse them. Shared by upgrade.test.ts and update.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from './helpers.js';

export const PREVIOUS = 'b23796b';

/** The previous release's two tarballs, built from a worktree of PREVIOUS once and cached. */
export async function previousRelease(): Promise<{ opgen: string; runtime: string }> {
  const cacheRoot = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'opgen', 'previous-release');
  const cache = join(cacheRoot, PREVIOUS);
  const find = (): { opgen: string; runtime: string } | undefined => {
    if (!existsSync(cache)) return undefined;
    const files = readdirSync(cache);
    const opgen = files.find((f) => /^opgen-\d.*\.tgz$/.test(f));
    const runtime = files.find((f) => /^opgen-runtime-.*\.tgz$/.test(f));
    return opgen && runtime ? { opgen: join(cache, opgen), runtime: join(cache, runtime) } : undefined;
  };
  const cached = find();
  if (cached) return cached;
  mkdirSync(cacheRoot, { recursive: true });
  const known = await execa('git', ['cat-file', '-e', `${PREVIOUS}^{commit}`], { cwd: repoRoot, reject: false });
  if (known.exitCode !== 0) throw new Error(`this clone lacks commit ${PREVIOUS} (the previous release): run \`git fetch --unshallow\` (or clone without --depth)`);
  const tree = mkdtempSync(join(tmpdir(), `opgen-previous-${PREVIOUS}-`));
  const staging = `${cache}.partial-${process.pid}`;
  rmSync(tree, { recursive: true, force: true });
  await execa('git', ['worktree', 'add', '--detach', tree, PREVIOUS], { cwd: repoRoot });
  try {
    // The previous release's dependencies are this checkout's (same lock file lineage); no install.
    symlinkSync(join(repoRoot, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const build = await execa('npm', ['run', 'build'], { cwd: tree, reject: false, all: true });
    if (build.exitCode !== 0) throw new Error(`building ${PREVIOUS} failed:\n${build.all}`);
    mkdirSync(staging, { recursive: true });
    for (const workspace of [[], ['-w', '@opgen/runtime']]) {
      await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', staging, ...workspace], { cwd: tree });
    }
    renameSync(staging, cache);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    await execa('git', ['worktree', 'remove', '--force', tree], { cwd: repoRoot, reject: false });
  }
  const built = find();
  if (!built) throw new Error(`no tarballs in ${cache}`);
  return built;
}

// Helpers for end-to-end tests: pack the two packages as npm would publish them.
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository: the nearest folder up with opgen's package.json (this module also runs compiled, from e2e/demo/dist). */
export const repoRoot = ((): string => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'opgen') return `${dir}/`;
  }
  throw new Error(`no opgen package.json above ${fileURLToPath(import.meta.url)}`);
})();

/** Packs both packages, as `npm test` has just built them, into `dest`; returns the two tarball paths. */
export async function packPackages(dest: string): Promise<{ opgen: string; runtime: string }> {
  // Building again here would rewrite dist/ while other test workers run from it.
  for (const built of ['dist/cli/main.js', 'runtime/dist/index.js']) {
    if (!existsSync(join(repoRoot, built))) throw new Error(`${built} is missing; run \`npm run build\` first`);
  }
  // Skip prepack's compile for the same reason.
  const pack = async (...workspace: string[]): Promise<string> => {
    const { stdout } = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest, ...workspace], { cwd: repoRoot });
    const [info] = JSON.parse(stdout) as Array<{ filename: string }>;
    if (!info) throw new Error(`npm pack ${workspace.join(' ')} printed no tarball`);
    return join(dest, info.filename);
  };
  return { opgen: await pack(), runtime: await pack('-w', '@opgen/runtime') };
}

/**
 * Unpacks the opgen tarball into work/opgen-cli as npm would and gives it the repository's
 * dependencies, so a test runs the packed files (bin, dist, templates) without a second npm install.
 * Returns the packed CLI's bin/opgen.js.
 */
export async function unpackCli(opgenTarball: string, work: string): Promise<string> {
  const unpacked = join(work, 'opgen-cli');
  mkdirSync(unpacked);
  await execa('tar', ['-xzf', opgenTarball, '-C', unpacked]);
  symlinkSync(join(repoRoot, 'node_modules'), join(unpacked, 'package', 'node_modules'), 'dir');
  return join(unpacked, 'package', 'bin', 'opgen.js');
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Polls `check` every 200 ms for up to 60 s; fails with `context()` (the manager's log) on timeout. */
export async function waitFor(check: () => Promise<boolean>, context: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out; manager output:\n${context()}`);
}

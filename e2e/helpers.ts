// Helpers for end-to-end tests: pack the two packages as npm would publish them.
import { execa } from 'execa';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** Builds both packages, then packs them into `dest`; returns the two tarball paths. */
export async function packPackages(dest: string): Promise<{ opgen: string; runtime: string }> {
  await execa('npm', ['run', 'build'], { cwd: repoRoot });
  // The build above already compiled both packages; skip prepack's second compile.
  const pack = async (...workspace: string[]): Promise<string> => {
    const { stdout } = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest, ...workspace], { cwd: repoRoot });
    const [info] = JSON.parse(stdout) as Array<{ filename: string }>;
    if (!info) throw new Error(`npm pack ${workspace.join(' ')} printed no tarball`);
    return join(dest, info.filename);
  };
  return { opgen: await pack(), runtime: await pack('-w', '@opgen/runtime') };
}

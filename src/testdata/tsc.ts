// Test support (excluded from the build): tsc run on generated TypeScript (a scaffolded or migrated
// project) as a user project would compile it, with @opgen/runtime resolved to the runtime's source.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface TscCheck {
  /** The tsconfig.json whose compiler options the files are checked with. */
  extends: string;
  /** Globs of the files to check. */
  include: string[];
  /** @opgen/runtime's entry points the files import besides its root: 'envtest', 'kubernetes', 'helm', … */
  entries?: string[];
  /** Whether the files import vitest (its types from this repository's node_modules). */
  vitest?: boolean;
}

/**
 * Writes `config`, a tsconfig (noEmit) for `check`, and answers what `tsc -p config` prints: '' when the
 * files compile.
 */
export function tscErrors(config: string, check: TscCheck): string {
  const paths: Record<string, string[]> = { '@opgen/runtime': [join(repoRoot, 'runtime/src/index.ts')] };
  for (const entry of check.entries ?? []) paths[`@opgen/runtime/${entry}`] = [join(repoRoot, `runtime/src/${entry}/index.ts`)];
  if (check.vitest) paths.vitest = [join(repoRoot, 'node_modules', 'vitest', 'dist', 'index.d.ts')];
  writeFileSync(
    config,
    JSON.stringify({
      extends: check.extends,
      compilerOptions: { noEmit: true, rootDir: '/', typeRoots: [join(repoRoot, 'node_modules', '@types')], paths },
      include: check.include,
    }),
  );
  try {
    return execFileSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    return String((e as { stdout?: string }).stdout ?? e);
  }
}

// opgen's own version, read from its package.json at run time so the CLI, `--version` and the generated
// projects' dependency on opgen/@opgen/runtime (released in lockstep) always agree.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function opgenVersion(): string {
  // src/common/version.ts and dist/common/version.js both sit two levels below the package root.
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

// The instrumentation scope every exported span names: this package and the version in its
// package.json. The file is found by walking up from this module, because the bundle (build/bundle.mjs)
// puts the code at a different depth under dist/ than the sources are under src/.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const name = '@opgen/runtime';

function runtimeVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // no package.json here, or not readable: look further up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

export const instrumentationScope: { readonly name: string; readonly version: string } = Object.freeze({ name, version: runtimeVersion() });

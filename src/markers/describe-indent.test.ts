// controller-gen drops `TODO` lines and ends a description at `---` only when the line starts with them
// (strings.HasPrefix on the comment text, one space after // removed): an indented `  TODO` or `  ---`
// is text it keeps. Found by migrating Go APIs (src/migrate), whose doc comments are copied as written.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateCommand } from '../gen/command.js';

const dir = mkdtempSync(join(tmpdir(), 'opgen-describe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sizeDescription(doc: string): Promise<string> {
  const api = join(dir, String(Math.random()).slice(2), 'src', 'api', 'v1');
  mkdirSync(api, { recursive: true });
  writeFileSync(join(api, '..', '..', '..', 'PROJECT'), '');
  writeFileSync(
    join(api, 'types.ts'),
    `// +groupName=test.example.com
import type { ObjectMeta, int32 } from '@opgen/runtime';

export interface ThingSpec {
${doc}
  size?: int32;
}

// +kubebuilder:object:root=true
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}
`,
  );
  const root = join(api, '..', '..', '..');
  await generateCommand({ cwd: root, targets: ['crd'], check: false, dryRun: false }, () => {});
  const crd = parse(readFileSync(join(root, 'config/crd/bases/test.example.com_things.yaml'), 'utf8'));
  return crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.description;
}

describe('descriptions: only a TODO or --- at the start of a line is special', () => {
  it('in a JSDoc block', async () => {
    const doc = ['  /**', '   * Size is a size.', '   *   TODO: indented, kept.', '   *  --- indented, kept.', '   * TODO: dropped.', '   * last line', '   */'].join('\n');
    expect(await sizeDescription(doc)).toBe('Size is a size.\n  TODO: indented, kept.\n --- indented, kept.\nlast line');
  });

  it('in // lines', async () => {
    const doc = ['  // Size is a size.', '  //   TODO: indented, kept.', '  // TODO: dropped.', '  // --- ends it', '  // not this'].join('\n');
    expect(await sizeDescription(doc)).toBe('Size is a size.\n  TODO: indented, kept.');
  });
});

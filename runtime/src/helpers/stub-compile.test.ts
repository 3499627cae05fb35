// A metadata-only stub compiles for createOrUpdate/createOrPatch even where the API requires spec
// (batchv1.CronJob), as the tutorial writes it for a Deployment: checked by the TypeScript compiler, since
// this is a promise about types. The stub is also run against the real API server in
// create-or-update.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

function compile(body: string): string {
  const dir = mkdtempSync(join(here, '.stub-check-'));
  try {
    writeFileSync(join(dir, 'check.ts'), body);
    try {
      execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--types', 'node', '--skipLibCheck', join(dir, 'check.ts')], { encoding: 'utf8', stdio: 'pipe' });
      return '';
    } catch (err) {
      return String((err as { stdout?: string }).stdout ?? err);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('a metadata-only CronJob stub type-checks for createOrUpdate and createOrPatch; mutate still gets a typed CronJob', () => {
  const prelude = `import { createOrUpdate, createOrPatch, type Client } from '../../index.js';
import { batchv1 } from '../../kubernetes/index.js';
declare const client: Client;
`;
  expect(compile(`${prelude}
const cronJob: batchv1.CronJob | { metadata: { name: string; namespace: string } } = { metadata: { name: 'backup', namespace: 'default' } };
await createOrUpdate(client, batchv1.CronJob, { metadata: { name: 'backup', namespace: 'default' } }, (c) => { c.spec = { schedule: '@daily', jobTemplate: {} }; });
await createOrPatch(client, batchv1.CronJob, cronJob, (c) => { c.spec.schedule = '@hourly'; });
export {};
`)).toBe('');
  // The check can fail: the stub loosens what is passed in, not what mutate is handed.
  expect(compile(`${prelude}
await createOrUpdate(client, batchv1.CronJob, { metadata: { name: 'backup' } }, (c) => { c.spec.schedule = 5; });
export {};
`)).toMatch(/TS2322.*number.*string/);
}, 120_000);

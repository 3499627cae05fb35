// runtime/src/kubernetes and data/kubernetes-builtins.json are generated (tools/kubernetes-types/generate.ts);
// this fails when the committed files differ from what the generator writes today, e.g. after a Kubernetes
// version bump or a generator change without `npm run data:kubernetes-types`.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { builtinsData, generate, KUBERNETES_VERSION, openApiDir } from '../tools/kubernetes-types/generate.js';

const out = mkdtempSync(join(tmpdir(), 'opgen-kinds-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('the committed typed kinds are what the generator writes from the Kubernetes OpenAPI', () => {
  const committed = join(process.cwd(), 'runtime', 'src', 'kubernetes');
  const written = generate(openApiDir(KUBERNETES_VERSION), out, KUBERNETES_VERSION).sort();
  expect(readdirSync(committed).filter((f) => !f.endsWith('.test.ts')).sort()).toEqual(written);
  for (const f of written) {
    expect(readFileSync(join(committed, f), 'utf8'), `${f} is stale: run npm run data:kubernetes-types`).toBe(readFileSync(join(out, f), 'utf8'));
  }
}, 120_000);

it('the committed data/kubernetes-builtins.json is what the generator writes from the same OpenAPI', () => {
  const committed = readFileSync(join(process.cwd(), 'data', 'kubernetes-builtins.json'), 'utf8');
  expect(committed, 'data/kubernetes-builtins.json is stale: run npm run data:kubernetes-types').toBe(builtinsData(openApiDir(KUBERNETES_VERSION), KUBERNETES_VERSION));
}, 120_000);

it('types quantities and int-or-string fields as the runtime Quantity and IntOrString (string | number), as the API takes them', () => {
  const committed = join(process.cwd(), 'runtime', 'src', 'kubernetes');
  const core = readFileSync(join(committed, 'corev1.ts'), 'utf8');
  // ResourceRequirements: limits/requests take 2 as well as "2" or "500m".
  expect(core).toMatch(/\n {2}limits\?: Record<string, Quantity>;/);
  expect(core).toMatch(/\n {2}requests\?: Record<string, Quantity>;/);
  expect(core).toMatch(/\n {2}port: IntOrString;/); // HTTPGetAction.port
  const types = readFileSync(join(process.cwd(), 'runtime', 'src', 'api', 'types.ts'), 'utf8');
  expect(types).toMatch(/export type Quantity = string \| number;/);
  expect(types).toMatch(/export type IntOrString = number \| string;/);
});

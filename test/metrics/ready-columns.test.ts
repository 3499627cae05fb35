// `kubectl get <kind>` shows the Ready condition when the kind carries the runtime's
// readyPrinterColumnMarkers: opgen generates the CRD's additionalPrinterColumns from them, a real API
// server serves them, and kubectl prints Ready's status, reason and the age of its last transition.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { groupVersion } from '../../runtime/src/api/kind.js';
import type { Condition, ObjectMeta } from '../../runtime/src/api/types.js';
import { createClient } from '../../runtime/src/client/client.js';
import { startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { readyPrinterColumnMarkers, setConditions } from '../../runtime/src/helpers/conditions.js';
import { opgenOk } from '../../src/testdata/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ready-columns-'));
let env: TestEnv | undefined;

afterAll(async () => {
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Gadget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { size?: number }; status?: { conditions?: Condition[] } }
const Gadget = groupVersion('obs.example.com', 'v1').kind<Gadget>('Gadget');

it("kubectl get prints Ready's status, reason and age from the documented markers", async () => {
  mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
  writeFileSync(join(dir, 'src/api/v1/groupversion-info.ts'), '// +groupName=obs.example.com\nexport const x = 1;\n');
  writeFileSync(join(dir, 'src/api/v1/gadget-types.ts'), [
    "import type { Condition, ObjectMeta } from '@opgen/runtime';",
    'export interface GadgetSpec { size?: number }',
    'export interface GadgetStatus {',
    '  // +listType=map',
    '  // +listMapKey=type',
    '  conditions?: Condition[];',
    '}',
    '// +kubebuilder:object:root=true',
    '// +kubebuilder:subresource:status',
    ...readyPrinterColumnMarkers.map((m) => `// ${m}`),
    'export interface Gadget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: GadgetSpec; status?: GadgetStatus }',
    '// +kubebuilder:object:root=true',
    'export interface GadgetList { apiVersion?: string; kind?: string; metadata?: ObjectMeta; items: Gadget[] }',
    '',
  ].join('\n'));
  await opgenOk(dir, 'generate', 'crd', '--paths', './src/api/...', '--output-dir', 'crd');
  const crds = readdirSync(join(dir, 'crd')).map((f) => join(dir, 'crd', f));
  env = await startTestEnv({ crdPaths: crds });
  const client = createClient(env.kubeConfig);
  const g = await client.create(Gadget, { metadata: { name: 'g1', namespace: 'default' }, spec: { size: 1 } });
  setConditions(g, { type: 'Ready', status: 'False', reason: 'WaitingForPods', message: '0 of 1 up' });
  await client.status().update(Gadget, g);
  const out = execFileSync('kubectl', ['get', 'gadgets', '-n', 'default'], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, encoding: 'utf8' });
  const [header, row] = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
  expect(header).toEqual(['NAME', 'READY', 'REASON', 'SINCE']);
  expect(row!.slice(0, 3)).toEqual(['g1', 'False', 'WaitingForPods']);
  expect(row![3]).toMatch(/^\d+s$/);
}, 600_000);

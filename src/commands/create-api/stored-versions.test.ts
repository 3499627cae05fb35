// docs/versions.md step 5 on a real kube-apiserver: after the storage version moves from v1alpha1 to v1,
// status.storedVersions lists both and the API server refuses to drop v1alpha1; each of the doc's two ways
// (`opgen crd migrate-storage`, and the kubectl commands by hand), taken from the doc as written, rewrites
// the objects and trims storedVersions, after which v1alpha1 can go.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';

let env: TestEnv;
beforeAll(async () => { env = await startTestEnv(); });
afterAll(async () => { await env?.stop(); });

const kubectl = (args: string[], input?: string): string =>
  execFileSync('kubectl', args, { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
const bash = (line: string): string => execFileSync('bash', ['-euo', 'pipefail', '-c', line], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, encoding: 'utf8' });

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { path: { type: 'string' } } } } } };
const crd = (versions: { name: string; storage: boolean }[]) => JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'backups.ops.example.com' },
  spec: { group: 'ops.example.com', scope: 'Namespaced', names: { kind: 'Backup', plural: 'backups', singular: 'backup', listKind: 'BackupList' }, versions: versions.map((v) => ({ ...v, served: true, schema })) },
});
const storedVersions = (): string[] => JSON.parse(kubectl(['get', 'crd', 'backups.ops.example.com', '-o', 'jsonpath={.status.storedVersions}'])) as string[];
const waitEstablished = () => kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/backups.ops.example.com']);

// The stored-as-v1alpha1 state step 5 starts from: an object written while v1alpha1 was the storage version,
// then v1 made the storage version.
function storeOldObject(): void {
  kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], crd([{ name: 'v1alpha1', storage: true }, { name: 'v1', storage: false }]));
  waitEstablished();
  kubectl(['delete', 'backups.ops.example.com', 'old', '-n', 'default', '--ignore-not-found']);
  kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'ops.example.com/v1alpha1', kind: 'Backup', metadata: { name: 'old', namespace: 'default' }, spec: { path: '/a' } }));
  // Step 2's effect: v1 becomes the storage version.
  kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], crd([{ name: 'v1', storage: true }, { name: 'v1alpha1', storage: false }]));
  waitEstablished();
  expect(storedVersions()).toEqual(expect.arrayContaining(['v1alpha1', 'v1']));
  // Dropping v1alpha1 now is refused.
  expect(() => kubectl(['apply', '-f', '-'], crd([{ name: 'v1', storage: true }]))).toThrow(/storedVersions|must appear in spec\.versions/);
}

const opgen = new URL('../../../bin/opgen.js', import.meta.url).pathname;

it("storedVersions keeps v1alpha1 until the doc's commands migrate the objects; then v1alpha1 can be removed", () => {
  const doc = readFileSync(new URL('../../../docs/versions.md', import.meta.url), 'utf8');
  const step5 = doc.slice(doc.indexOf('## 5.'), doc.indexOf('## 6.'));
  const commands = [...step5.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' ').trim());
  expect(commands).toHaveLength(2);
  const [withOpgen, byHand] = commands as [string, string];
  expect(withOpgen).toMatch(/^npx opgen crd migrate-storage backups\.ops\.example\.com --kubeconfig \S+$/);

  // The by-hand equivalent, as the doc writes it.
  storeOldObject();
  bash(byHand);
  expect(storedVersions()).toEqual(['v1']);

  // opgen's command, as the doc writes it (this checkout's opgen, this cluster's kubeconfig).
  storeOldObject();
  bash(withOpgen.replace(/^npx opgen/, `node ${opgen}`).replace(/--kubeconfig \S+$/, `--kubeconfig ${env.kubeconfigPath}`));
  expect(storedVersions()).toEqual(['v1']);

  kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], crd([{ name: 'v1', storage: true }]));
  waitEstablished();
  expect(JSON.parse(kubectl(['get', 'backups.v1.ops.example.com', 'old', '-n', 'default', '-o', 'json'])).spec).toEqual({ path: '/a' });
}, 180_000);

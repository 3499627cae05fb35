// docs/versions.md step 5 on a real kube-apiserver: after the storage version moves from v1alpha1 to v1,
// status.storedVersions lists both and the API server refuses to drop v1alpha1; the doc's own kubectl
// commands (taken from the doc as written) rewrite the objects and trim storedVersions, after which
// v1alpha1 can go.
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

it("storedVersions keeps v1alpha1 until the doc's commands migrate the objects; then v1alpha1 can be removed", () => {
  kubectl(['apply', '-f', '-'], crd([{ name: 'v1alpha1', storage: true }]));
  waitEstablished();
  kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'ops.example.com/v1alpha1', kind: 'Backup', metadata: { name: 'old', namespace: 'default' }, spec: { path: '/a' } }));
  // Step 2's effect: v1 becomes the storage version.
  kubectl(['apply', '-f', '-'], crd([{ name: 'v1', storage: true }, { name: 'v1alpha1', storage: false }]));
  waitEstablished();
  expect(storedVersions()).toEqual(['v1alpha1', 'v1']);
  // Dropping v1alpha1 now is refused.
  expect(() => kubectl(['apply', '-f', '-'], crd([{ name: 'v1', storage: true }]))).toThrow(/storedVersions|must appear in spec\.versions/);

  const doc = readFileSync(new URL('../../../docs/versions.md', import.meta.url), 'utf8');
  const step5 = doc.slice(doc.indexOf('## 5.'));
  const commands = [...step5.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' ').trim());
  expect(commands).toHaveLength(3);
  expect(JSON.parse(bash(commands[0]!))).toEqual(['v1alpha1', 'v1']); // kubectl get crd … storedVersions
  bash(commands[1]!); // rewrite every object (stored again, as v1)
  bash(commands[2]!); // storedVersions: ["v1"]
  expect(storedVersions()).toEqual(['v1']);
  kubectl(['apply', '-f', '-'], crd([{ name: 'v1', storage: true }]));
  waitEstablished();
  expect(JSON.parse(kubectl(['get', 'backups.v1.ops.example.com', 'old', '-n', 'default', '-o', 'json'])).spec).toEqual({ path: '/a' });
}, 120_000);

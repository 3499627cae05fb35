// data/kubernetes-builtins.json (written from the release's OpenAPI by tools/kubernetes-types/generate.ts)
// is all the CLI knows about built-in kinds: which versions are typed (create api), which kinds and
// resources are cluster-scoped (create webhook, RBAC for namespace-scoped operators). A real API server of
// that release is the oracle: every kind its discovery lists has the plural and scope the file gives it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../runtime/src/envtest/index.js';
import { Transport } from '../runtime/src/transport/index.js';
import { builtinKinds, builtinNamespaced, clusterScopedResource } from '../src/common/kubernetes-builtins.js';

interface ResourceList { resources: { name: string; kind: string; namespaced: boolean }[] }
interface GroupList { groups: { name: string; versions: { version: string }[] }[] }

let env: TestEnv;
let transport: Transport;
beforeAll(async () => {
  env = await startTestEnv();
  transport = new Transport(env.kubeConfig);
});
afterAll(async () => {
  transport?.destroy();
  await env?.stop();
});

it("every kind the API server's discovery lists has the data file's plural and scope", async () => {
  const served: { group: string; version: string; kind: string; plural: string; namespaced: boolean }[] = [];
  const list = async (group: string, version: string, path: string) => {
    for (const r of (await transport.request<ResourceList>('GET', path)).resources) {
      if (!r.name.includes('/')) served.push({ group, version, kind: r.kind, plural: r.name, namespaced: r.namespaced });
    }
  };
  await list('', 'v1', '/api/v1');
  for (const g of (await transport.request<GroupList>('GET', '/apis')).groups) {
    for (const v of g.versions) await list(g.name, v.version, `/apis/${g.name}/${v.version}`);
  }
  const known = new Map(builtinKinds().map((k) => [`${k.group}/${k.version}/${k.kind}`, k]));
  const differences = served.flatMap((s) => {
    const k = known.get(`${s.group}/${s.version}/${s.kind}`);
    if (!k) return [`${s.group}/${s.version} ${s.kind}: served, not in the data file`];
    return k.plural === s.plural && k.namespaced === s.namespaced ? [] : [`${s.group}/${s.version} ${s.kind}: served as ${s.plural} namespaced=${s.namespaced}, data file ${k.plural} namespaced=${k.namespaced}`];
  });
  expect(differences).toEqual([]);
  expect(served.length).toBeGreaterThan(50);
  // The by-kind and by-resource questions give one answer, the server's (the tables they replaced disagreed).
  for (const s of served) {
    expect(builtinNamespaced(s.group, s.kind), `${s.group} ${s.kind}`).toBe(s.namespaced);
    expect(clusterScopedResource(s.group, s.plural), `${s.group} ${s.plural}`).toBe(!s.namespaced);
  }
});

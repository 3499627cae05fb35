// Acceptance: every CRD opgen generates from the parity fixtures is accepted by a real kube-apiserver
// (server-side apply, dry run first), and `kubectl explain` shows its descriptions. The role and webhook
// manifests are checked the same way. Controller-gen's output for the deliberate-difference fixtures is
// dry-run too, to show the API server indeed rejects what opgen refuses.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesIn, readManifests, runControllerGen, runOpgen, warmUp, type GeneratorRun } from './harness.js';

warmUp();

const crdFixtures = ['basics', 'validation', 'kubernetes', 'versions', 'cluster', 'cronjob', 'merging', 'upstream'];

interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    names: { plural: string };
    versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}
interface Schema {
  description?: string;
  properties?: Record<string, Schema>;
}

let env: TestEnv;
const generated = new Map<string, GeneratorRun>();

async function kubectl(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('kubectl', [...args, '--kubeconfig', env.kubeconfigPath], { maxBuffer: 1 << 26 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? String(err)}` };
  }
}

/** Whitespace-insensitive text: kubectl explain re-wraps descriptions. */
function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

beforeAll(async () => {
  const runs = await Promise.all([
    ...crdFixtures.map(async (f) => [f, await runOpgen(f, 'crd')] as const),
    (async () => ['rbac', await runOpgen('rbac', 'rbac')] as const)(),
    (async () => ['webhook', await runOpgen('webhook', 'webhook')] as const)(),
  ]);
  for (const [fixture, run] of runs) generated.set(fixture, run);
  env = await startTestEnv();
}, 180_000);

afterAll(async () => {
  await env?.stop();
});

describe.each(crdFixtures)('%s CRDs on a real API server', (fixture) => {
  function crdFiles(): string[] {
    const run = generated.get(fixture)!;
    expect(run.stderr, `opgen generate crd failed for ${fixture}`).toBe('');
    const files = filesIn(join(run.dir, 'crd')).map((f) => join(run.dir, 'crd', f));
    expect(files.length).toBeGreaterThan(0);
    return files;
  }

  it('are accepted by server-side apply (dry run, then for real) and become Established', async () => {
    for (const file of crdFiles()) {
      const dry = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', file]);
      expect(dry.code, `${file}: ${dry.out}`).toBe(0);
      const real = await kubectl(['apply', '--server-side', '--field-manager=opgen-parity', '-f', file]);
      expect(real.code, `${file}: ${real.out}`).toBe(0);
      const [crd] = readManifests(file) as Crd[];
      // kubectl wait fails at once ("status.conditions accessor error") while a new CRD has no conditions yet.
      await eventually(
        async () => {
          const wait = await kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${crd!.metadata.name}`]);
          expect(wait.code, wait.out).toBe(0);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    }
  });

  it('kubectl explain <plural>.spec shows the generated descriptions', async () => {
    for (const file of crdFiles()) {
      const [crd] = readManifests(file) as Crd[];
      const version = crd!.spec.versions.find((v) => v.storage)!;
      const spec = version.schema.openAPIV3Schema.properties?.spec;
      if (!spec) continue;
      const expected = [spec.description, ...Object.values(spec.properties ?? {}).map((p) => p.description)]
        .filter((d): d is string => d !== undefined)
        .map((d) => words(d).slice(0, 60));
      expect(expected.length, `${file} has no descriptions under .spec`).toBeGreaterThan(0);
      const target = `${crd!.spec.names.plural}.spec`;
      const apiVersion = `--api-version=${crd!.spec.group}/${version.name}`;
      // The API server publishes a new CRD's OpenAPI a moment after it is Established.
      await eventually(
        async () => {
          const out = words((await kubectl(['explain', target, apiVersion])).out);
          for (const d of expected) expect(out, `kubectl explain ${target} ${apiVersion}`).toContain(d);
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
      );
    }
  });
});

describe('RBAC and webhook manifests on a real API server', () => {
  it('role.yaml is accepted by server-side apply (dry run)', async () => {
    const run = generated.get('rbac')!;
    expect(run.stderr).toBe('');
    for (const ns of ['parity-system', 'another-ns']) {
      const created = await kubectl(['create', 'namespace', ns]);
      expect(created.code, created.out).toBe(0);
    }
    const r = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', join(run.dir, 'rbac', 'role.yaml')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('clusterrole.rbac.authorization.k8s.io/manager-role serverside-applied');
  });

  it('manifests.yaml is accepted by server-side apply (dry run)', async () => {
    const run = generated.get('webhook')!;
    expect(run.stderr).toBe('');
    const r = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', join(run.dir, 'webhook', 'manifests.yaml')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/mutatingwebhookconfiguration\.admissionregistration\.k8s\.io\/\S+ serverside-applied/);
    expect(r.out).toMatch(/validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/\S+ serverside-applied/);
  });
});

/** What the API server says about controller-gen's output where opgen refuses to generate. */
const rejected: { fixture: string; reason: RegExp }[] = [
  { fixture: 'divergent/unique-items', reason: /uniqueItems: Forbidden: uniqueItems cannot be set to true/ },
  { fixture: 'divergent/recursion', reason: /properties\[children\]\.items\.type: Required value/ },
  { fixture: 'divergent/list-map-key', reason: /properties\[name\]\.default: Required value: this property is in x-kubernetes-list-map-keys/ },
  { fixture: 'divergent/list-map-nullable-key', reason: /properties\[name\]\.nullable: Forbidden/ },
  { fixture: 'divergent/scale-path', reason: /specReplicasPath: Invalid value: "\.replicas": should be a json path under \.spec/ },
  { fixture: 'divergent/cel-rule', reason: /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: .*found no matching overload for '_>_' applied to '\(int, string\)'/ },
  { fixture: 'divergent/invalid-default', reason: /properties\[level\]\.default: Invalid value: "string"/ },
  { fixture: 'divergent/embedded-map', reason: /properties\[payload\]\.additionalProperties: Forbidden/ },
  { fixture: 'divergent/service-account', reason: /properties\[account\]\.properties\[secrets\]\.items\.properties\[name\]\.default: Required value: this property is in x-kubernetes-list-map-keys/ },
  { fixture: 'divergent/field-path', reason: /x-kubernetes-validations\[0\]\.fieldPath: Invalid value: "\.maximum"/ },
];

describe.each(rejected)('controller-gen output for $fixture', ({ fixture, reason }) => {
  it('is rejected by the API server (why opgen refuses it)', async () => {
    const cg = await runControllerGen(fixture, ['crd']);
    expect(cg.code, cg.stderr).toBe(0);
    const [file] = filesIn(join(cg.dir, 'crd'));
    const r = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', join(cg.dir, 'crd', file!)]);
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).toMatch(reason);
  });
});

describe('a +listType=set of nullable items (divergent/nullable-set-items: controller-gen has no way to write it)', () => {
  it('is rejected by the API server: controller-gen\'s CRD for the nearest Go twin, with the items made nullable', async () => {
    const cg = await runControllerGen('divergent/nullable-set-items', ['crd']);
    expect(cg.code, cg.stderr).toBe(0);
    const [file] = filesIn(join(cg.dir, 'crd'));
    const [crd] = readManifests(join(cg.dir, 'crd', file!)) as { spec: { versions: { schema: { openAPIV3Schema: NullableItems } }[] } }[];
    const tags = crd!.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.tags!;
    const accepted = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', join(cg.dir, 'crd', file!)]);
    expect(accepted.code, accepted.out).toBe(0); // as controller-gen writes it
    tags.items!.nullable = true; // what `(string | null)[]` means
    const edited = join(cg.dir, 'crd', 'nullable-items.yaml');
    writeFileSync(edited, JSON.stringify(crd));
    const r = await kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=opgen-parity', '-f', edited]);
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).toMatch(/properties\[tags\]\.items\.nullable: Forbidden/);
  });
});

interface NullableItems {
  nullable?: boolean;
  items?: NullableItems;
  properties?: Record<string, NullableItems>;
}


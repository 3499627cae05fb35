// Other generators' markers in an API written for opgen: the names real generators define are known (read by
// opgen's generators, or ignored and listed by `generate --verbose`), and a misspelt opgen marker is still a
// one-line error. controller-gen's own list comes from controller-gen itself (`<generator> -w`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { foreignMarkerTool } from '../../src/markers/index.js';
import { createGeneratorRegistry } from '../../src/registry/index.js';
import { opgen } from '../../src/testdata/cli.js';
import { controllerGen, filesIn } from './harness.js';

const cg = controllerGen();
const work = mkdtempSync(join(tmpdir(), 'opgen-foreign-markers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The marker names one controller-gen generator defines, from its JSON help (`<generator> -wwww`). */
function controllerGenMarkers(generator: string): string[] {
  const help = spawnSync(cg, [generator, '-wwww'], { cwd: work, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (help.status !== 0) throw new Error(`controller-gen ${generator} -wwww: ${help.stderr}`);
  const categories = JSON.parse(help.stdout) as { markers: { name: string }[] }[];
  return [...new Set(categories.flatMap((c) => c.markers.map((m) => m.name)))];
}

describe('every marker controller-gen v0.23.0 defines', () => {
  const { registry } = createGeneratorRegistry();
  it.each(['crd', 'rbac:roleName=r', 'webhook', 'object', 'applyconfiguration'])('by its %s generator is read or ignored by opgen, never refused', (generator) => {
    const names = controllerGenMarkers(generator);
    expect(names.length).toBeGreaterThan(0);
    const unknown = names.filter((n) => registry.lookup(n) === undefined && foreignMarkerTool(n) === undefined);
    expect(unknown).toEqual([]);
  });
});

function writeApi(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'v1'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, 'v1', file), text);
  return dir;
}

const kind = (markers: string, field: string): string => `import type { ObjectMeta } from '@opgen/runtime';

${markers}
// +kubebuilder:object:root=true
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
${field}
  spec?: string;
}
`;

describe('other Kubernetes generators\' markers in an API written for opgen', () => {
  // cert-manager's doc.go carries client-gen's +groupGoName; kinds carry +genclient, deepcopy-gen's and
  // openapi-gen's markers; fields validation-gen's and go-to-protobuf's.
  const dir = writeApi('foreign', {
    'groupversion-info.ts': '// +groupName=foreign.example.com\n// +groupGoName=Foreign\n// +k8s:deepcopy-gen=package\n// +k8s:openapi-gen=true\nexport {};\n',
    'types.ts': kind(
      '// +genclient\n// +genclient:nonNamespaced\n// +genclient:skipVerbs=patch\n// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object\n// +kubebuilder:ac:generate=true',
      '  // +k8s:maxLength=10\n  // +protobuf=true',
    ),
  });

  it('generates the CRD, and --verbose lists each as ignored with its position and its generator', async () => {
    const r = await opgen(dir, 'generate', 'crd', '--paths', 'v1', '--output-dir', 'out', '--verbose');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(filesIn(join(dir, 'out'))).toEqual(['foreign.example.com_widgets.yaml']);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('ignored: '))).toEqual([
      'ignored: v1/groupversion-info.ts:2:4: +groupGoName=Foreign (a marker of client-gen; opgen generates nothing from it)',
      'ignored: v1/groupversion-info.ts:3:4: +k8s:deepcopy-gen=package (a marker of deepcopy-gen (and controller-gen object); opgen generates nothing from it)',
      'ignored: v1/groupversion-info.ts:4:4: +k8s:openapi-gen=true (a marker of openapi-gen; opgen generates nothing from it)',
      'ignored: v1/types.ts:3:4: +genclient (a marker of client-gen; opgen generates nothing from it)',
      'ignored: v1/types.ts:4:4: +genclient:nonNamespaced (a marker of client-gen; opgen generates nothing from it)',
      'ignored: v1/types.ts:5:4: +genclient:skipVerbs=patch (a marker of client-gen; opgen generates nothing from it)',
      'ignored: v1/types.ts:6:4: +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object (a marker of deepcopy-gen (and controller-gen object); opgen generates nothing from it)',
      'ignored: v1/types.ts:7:4: +kubebuilder:ac:generate=true (a marker of controller-gen applyconfiguration; opgen generates nothing from it)',
      'ignored: v1/types.ts:13:6: +k8s:maxLength=10 (a marker of validation-gen; opgen generates nothing from it)',
      'ignored: v1/types.ts:14:6: +protobuf=true (a marker of go-to-protobuf; opgen generates nothing from it)',
    ]);
  });

  it('lists nothing without --verbose', async () => {
    const r = await opgen(dir, 'generate', 'crd', '--paths', 'v1', '--output-dir', 'out2');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('ignored: ');
  });

  it.each([
    ['+groupname=typo.example.com', 'groupversion-info.ts', 'v1/groupversion-info.ts:1:4: error: unknown marker +groupname (did you mean +groupName?)'],
    ['+kubebuilder:skipverison', 'types.ts', 'v1/types.ts:3:4: error: Widget: unknown marker +kubebuilder:skipverison (did you mean +kubebuilder:skipversion?)'],
    ['+kubebuilder:object:generat=true', 'types.ts', 'v1/types.ts:3:4: error: Widget: unknown marker +kubebuilder:object:generat (did you mean +kubebuilder:object:generate?)'],
    ['+kubebuilder:skip', 'types.ts', 'v1/types.ts:3:4: error: Widget: +kubebuilder:skip above a type would leave out every kind of the folder, not this type (drop it (a type no kind uses is not in any CRD), or put it in a comment of groupversion-info.ts to skip the whole folder)'],
    ['+k8s:listtype=atomic', 'types.ts', 'v1/types.ts:3:4: error: Widget: unknown marker +k8s:listtype (did you mean +k8s:listType?)'],
  ])('still refuses %s with one line, and writes nothing', async (typo, file, error) => {
    const files = file === 'types.ts' ? { 'groupversion-info.ts': '// +groupName=typo.example.com\nexport {};\n', 'types.ts': kind(`// ${typo}`, '') } : { 'groupversion-info.ts': `// ${typo}\n// +groupName=typo.example.com\nexport {};\n`, 'types.ts': kind('', '') };
    const typoDir = writeApi(`typo-${typo.replace(/[^a-z]+/gi, '-')}`, files);
    const r = await opgen(typoDir, 'generate', 'crd', '--paths', 'v1', '--output-dir', 'out', '--verbose');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(error);
    expect(filesIn(join(typoDir, 'out'))).toEqual([]);
  });
});

// How TypeScript declarations map to CRD schemas: small projects written out per case, generated, and read
// back as a user would read the CRD.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OpgenErrors } from '../diag/diagnostic.js';
import { generateCommand } from '../gen/command.js';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const KIND = `
// +kubebuilder:object:root=true
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpec;
}
`;

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-crd-'));
  temps.push(dir);
  writeFileSync(join(dir, 'PROJECT'), '');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Generates the project's CRDs and returns them by file name. */
async function crds(files: Record<string, string>): Promise<Record<string, any>> {
  const dir = project(files);
  await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, () => {});
  const bases = join(dir, 'config/crd/bases');
  let names: string[] = [];
  try {
    names = readdirSync(bases);
  } catch {
    names = [];
  }
  return Object.fromEntries(names.map((n) => [n, parse(readFileSync(join(bases, n), 'utf8'))]));
}

async function failure(files: Record<string, string>): Promise<string> {
  const dir = project(files);
  const err = await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, () => {}).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpgenErrors);
  return (err as OpgenErrors).message;
}

const GV = '// +groupName=test.example.com\nexport {};\n';
const IMPORTS = "import type { ObjectMeta, int32 } from '@opgen/runtime';\n";

function specOf(crd: any, version = 0): any {
  return crd.spec.versions[version].schema.openAPIV3Schema.properties.spec;
}

describe('required and optional fields', () => {
  it('follows ?, | undefined, +optional/+required and the folder default with controller-gen precedence', async () => {
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}
export interface WidgetSpec {
  plain: string;
  question?: string;
  maybe: string | undefined;
  // +optional
  markedOptional: string;
  // +required
  markedRequired?: string;
  // +kubebuilder:validation:Optional
  // +required
  kbOptionalWins: string;
}
${KIND}`,
      'src/api/v2/gv.ts': '// +groupName=test.example.com\n// +kubebuilder:validation:Optional\nexport {};\n',
      'src/api/v2/types.ts': `${IMPORTS}
export interface WidgetSpec {
  plain: string;
  // +required
  markedRequired?: string;
}
// +kubebuilder:storageversion
${KIND}`,
    });
    const crd = out['test.example.com_widgets.yaml'];
    expect(specOf(crd, 0).required).toEqual(['markedRequired', 'plain']);
    expect(specOf(crd, 1).required).toEqual(['markedRequired']);
  });
});

describe('folder markers', () => {
  it('+versionName renames the version, +kubebuilder:skip leaves a folder out, +kubebuilder:skipversion drops one version', async () => {
    const spec = `${IMPORTS}\nexport interface WidgetSpec { a?: string }\n`;
    const out = await crds({
      'src/api/v1/gv.ts': '// +groupName=test.example.com\n// +versionName=v1beta1\nexport {};\n',
      'src/api/v1/types.ts': `${spec}${KIND}`,
      'src/api/v2/gv.ts': GV,
      'src/api/v2/types.ts': `${spec}// +kubebuilder:skipversion\n${KIND}`,
      'src/api/internal/gv.ts': '// +groupName=test.example.com\n// +kubebuilder:skip\nexport {};\n',
      'src/api/internal/types.ts': `${spec}// +kubebuilder:object:root=true\nexport interface Gadget { metadata?: ObjectMeta }\n`,
    });
    expect(Object.keys(out)).toEqual(['test.example.com_widgets.yaml']);
    expect(out['test.example.com_widgets.yaml'].spec.versions.map((v: any) => [v.name, v.storage])).toEqual([['v1beta1', true]]);
  });

  it('refuses a folder that names two groups', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `// +groupName=other.example.com\n${IMPORTS}\nexport interface WidgetSpec { a?: string }\n${KIND}`,
      }),
    ).toBe(
      'src/api/v1/types.ts:1:4: error: src/api/v1 names two different groups: "test.example.com" (src/api/v1/gv.ts:1) and "other.example.com" (one folder is one API group-version: keep one +groupName)',
    );
  });

  it('refuses a kind in a folder without +groupName, pointing at the kind', async () => {
    expect(
      await failure({
        'src/api/v1/types.ts': `${IMPORTS}\nexport interface WidgetSpec { a?: string }\n${KIND}`,
      }),
    ).toBe(
      'src/api/v1/types.ts:6:18: error: Widget: its folder src/api/v1 has no +groupName (add // +groupName=<group> to a file in src/api/v1 (e.g. groupversion-info.ts))',
    );
  });
});

describe('types', () => {
  it('maps TypeScript types as the contract says', async () => {
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/shared.ts': `
/** Mode is how it runs. */
export enum Mode { Fast = 'fast', Safe = 'safe' }
export interface Base { /** From the base. */ inherited?: string }
export const SIZES = [1, 2, 4] as const;
`,
      'src/api/v1/types.ts': `${IMPORTS}import type { int64 } from '@opgen/runtime';
import { Mode, SIZES, type Base } from './shared.js';
const PHASES = ['Pending', 'Running'] as const;
/** Phase of the widget. */
export type Phase = (typeof PHASES)[number];
export interface WidgetSpec extends Base {
  n?: number;
  i32?: int32;
  i64?: int64;
  flag?: boolean;
  mode?: Mode;
  list?: ReadonlyArray<string>;
  arr?: Array<int32>;
  map?: { [key: string]: boolean };
  nested?: { deep?: { value?: string } };
  nullableList?: string[] | null;
  literal?: 'only';
  phase?: Phase;
  size?: (typeof SIZES)[number];
}
${KIND}`,
    });
    const props = specOf(out['test.example.com_widgets.yaml']).properties;
    expect(props).toEqual({
      arr: { items: { format: 'int32', type: 'integer' }, type: 'array' },
      flag: { type: 'boolean' },
      i32: { format: 'int32', type: 'integer' },
      i64: { format: 'int64', type: 'integer' },
      inherited: { description: 'From the base.', type: 'string' },
      list: { items: { type: 'string' }, type: 'array' },
      literal: { enum: ['only'], type: 'string' },
      map: { additionalProperties: { type: 'boolean' }, type: 'object' },
      mode: { description: 'Mode is how it runs.', enum: ['fast', 'safe'], type: 'string' },
      n: { type: 'number' },
      phase: { description: 'Phase of the widget.', enum: ['Pending', 'Running'], type: 'string' },
      size: { enum: [1, 2, 4], type: 'integer' },
      nested: { properties: { deep: { properties: { value: { type: 'string' } }, type: 'object' } }, type: 'object' },
      nullableList: { items: { type: 'string' }, nullable: true, type: 'array' },
    });
  });
});

describe('lists the API server would refuse', () => {
  it('refuses nullable items in a set', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}
export interface WidgetSpec {
  // +listType=set
  tags?: (string | null)[];
}
${KIND}`,
      }),
    ).toBe('src/api/v1/types.ts:4:6: error: Widget.spec.tags: the items of a +listType=set list cannot be nullable (remove null from the item type, or use +listType=atomic)');
  });
});

describe('versions of one kind', () => {
  it('refuses +kubebuilder:resource markers that disagree between versions', async () => {
    const spec = `${IMPORTS}\nexport interface WidgetSpec { a?: string }\n`;
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${spec}// +kubebuilder:resource:scope=Cluster\n// +kubebuilder:storageversion\n${KIND}`,
        'src/api/v2/gv.ts': GV,
        'src/api/v2/types.ts': `${spec}// +kubebuilder:resource:scope=Namespaced\n${KIND}`,
      }),
    ).toBe(
      'src/api/v2/types.ts:4:4: error: Widget: +kubebuilder:resource differs between versions v1 and v2 (write the same +kubebuilder:resource on every version)',
    );
  });
});

describe('versions of one kind, continued', () => {
  it('accepts +kubebuilder:resource markers that differ only by spelling out a default', async () => {
    const spec = `${IMPORTS}\nexport interface WidgetSpec { a?: string }\n`;
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${spec}// +kubebuilder:resource:shortName=wd\n// +kubebuilder:storageversion\n${KIND}`,
      'src/api/v2/gv.ts': GV,
      'src/api/v2/types.ts': `${spec}// +kubebuilder:resource:shortName=wd,scope=Namespaced,path=widgets,singular=widget\n${KIND}`,
    });
    const crd = Object.values(out)[0];
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ plural: 'widgets', singular: 'widget', shortNames: ['wd'] });
    expect(crd.spec.versions.map((v: { name: string }) => v.name)).toEqual(['v1', 'v2']);
  });
});

describe('folder markers in the wrong place', () => {
  it('refuses +kubebuilder:validation:Optional above a type instead of silently making the whole folder optional', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}
// +kubebuilder:validation:Optional
export interface WidgetSpec { a: string }
${KIND}`,
      }),
    ).toBe(
      'src/api/v1/types.ts:3:4: error: WidgetSpec: +kubebuilder:validation:Optional above a type would apply to every field of the folder (put it on the fields it is meant for, or in a comment of groupversion-info.ts for the whole folder)',
    );
  });
});

describe('marker lines that are not markers', () => {
  it('reports a known marker followed by prose at the prose, and names an unknown one by its first word', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}
export interface WidgetSpec {
  // +optional because callers may omit it
  a?: string;
  // +kubebuilder:validaton:MinLength=1 is the rule
  b?: string;
}
${KIND}`,
      }),
    ).toBe(
      [
        'src/api/v1/types.ts:4:15: error: WidgetSpec.a: +optional is followed by text that is not its arguments (write +name or +name:arg=value without spaces; start a prose comment with something other than +)',
        'src/api/v1/types.ts:6:6: error: WidgetSpec.b: unknown marker +kubebuilder:validaton:MinLength (did you mean +kubebuilder:validation:MinLength?)',
      ].join('\n'),
    );
  });
});

describe('descriptions', () => {
  it('leave out tool directives such as eslint-disable and @ts-expect-error', async () => {
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}
export interface WidgetSpec {
  // Count of things.
  // eslint-disable-next-line @typescript-eslint/naming-convention
  count?: int32;
}
${KIND}`,
    });
    expect(specOf(out['test.example.com_widgets.yaml']).properties.count.description).toBe('Count of things.');
  });
});

describe('broken sources', () => {
  it('reports a TypeScript syntax error instead of reading a half-parsed file', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}
export interface WidgetSpec {
  a?: string
  b?: ;
}
${KIND}`,
      }),
    ).toBe("src/api/v1/types.ts:5:7: error: syntax error: Type expected. (fix the TypeScript; tsc --noEmit reports the same)");
  });
});

describe('typed built-in kinds from @opgen/runtime/kubernetes (corev1.Container, as Go code names them)', () => {
  it('give the schema of the same Go type as the @kubernetes/client-node model (which the parity suite checks against controller-gen)', async () => {
    const viaRuntime = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}import type { appsv1, corev1, metav1 } from '@opgen/runtime/kubernetes';
import * as eventsv1 from '@opgen/runtime/kubernetes/eventsv1';
import type { Affinity } from '@opgen/runtime/kubernetes/corev1';
export interface WidgetSpec {
  sidecars?: corev1.Container[];
  affinity?: Affinity;
  strategy?: appsv1.DeploymentStrategy;
  coreEvent?: corev1.Event;
  event?: eventsv1.Event;
  since?: metav1.Time;
}
${KIND}`,
    });
    const viaClientNode = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}import type { CoreV1Event, EventsV1Event, V1Affinity, V1Container, V1DeploymentStrategy } from '@kubernetes/client-node';
import type { Time } from '@opgen/runtime';
export interface WidgetSpec {
  sidecars?: V1Container[];
  affinity?: V1Affinity;
  strategy?: V1DeploymentStrategy;
  coreEvent?: CoreV1Event;
  event?: EventsV1Event;
  since?: Time;
}
${KIND}`,
    });
    const spec = specOf(viaRuntime['test.example.com_widgets.yaml']);
    expect(spec.properties.sidecars.items.required).toEqual(['name']);
    expect(spec.properties.coreEvent.properties.involvedObject).toBeDefined();
    expect(spec.properties.event.properties.regarding).toBeDefined();
    expect(spec).toEqual(specOf(viaClientNode['test.example.com_widgets.yaml']));
  });

  it('refuses a name the group-version does not have, naming it', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}import type { corev1 } from '@opgen/runtime/kubernetes';\nexport interface WidgetSpec { c?: corev1.Contaner }\n${KIND}`,
      }),
    ).toMatch(/^src\/api\/v1\/types\.ts:\d+:\d+: error: Widget\.spec\.c: corev1\.Contaner is not a Kubernetes type opgen knows \(/);
  });
});

describe('which interfaces are kinds (controller-gen FindKubeKinds: TypeMeta and ObjectMeta embedded)', () => {
  it('takes apiVersion, kind and metadata: ObjectMeta, or extends KubeObject, as a kind without +kubebuilder:object:root', async () => {
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `import type { KubeObject, ListMeta, ObjectMeta } from '@opgen/runtime';
import type { metav1 } from '@opgen/runtime/kubernetes';
export interface Spec { a?: string }
export interface Widget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: Spec }
export interface WidgetList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Widget[] }
export interface Gadget extends KubeObject { spec?: Spec }
export interface Gear { apiVersion?: string; kind?: string; metadata?: metav1.ObjectMeta; spec?: Spec }
export interface Template { metadata?: ObjectMeta; spec?: Spec }
`,
    });
    expect(Object.keys(out).sort()).toEqual(['test.example.com_gadgets.yaml', 'test.example.com_gears.yaml', 'test.example.com_widgets.yaml']);
  });

  it('refuses a +groupName folder that yields no kind, saying what it looked for and what came close', async () => {
    const message = await failure({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}export interface Widget { kind?: string; metadata?: ObjectMeta; spec?: { a?: string } }\n`,
    });
    expect(message).toBe(
      "src/api/v1/gv.ts:1:4: error: src/api/v1 has +groupName=test.example.com but no kind in 2 files: looked for an exported interface with apiVersion, kind and metadata: ObjectMeta (or extending KubeObject, or marked +kubebuilder:object:root=true); close: Widget (src/api/v1/types.ts) has metadata: ObjectMeta but no apiVersion (give the kind's interface apiVersion?: string, kind?: string and metadata?: ObjectMeta (or extends KubeObject))",
    );
  });

  it('warns about a +groupName folder without kinds beside folders that have some', async () => {
    const dir = project({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}export interface WidgetSpec { a?: string }\n${KIND}`,
      'src/api/v2/gv.ts': GV,
      'src/api/v2/types.ts': 'export interface Nothing { a?: string }\n',
    });
    const lines: string[] = [];
    expect(await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, (l) => lines.push(l))).toBe(0);
    expect(lines.filter((l) => l.startsWith('warning:'))).toEqual([
      "warning: src/api/v2/gv.ts:1:4: src/api/v2 has +groupName=test.example.com but no kind in 2 files: looked for an exported interface with apiVersion, kind and metadata: ObjectMeta (or extending KubeObject, or marked +kubebuilder:object:root=true) (give the kind's interface apiVersion?: string, kind?: string and metadata?: ObjectMeta (or extends KubeObject))",
    ]);
  });
});

describe('root metadata', () => {
  it('is required when declared non-optional, as controller-gen does for json:"metadata"', async () => {
    const out = await crds({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}export interface Widget { apiVersion?: string; kind?: string; metadata: ObjectMeta; spec?: { a?: string } }\n`,
    });
    const schema = out['test.example.com_widgets.yaml'].spec.versions[0].schema.openAPIV3Schema;
    expect(schema.required).toEqual(['metadata']);
    expect(schema.properties.metadata).toEqual({ type: 'object' });
  });
});

describe('strictness on markers of real APIs', () => {
  it('refuses a typo such as +optional. and an unknown kubebuilder: name with did-you-mean; other generators\' markers pass', async () => {
    expect(
      await failure({
        'src/api/v1/gv.ts': GV,
        'src/api/v1/types.ts': `${IMPORTS}
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
export interface WidgetSpec {
  // +optional.
  a?: string;
  // +kubebuilder:validation:MaxLenght=3
  b?: string;
}
${KIND}`,
      }),
    ).toBe(
      [
        'src/api/v1/types.ts:7:6: error: WidgetSpec.a: unknown marker +optional. (did you mean +optional?)',
        'src/api/v1/types.ts:9:6: error: WidgetSpec.b: unknown marker +kubebuilder:validation:MaxLenght (did you mean +kubebuilder:validation:MaxLength?)',
      ].join('\n'),
    );
  });
});

describe('kinds by shape outside API folders', () => {
  it('are not CRDs: a controller may type a built-in kind it reads the same way (no +groupName there)', async () => {
    const dir = project({
      'src/api/v1/gv.ts': GV,
      'src/api/v1/types.ts': `${IMPORTS}export interface WidgetSpec { a?: string }\n${KIND}`,
      'src/controller/deployments.ts': `import type { ObjectMeta } from '@opgen/runtime';\nexport interface MyDeployment { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { replicas?: number } }\n`,
    });
    expect(await generateCommand({ cwd: dir, targets: ['crd'], paths: 'src', check: false, dryRun: false }, () => {})).toBe(0);
    expect(readdirSync(join(dir, 'config/crd/bases'))).toEqual(['test.example.com_widgets.yaml']);
  });
});

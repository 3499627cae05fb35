// CEL rules checked by `opgen generate crd`: a bad rule is one line pointing into the rule, and nothing is written.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpgenErrors } from '../diag/diagnostic.js';
import { generateCommand } from '../gen/command.js';

const fixture = join(import.meta.dirname, '../../test/fixtures/cel');
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** The fixture project with `marker` in place of the `// RULE` line above WidgetSpec (line 4). */
function project(marker: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-cel-'));
  temps.push(dir);
  cpSync(fixture, dir, { recursive: true });
  const types = join(dir, 'src/api/v1/types.ts');
  writeFileSync(types, readFileSync(types, 'utf8').replace('// RULE', () => marker));
  return dir;
}

async function generate(dir: string): Promise<string> {
  return generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, () => {}).then(
    () => '',
    (e: unknown) => (e instanceof OpgenErrors ? e.message : Promise.reject(e)),
  );
}

const crdFile = (dir: string): string => join(dir, 'config/crd/bases/cel.example.com_widgets.yaml');

describe('CEL rules at generate time', () => {
  it('writes the CRD when every rule checks', async () => {
    const dir = project('// +kubebuilder:validation:XValidation:rule="self.tags.all(t, t.startsWith(\\"a\\")) && self.name.matches(\'^[a-z]+$\')"');
    expect(await generate(dir)).toBe('');
    expect(readFileSync(crdFile(dir), 'utf8')).toContain('self.tags.all(t, t.startsWith(');
  });

  const marker = (rule: string): string => `// +kubebuilder:validation:XValidation:rule="${rule}"`;
  it.each([
    ['a syntax error', marker('self.replicas > '), 'src/api/v1/types.ts:4:62: error: Widget.spec: CEL rule "self.replicas > ": CEL: Unexpected token: EOF (fix the syntax)'],
    ['a type error', marker('self.name > 1'), 'src/api/v1/types.ts:4:46: error: Widget.spec: CEL rule "self.name > 1": CEL: no such overload: string > int (fix the expression against the fields of the schema it sits on)'],
    ['an unknown field', marker('self.nmae == \\"x\\"'), 'src/api/v1/types.ts:4:46: error: Widget.spec: CEL rule "self.nmae == \\"x\\"": CEL: No such key: nmae (name a field of this schema (check the spelling and the JSON name))'],
    ['an unknown function', marker('self.name.frobnicate()'), "src/api/v1/types.ts:4:46: error: Widget.spec: CEL rule \"self.name.frobnicate()\": CEL: found no matching overload for 'string.frobnicate()' (check the function's name and argument types; the Kubernetes CEL libraries are listed at https://kubernetes.io/docs/reference/using-api/cel/)"],
    ['a rule over the cost budget', marker('self.notes.all(a, self.notes.all(b, a == b))'), 'src/api/v1/types.ts:4:46: error: Widget.spec: CEL rule "self.notes.all(a, self.notes.all(b, a == b))": the estimated cost '],
  ])('refuses %s with one line pointing into the rule, and writes nothing', async (_what, line, expected) => {
    const dir = project(line);
    const message = await generate(dir);
    expect(message.split('\n')).toHaveLength(1);
    expect(message.slice(0, expected.length)).toBe(expected);
    expect(existsSync(crdFile(dir))).toBe(false);
  });

  it('names the unbounded field and the marker that would bound it', async () => {
    const message = await generate(project(marker('self.notes.all(a, self.notes.all(b, a == b))')));
    expect(message).toContain('more than 100x the API server\'s per-rule budget (10000000)');
    expect(message).toContain('+kubebuilder:validation:MaxItems on self.notes');
    expect(message).toContain('+kubebuilder:validation:MaxLength on self.notes[*]');
  });
});

describe('CEL rules against the oldest Kubernetes the project supports (PROJECT minKubeVersion)', () => {
  const withFloor = (rule: string, minKube?: string): string => {
    const dir = project(`// +kubebuilder:validation:XValidation:rule="${rule}"`);
    writeFileSync(join(dir, 'PROJECT'), minKube ? `minKubeVersion: "${minKube}"\n` : '');
    return dir;
  };
  it.each([
    ['isSemver, 1.33', '!isSemver(self.name) || semver(self.name).major() > 0', '1.33', 'isSemver() needs Kubernetes 1.34 (the Kubernetes semver library entered the API server\'s CEL environment in 1.33; new CRDs may use it from 1.34), but PROJECT minKubeVersion is "1.33" (raise minKubeVersion in PROJECT to "1.34", or write the rule without isSemver())'],
    ['ip, 1.30', '!isIP(self.name) || ip(self.name).family() == 4', '1.30.2', 'isIP() needs Kubernetes 1.31'],
    ['format, 1.31', '!format.dns1123Label().validate(self.name).hasValue()', '1.31', 'format.dns1123Label() needs Kubernetes 1.32'],
    ['a two-variable comprehension, 1.32', 'self.tags.all(i, t, i < 5 && t != \\"x\\")', '1.32', '.all() with two variables needs Kubernetes 1.33'],
    ['lists v3, 1.34', 'self.tags.distinct().size() == self.tags.size()', '1.34', '.distinct() needs Kubernetes 1.35'],
    ['quantity, the default floor', '!isQuantity(self.name) || quantity(self.name).isInteger()', undefined, 'isQuantity() needs Kubernetes 1.29 (the Kubernetes quantity library entered the API server\'s CEL environment in 1.28; new CRDs may use it from 1.29), but PROJECT sets no minKubeVersion, so the project supports Kubernetes 1.28.0 (the default)'],
    ['optional types, the default floor', 'self.?name.orValue(\\"\\") != \\"x\\"', undefined, '.? needs Kubernetes 1.29'],
  ])('refuses %s, naming the version that accepts it', async (_what, rule, minKube, expected) => {
    const message = await generate(withFloor(rule, minKube));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^src\/api\/v1\/types\.ts:4:\d+: error: Widget\.spec: CEL rule /);
    expect(message).toContain(expected);
  });

  it('reads a field named by a CEL reserved word (self.namespace) from Kubernetes 1.32, and self.__namespace__ on every version', async () => {
    const withNamespace = (rule: string, minKube: string): string => {
      const dir = withFloor(rule, minKube);
      const types = join(dir, 'src/api/v1/types.ts');
      writeFileSync(types, readFileSync(types, 'utf8').replace('  notes?: string[];', '  notes?: string[];\n  // +kubebuilder:validation:MaxLength=63\n  namespace?: string;'));
      return dir;
    };
    const refused = await generate(withNamespace("!has(self.namespace) || self.namespace != 'kube-system'", '1.31'));
    expect(refused).toMatch(/^src\/api\/v1\/types\.ts:4:\d+: error: Widget\.spec: CEL rule .*: \.namespace needs Kubernetes 1\.32 \(reading a field named by a CEL reserved word without its __escape__ entered the API server's CEL environment in 1\.31; new CRDs may use it from 1\.32\), but PROJECT minKubeVersion is "1\.31" \(raise minKubeVersion in PROJECT to "1\.32", or write the rule with \.__namespace__ \(every version reads that\)\)$/);
    expect(await generate(withNamespace("!has(self.namespace) || self.namespace != 'kube-system'", '1.32'))).toBe('');
    expect(await generate(withNamespace("!has(self.__namespace__) || self.__namespace__ != 'kube-system'", '1.28'))).toBe('');
  });

  it('accepts each once minKubeVersion reaches the version named', async () => {
    for (const [rule, minKube] of [
      ['!isSemver(self.name) || semver(self.name).major() > 0', '1.34'],
      ['!isIP(self.name) || ip(self.name).family() == 4', '1.31'],
      ['self.tags.all(i, t, i < 5 && t != \\"x\\")', '1.33'],
      ['self.tags.distinct().size() == self.tags.size()', '1.35'],
      ['!isQuantity(self.name) || quantity(self.name).isInteger()', '1.29'],
      ['self.name.matches(\'^[a-z]+$\') && self.tags.all(t, t.size() < 5)', undefined],
    ] as const) {
      expect(await generate(withFloor(rule, minKube)), `${rule} at ${minKube ?? 'the default'}`).toBe('');
    }
  });

  it('checks against the newest API server outside a project (no PROJECT), as controller-gen users expect', async () => {
    const dir = withFloor('!isSemver(self.name) || semver(self.name).major() > 0');
    rmSync(join(dir, 'PROJECT'));
    const out = join(dir, 'out');
    await generateCommand({ cwd: dir, targets: ['crd'], paths: 'src/api/...', outputDir: out, check: false, dryRun: false }, () => {});
    expect(existsSync(join(out, 'cel.example.com_widgets.yaml'))).toBe(true);
  });
});

describe('transition rules where old and new values cannot be paired (#30)', () => {
  it('refuses oldSelf below the items of an atomic list, as the API server refuses it (oracle: old-self-atomic-list-items)', async () => {
    const dir = project('// RULE');
    const types = join(dir, 'src/api/v1/types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        '  notes?: string[];',
        '  // +kubebuilder:validation:MaxItems=5\n  steps?: Step[];\n  notes?: string[];',
      ) + '\n// +kubebuilder:validation:XValidation:rule="self.n >= oldSelf.n",message="n may only grow"\nexport interface Step {\n  n: int32;\n}\n',
    );
    const message = await generate(dir);
    expect(message).toMatch(/^src\/api\/v1\/types\.ts:\d+:\d+: error: Widget\.spec\.steps\[\*\]: CEL rule "self\.n >= oldSelf\.n": oldSelf cannot be used here: the items of spec\.steps cannot be paired between the old and the new object \(make spec\.steps a map list \(\+listType=map with \+listMapKey\) or move the rule above it\)$/);
    expect(existsSync(crdFile(dir))).toBe(false);
  });

  it('reports a +kubebuilder:validation:items:XValidation rule at that marker (file:line:col inside its rule), not at the kind', async () => {
    const dir = project('// RULE');
    const types = join(dir, 'src/api/v1/types.ts');
    const marker = '  // +kubebuilder:validation:items:XValidation:rule="self.n >= oldSelf.n",message="n may only grow"';
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace('  notes?: string[];', `  // +kubebuilder:validation:MaxItems=5\n${marker}\n  steps?: Step[];\n  notes?: string[];`) +
        '\nexport interface Step {\n  n: int32;\n}\n',
    );
    const line = readFileSync(types, 'utf8').split('\n').indexOf(marker) + 1;
    const column = marker.indexOf('rule="') + 'rule="'.length + 1;
    expect(line).toBeGreaterThan(4);
    expect(await generate(dir)).toBe(
      `src/api/v1/types.ts:${line}:${column}: error: Widget.spec.steps[*]: CEL rule "self.n >= oldSelf.n": oldSelf cannot be used here: the items of spec.steps cannot be paired between the old and the new object (make spec.steps a map list (+listType=map with +listMapKey) or move the rule above it)`,
    );
    expect(existsSync(crdFile(dir))).toBe(false);
  });

  it('reports each rule at its own marker: a field\'s XValidation and the items:XValidation below it', async () => {
    const dir = project('// RULE');
    const types = join(dir, 'src/api/v1/types.ts');
    const field = '  // +kubebuilder:validation:XValidation:rule="self.size() > \'a\'"';
    const items = '  // +kubebuilder:validation:items:XValidation:rule="self.startsWith(1)"';
    writeFileSync(types, readFileSync(types, 'utf8').replace('  notes?: string[];', `${field}\n  // +kubebuilder:validation:MaxItems=3\n${items}\n  notes?: string[];`));
    const lines = readFileSync(types, 'utf8').split('\n');
    const at = (marker: string): string => `src/api/v1/types.ts:${lines.indexOf(marker) + 1}:${marker.indexOf('rule="') + 7}: error: `;
    const message = (await generate(dir)).split('\n');
    expect(message).toHaveLength(2);
    expect(message[0]).toMatch(new RegExp(`^${at(field)}Widget\\.spec\\.notes: CEL rule "self\\.size\\(\\) > 'a'": CEL: no such overload`));
    expect(message[1]).toMatch(new RegExp(`^${at(items).replace(/\./g, '\\.')}Widget\\.spec\\.notes\\[\\*\\]: CEL rule "self\\.startsWith\\(1\\)": CEL: found no matching overload`));
  });
});

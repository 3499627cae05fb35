// The YAML writer's bytes, judged by the writer it imitates: controller-gen's yaml.v2 (test/parity/go/yamlv2,
// built from the Go module proxy like controller-gen). A corpus of awkward values — every quoting style,
// folding at column 80 in plain/single/double style, block literals, YAML 1.1 look-alikes, digit-run key
// order, numbers, nesting — must come out byte for byte as yaml.v2 writes it. The `yaml` package is pinned
// exactly in package.json because a release could re-lay its output; if one ever does, this test fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toYaml } from './yaml.js';

const goModule = join(import.meta.dirname, '../../test/parity/go');
let dir: string;
let yamlv2: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opgen-yamlv2-'));
  yamlv2 = join(dir, 'yamlv2');
  execFileSync('go', ['build', '-o', yamlv2, './yamlv2'], { cwd: goModule, env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function goYaml(docs: object[]): string {
  return execFileSync(yamlv2, { input: JSON.stringify(docs), encoding: 'utf8' });
}

const words = ['a', 'is', 'the', 'value', 'self.spec.replicas', 'x-kubernetes', '#', 'key:', ':', '-', "it's", '"q"', 'yes', '1.5', '0x1F', '\\', 'é', '—', '{}', '*', '!has(self.a)', 'http://example.com/a:b'];

/** A deterministic pseudo-random sentence (mulberry32), long enough to fold more than once. */
function sentences(count: number): string[] {
  let seed = 0x5eed;
  const next = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(next() * 40);
    const parts: string[] = [];
    for (let j = 0; j < n; j++) parts.push(words[Math.floor(next() * words.length)]!);
    let s = parts.join(' ');
    if (next() < 0.15) s = s.replace(' ', '\n');
    if (next() < 0.1) s = ` ${s}`;
    if (next() < 0.1) s += ' ';
    if (next() < 0.05) s += '\t';
    out.push(s);
  }
  return out;
}

describe('the YAML writer against yaml.v2', () => {
  it('writes the corpus of awkward scalars byte for byte as controller-gen does', async () => {
    const scalars = [
      '', ' ', 'True', 'no', 'Off', '~', 'null', '124', '-0', '1_000', '0o17', '1e3', '.inf', '2024-01-15', '12:30:45',
      'memcached:1.6', '*', '&a', '!x', '%x', '@x', '`x`', '{}', '[a]', '- x', '-x', '? x', ': x', 'a: b', 'a:', 'a #b', 'a#b',
      '---', '--- x', '...', "it's", '"quoted"', 'tab\there', 'bell\u0007', 'nbsp\u00a0x', 'emoji 🙂', 'first\nsecond', 'trailing \nspace',
      'ends\n', ' lead\nx', 'x'.repeat(120), `${'word '.repeat(30)}end`, `'${'q '.repeat(50)}'`,
    ];
    const doc = {
      scalars,
      keys: Object.fromEntries(['a10', 'a9', 'A', '$x', 'x-y', '1', 'yes', 'b c', 'a:b', ''].map((k, i) => [k, i])),
      numbers: [0, 1, -1, 2.5, 1e21, 5e20, 1e-7, 0.0001, 1234567.5, 123456.5, 2 ** 60, 9007199254740991, 0.1, -3.25e-9],
      flags: [true, false, null],
      nested: [[['deep']], [{}], [[]], { list: [{ a: 1, b: [] }] }],
      sentences: sentences(300),
      deep: { description: sentences(20), level: { level: { level: { description: sentences(5).join(' ') } } } },
    };
    expect(await toYaml([doc, { second: 'document' }])).toBe(goYaml([doc, { second: 'document' }]));
  });

  // Known differences, kept visible: this test passes while they differ and fails once they agree.
  // - a string starting with a line break: yaml.v2 writes `|2-`, the yaml package `|-` and a blank line;
  // - a long plain string folded where several spaces meet: the continuation's indentation differs;
  it.fails('known divergences still differ (leading line break; folding at runs of spaces)', async () => {
    const doc = { a: '\nstarts', b: `${'word  '.repeat(20)}end` };
    expect(await toYaml([doc])).toBe(goYaml([doc]));
  });

  it('writes a CRD-shaped document with long descriptions in lists and maps as controller-gen does', async () => {
    const prop = (d: string): object => ({ description: d, type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')", message: d }] });
    const texts = sentences(40);
    const doc = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      spec: { versions: [{ schema: { openAPIV3Schema: { properties: Object.fromEntries(texts.map((t, i) => [`field${i}`, prop(t)])) } } }] },
    };
    expect(await toYaml([doc])).toBe(goYaml([doc]));
  });
});

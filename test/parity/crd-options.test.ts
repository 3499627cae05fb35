// controller-gen's crd options (`crd:maxDescLen=<n>`, `generateEmbeddedObjectMeta=true`, `crdVersions=v1`, and the ones that mean nothing for
// TypeScript) given to opgen as controller-gen users write them, compared with controller-gen live.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesIn, readManifests, runControllerGen, runOpgen, warmUp } from './harness.js';

beforeAll(() => warmUp(), 600_000);

// basics: long multi-sentence descriptions; validation: descriptions on types, fields and items.
describe.each([
  ['basics', 'maxDescLen=0'],
  ['basics', 'maxDescLen=12'],
  ['basics', 'maxDescLen=60'],
  ['validation', 'maxDescLen=25,crdVersions=v1'],
  ['validation', 'crdVersions=v1,allowDangerousTypes=true,ignoreUnexportedFields=true'],
  // basics embeds an ObjectMeta (templateMeta) below the root
  ['basics', 'generateEmbeddedObjectMeta=true'],
  ['basics', 'generateEmbeddedObjectMeta=true,maxDescLen=30'],
])('%s with crd:%s', (fixture, options) => {
  it('equals controller-gen output once parsed', async () => {
    const [cg, opgen] = await Promise.all([runControllerGen(fixture, ['crd'], options), runOpgen(fixture, `crd:${options}`)]);
    expect(cg.code, cg.stderr).toBe(0);
    expect(opgen.code, opgen.stderr).toBe(0);
    const files = filesIn(join(cg.dir, 'crd'));
    expect(files.length).toBeGreaterThan(0);
    expect(filesIn(join(opgen.dir, 'crd'))).toEqual(files);
    for (const f of files) expect(readManifests(join(opgen.dir, 'crd', f)), f).toEqual(readManifests(join(cg.dir, 'crd', f)));
  });
});

describe('bad crd options', () => {
  it.each([
    ['maxDescLen=-1', 'crd:maxDescLen=-1: error: maxDescLen=-1 is not a whole number (write e.g. crd:maxDescLen=0 (drop descriptions) or crd:maxDescLen=200)'],
    ['crdVersions=v1beta1', 'crd:crdVersions=v1beta1: error: crdVersions=v1beta1: only v1 CRDs exist (write crd:crdVersions=v1 or leave it out)'],
    ['maxDescLength=3', 'crd:maxDescLength=3: error: unknown crd option "maxDescLength" (use maxDescLen=<n>, generateEmbeddedObjectMeta=true or crdVersions=v1 (allowDangerousTypes and ignoreUnexportedFields are accepted and have no effect))'],
  ])('%s is one line naming the option', async (options, line) => {
    const opgen = await runOpgen('basics', `crd:${options}`);
    expect(opgen.code).toBe(1);
    expect(opgen.stderr.trim()).toBe(line);
    expect(filesIn(join(opgen.dir, 'crd'))).toEqual([]);
  });
});

// PROJECT's minKubeVersion is the one setting for the oldest Kubernetes supported: the base CSV takes it
// (and keeps its own only when PROJECT says nothing); generate checks CEL rules against the same value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ProjectConfig } from '../project/index.js';
import { Tree } from '../scaffold/index.js';
import { baseCsvPath, stageKustomizeManifests } from './base-csv.js';

const cwd = mkdtempSync(join(tmpdir(), 'opgen-min-kube-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const project = (minKubeVersion?: string): ProjectConfig => ({
  version: '3',
  layout: ['ts.opgen.dev/v1'],
  domain: 'example.com',
  projectName: 'demo',
  resources: [],
  ...(minKubeVersion ? { minKubeVersion } : {}),
});

async function csvMinKube(tree: Tree, p: ProjectConfig): Promise<unknown> {
  await stageKustomizeManifests(tree, { cwd, project: p, package: 'demo' });
  return (parse(tree.read(baseCsvPath('demo'))!) as { spec: { minKubeVersion?: unknown } }).spec.minKubeVersion;
}

describe('the base CSV minKubeVersion', () => {
  it('is PROJECT minKubeVersion, on the first run and after it (PROJECT wins over the CSV)', async () => {
    const tree = new Tree(cwd);
    expect(await csvMinKube(tree, project('1.31.0'))).toBe('1.31.0');
    expect(await csvMinKube(tree, project('1.33'))).toBe('1.33');
  });

  it('is the default 1.28.0 without it, and the CSV keeps a value of its own then', async () => {
    const tree = new Tree(cwd);
    expect(await csvMinKube(tree, project())).toBe('1.28.0');
    tree.write(baseCsvPath('demo'), tree.read(baseCsvPath('demo'))!.replace('minKubeVersion: 1.28.0', 'minKubeVersion: 1.30.0'));
    expect(await csvMinKube(tree, project())).toBe('1.30.0');
  });
});

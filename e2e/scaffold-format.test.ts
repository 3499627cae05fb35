// A fresh scaffold passes the `prettier --check` it ships (package.json's format script, .prettierrc.json,
// .prettierignore): init, create api, create webhook --defaulting --programmatic-validation, a second
// version with a conversion webhook, checked by the
// prettier version the scaffold's package.json asks for, installed from npm into a temporary folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgenOk } from '../src/testdata/cli.js';

describe('a fresh scaffold', () => {
  let work: string;
  let project: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-e2e-format-'));
    project = join(work, 'memcached-operator');
    mkdirSync(project);
    await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    await opgenOk(project, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation');
    // A conversion webhook: the hub's and the spoke's round-trip tests.
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached');
    await opgenOk(project, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--conversion', '--spoke', 'v1beta1');
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('passes prettier --check as its package.json pins it', async () => {
    const range = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.prettier;
    expect(range).toBeTruthy();
    const tools = join(work, 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'package.json'), '{"private":true}\n');
    await execa('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', `prettier@${range}`], { cwd: tools });
    const r = await execa(join(tools, 'node_modules/.bin/prettier'), ['--check', '.'], { cwd: project, reject: false, all: true });
    expect(r.exitCode, String(r.all)).toBe(0);
  }, 180_000);
});

// A fresh scaffold passes the `prettier --check` it ships (package.json's format script, .prettierrc.json,
// .prettierignore), checked by the prettier version the scaffold's package.json asks for, installed from npm
// into a temporary folder:
// - init, create api, create webhook --defaulting --programmatic-validation, a second version with a
//   conversion webhook;
// - kinds of every name length a kind can have (2 to 62 characters: its plural is a DNS label of at most
//   63), in a 63-character group, namespaced and cluster-scoped, a second controller, a built-in kind's
//   controller and webhooks: the templates pick prettier's layout for each name (the `fits` helper);
// - defaulting, validation and conversion webhooks (hub and spoke) for every kind name length, with either
//   certificate provider, in a 63-character group and a short one.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgenOk } from '../src/testdata/cli.js';

let work: string;
let prettier: string | undefined;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'opgen-e2e-format-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `prettier --check .` in the project, with the prettier its package.json pins (installed once). */
async function prettierCheck(project: string): Promise<{ exitCode: number; output: string }> {
  if (!prettier) {
    const range = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.prettier;
    expect(range).toBeTruthy();
    const tools = join(work, 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'package.json'), '{"private":true}\n');
    await execa('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', `prettier@${range}`], { cwd: tools });
    prettier = join(tools, 'node_modules/.bin/prettier');
  }
  const r = await execa(prettier, ['--check', '.'], { cwd: project, reject: false, all: true });
  return { exitCode: r.exitCode ?? 1, output: String(r.all) };
}

async function newProject(name: string): Promise<string> {
  const project = join(work, name);
  mkdirSync(project);
  await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
  return project;
}

/** A PascalCase kind of n characters. */
const kindOf = (n: number): string => `K${'abcdefghij'.repeat(7).slice(0, n - 1)}`;

describe('a fresh scaffold', () => {
  let project: string;
  beforeAll(async () => {
    project = await newProject('memcached-operator');
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    await opgenOk(project, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation');
    // A conversion webhook: the hub's and the spoke's round-trip tests.
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached');
    await opgenOk(project, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--conversion', '--spoke', 'v1beta1');
  }, 120_000);

  it('passes prettier --check as its package.json pins it', async () => {
    const r = await prettierCheck(project);
    expect(r.exitCode, r.output).toBe(0);
  }, 180_000);
});

describe('a fresh scaffold with kind names of every length', () => {
  let project: string;
  const group = 'g'.repeat(63);
  beforeAll(async () => {
    project = await newProject('lengths-operator');
    for (let n = 2; n <= 62; n++) await opgenOk(project, 'create', 'api', '--group', group, '--version', 'v1', '--kind', kindOf(n));
    await opgenOk(project, 'create', 'api', '--group', group, '--version', 'v1', '--kind', `Cluster${kindOf(55)}`, '--namespaced=false');
    await opgenOk(project, 'create', 'api', '--group', group, '--version', 'v1', '--kind', kindOf(62), '--resource=false', '--controller-name', 'second-controller-of-the-longest-kind');
    await opgenOk(project, 'create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false');
    for (const n of [2, 9]) {
      await opgenOk(project, 'create', 'webhook', '--group', group, '--version', 'v1', '--kind', kindOf(n), '--defaulting', '--programmatic-validation');
    }
    // Built-in kinds' webhooks import the kind from @opgen/runtime (a longer import line).
    await opgenOk(project, 'create', 'webhook', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--defaulting', '--programmatic-validation');
    await opgenOk(project, 'create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Pod', '--defaulting', '--programmatic-validation');
    // Built-in kinds the runtime has no type for declare the kind in the webhook file: a line as long as the
    // group and kind make it (prettier hugs the options object, then also breaks groupVersion's arguments).
    await opgenOk(project, 'create', 'webhook', '--group', 'storage', '--version', 'v1', '--kind', 'CSIDriver', '--defaulting', '--programmatic-validation');
    await opgenOk(project, 'create', 'webhook', '--group', 'policy', '--version', 'v1', '--kind', 'PodDisruptionBudget', '--programmatic-validation');
    await opgenOk(project, 'create', 'webhook', '--group', 'admissionregistration', '--version', 'v1beta1', '--kind', 'ValidatingAdmissionPolicyBinding', '--programmatic-validation');
  }, 300_000);

  it('passes prettier --check for every name length, cluster-scoped, second and built-in controllers, short and built-in kinds\' webhooks', async () => {
    const r = await prettierCheck(project);
    expect(r.exitCode, r.output).toBe(0);
  }, 180_000);
});

// Webhooks of every kind name length: defaulting + validation, and conversion with a second version (hub
// and spoke files), for both certificate providers, in a 63-character group (the longest paths) and a short one.
describe.each([
  { provider: 'cert-manager', group: 'g'.repeat(63) },
  { provider: 'self', group: 'g'.repeat(63) },
  { provider: 'cert-manager', group: 'cache' },
  { provider: 'self', group: 'cache' },
])('webhooks for kind names of every length ($provider, $group.length-character group)', ({ provider, group }) => {
  let project: string;
  beforeAll(async () => {
    project = await newProject(`webhooks-${provider}-${group.length}-operator`);
    for (let n = 2; n <= 62; n++) {
      const kind = kindOf(n);
      await opgenOk(project, 'create', 'api', '--group', group, '--version', 'v1', '--kind', kind, '--controller=false');
      await opgenOk(project, 'create', 'api', '--group', group, '--version', 'v2', '--kind', kind, '--controller=false');
      const webhook = ['create', 'webhook', '--group', group, '--version', 'v1', '--kind', kind, '--cert-provider', provider];
      await opgenOk(project, ...webhook, '--defaulting', '--programmatic-validation');
      await opgenOk(project, ...webhook, '--conversion', '--spoke', 'v2');
    }
  }, 600_000);

  it('passes prettier --check: defaulter, validator, conversion hub and spoke files and their tests', async () => {
    const r = await prettierCheck(project);
    const flagged = [...r.output.matchAll(/^\[warn\] (\S+\.\w+)$/gm)].map((m) => m[1]!);
    // src/main.ts included: with --cert-provider self, create webhook rewrites its runtime import.
    expect(flagged, r.output).toEqual([]);
    expect(r.exitCode === 0 || flagged.length > 0, r.output).toBe(true);
  }, 300_000);
});

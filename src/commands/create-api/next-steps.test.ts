// Every `$ ` line a command prints as the next step is run exactly as printed, on a fresh project, and
// must succeed: init → create api → generate, then a second version of a kind that has a controller →
// generate → create webhook --conversion → generate. `npx opgen …` runs opgen in-process; `npm run <s>`
// runs the project's package.json script <s>, which must itself be an opgen command.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { opgen, type CliResult } from '../../testdata/cli.js';
import { snapshot, tempDir } from '../../testdata/files.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-next-', 'backup-operator')));
afterEach(() => cleanup());

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');

/** The `$ ` lines of a command's output, in order. */
const hints = (r: CliResult): string[] => r.stdout.split('\n').filter((l) => l.startsWith('$ ')).map((l) => l.slice(2));

/** Runs one printed command line as a user would paste it; returns its result (exit code checked by the caller). */
async function runLine(line: string): Promise<CliResult> {
  const words = line.split(' ');
  if (words[0] === 'npx' && words[1] === 'opgen') return opgen(dir, ...words.slice(2));
  if (words[0] === 'npm' && words[1] === 'run' && words.length === 3) {
    const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts[words[2]!];
    expect(script, `package.json has no script ${words[2]}`).toMatch(/^opgen /);
    return opgen(dir, ...script!.split(' ').slice(1));
  }
  throw new Error(`a printed next step this test cannot run: ${line}`);
}

/** Runs a command, then every next step it prints (and theirs), each of which must exit 0. */
async function follow(argv: string[], seen: string[] = []): Promise<CliResult> {
  const r = await opgen(dir, ...argv);
  expect(r.code, `opgen ${argv.join(' ')}: ${r.stderr}`).toBe(0);
  for (const line of hints(r)) {
    seen.push(line);
    const next = await runLine(line);
    expect(next.code, `${line} (printed by opgen ${argv.join(' ')}): ${next.stderr}`).toBe(0);
    for (const further of hints(next)) {
      seen.push(further);
      const again = await runLine(further);
      expect(again.code, `${further} (printed by ${line}): ${again.stderr}`).toBe(0);
    }
  }
  return r;
}

interface Crd { spec: { versions: { name: string; storage: boolean; served: boolean }[] } }
const crdVersions = (): string[] =>
  (parse(read('config/crd/bases/ops.example.com_backups.yaml')) as Crd).spec.versions.map((v) => `${v.name}:${v.storage ? 'storage' : 'served'}`);

describe('printed next steps work as printed', () => {
  it('init and create api: their hints run and generate succeeds', async () => {
    const seen: string[] = [];
    await follow(['init', '--domain', 'example.com', '--skip-install'], seen);
    expect(seen).toEqual(['npx opgen create api --group cache --version v1alpha1 --kind Memcached', 'npm run manifests']);
    expect(read('config/crd/bases/cache.example.com_memcacheds.yaml')).toContain('kind: Memcached');
  });

  it('a second version of a kind with a controller: resource only, v1alpha1 stays stored, every hint succeeds, v1 ends up the hub', async () => {
    expect((await opgen(dir, 'init', '--domain', 'example.com', '--skip-install')).code).toBe(0);
    await follow(['create', 'api', '--group', 'ops', '--version', 'v1alpha1', '--kind', 'Backup']);
    const before = snapshot(dir);

    const seen: string[] = [];
    const r = await opgen(dir, 'create', 'api', '--group', 'ops', '--version', 'v1', '--kind', 'Backup');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => !/^(CREATE|UPDATE) /.test(l))).toEqual([
      'Backup already has a controller (src/controller/backup-controller.ts, reconciling ops/v1alpha1): created the v1 resource only.',
      'v1alpha1 stays the storage version (+kubebuilder:storageversion on Backup in src/api/v1alpha1/backup-types.ts) until you move it; the CRD now serves v1alpha1 and v1.',
      'Next: fill in the v1 types and generate the manifests (CRDs, RBAC) with:',
      '$ npm run manifests',
      'When v1 is ready, make it the hub and storage version, converting v1alpha1 through it, with:',
      '$ npx opgen create webhook --group ops --version v1 --kind Backup --conversion --spoke v1alpha1',
      "then move the controller to the hub: import Backup from '../api/v1/backup-types.js' in src/controller/backup-controller.ts and its test.",
      'The whole migration, stored objects included: docs/versions.md',
      '',
    ]);
    // The controller, its test, main.ts and the v1alpha1 sample are untouched; v1alpha1's types gain the marker only.
    const after = snapshot(dir);
    for (const f of ['src/controller/backup-controller.ts', 'src/controller/backup-controller.test.ts', 'src/main.ts', 'config/samples/ops_v1alpha1_backup.yaml']) expect(after[f], f).toBe(before[f]);
    expect(after['src/api/v1alpha1/backup-types.ts']).toBe(before['src/api/v1alpha1/backup-types.ts']!.replace(' */\nexport interface Backup {', ' * +kubebuilder:storageversion\n */\nexport interface Backup {'));
    expect(Object.keys(after).filter((f) => !(f in before)).sort()).toEqual(['config/samples/ops_v1_backup.yaml', 'src/api/v1/backup-types.ts', 'src/api/v1/groupversion-info.ts']);

    // Followed in order: generate (v1alpha1 stored), create webhook --conversion, generate (v1 stored).
    const first = await runLine(hints(r)[0]!);
    expect(first.code, first.stderr).toBe(0);
    seen.push(hints(r)[0]!);
    expect(crdVersions()).toEqual(['v1:served', 'v1alpha1:storage']);
    const webhook = await runLine(hints(r)[1]!);
    expect(webhook.code, webhook.stderr).toBe(0);
    for (const line of hints(webhook)) {
      const next = await runLine(line);
      expect(next.code, `${line}: ${next.stderr}`).toBe(0);
    }
    expect(crdVersions()).toEqual(['v1:storage', 'v1alpha1:served']);
    expect(read('src/api/v1alpha1/backup-types.ts')).not.toContain('storageversion');
    expect(read('src/api/v1/backup-types.ts').split('+kubebuilder:storageversion')).toHaveLength(2);

    // docs/versions.md step 4, as written there: the deprecation marker on v1alpha1's Backup.
    const docs = readFileSync(new URL('../../../docs/versions.md', import.meta.url), 'utf8');
    const marker = /\n( \* \+kubebuilder:deprecatedversion:warning=.*)\n/.exec(docs)![1]!;
    const types = read('src/api/v1alpha1/backup-types.ts');
    writeFileSync(join(dir, 'src/api/v1alpha1/backup-types.ts'), types.replace(' */\nexport interface Backup {', `${marker}\n */\nexport interface Backup {`));
    expect((await opgen(dir, 'generate')).code).toBe(0);
    const v1alpha1 = (parse(read('config/crd/bases/ops.example.com_backups.yaml')) as { spec: { versions: Record<string, unknown>[] } }).spec.versions.find((v) => v.name === 'v1alpha1');
    expect(v1alpha1).toMatchObject({ deprecated: true, deprecationWarning: 'ops.example.com/v1alpha1 Backup is deprecated; use ops.example.com/v1', served: true, storage: false });
  });

  it('an older version added beside a newer one: the newer stays the hub, and that hint works too', async () => {
    expect((await opgen(dir, 'init', '--domain', 'example.com', '--skip-install')).code).toBe(0);
    await follow(['create', 'api', '--group', 'ops', '--version', 'v1', '--kind', 'Backup']);
    const r = await follow(['create', 'api', '--group', 'ops', '--version', 'v1beta1', '--kind', 'Backup']);
    expect(hints(r)).toEqual(['npm run manifests', 'npx opgen create webhook --group ops --version v1 --kind Backup --conversion --spoke v1beta1']);
    expect(r.stdout).not.toContain('move the controller');
    expect(crdVersions()).toEqual(['v1:storage', 'v1beta1:served']);
  });

  it('a second version with --controller=false, of a kind without a controller anywhere: same storage rule, no controller line', async () => {
    expect((await opgen(dir, 'init', '--domain', 'example.com', '--skip-install')).code).toBe(0);
    await follow(['create', 'api', '--group', 'ops', '--version', 'v1alpha1', '--kind', 'Backup', '--controller=false']);
    const r = await follow(['create', 'api', '--group', 'ops', '--version', 'v1', '--kind', 'Backup', '--controller=false']);
    expect(r.stdout).not.toContain('already has a controller');
    expect(r.stdout).not.toContain('move the controller');
    expect(r.stdout).toContain('v1alpha1 stays the storage version');
    expect(crdVersions()).toEqual(['v1:storage', 'v1alpha1:served']);
  });
});

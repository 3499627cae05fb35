// `opgen update` on a project the previous release (b23796b) scaffolded: that opgen's packed tarball is
// the --from, so update installs it with npm and replays PROJECT with it (the base: opgen 0.1.0) and with this opgen
// (theirs). Between the two releases the leader-election Role lost configmaps, the manager's grace period
// went from 10 to 40 s and package.json lost @kubernetes/client-node: those must arrive, and the user's
// edits (controller, types, config, a package.json script) must stay; an edit on the grace period line
// itself is a conflict, written as git's markers and listed.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgen, opgenOk } from '../src/testdata/cli.js';
import { snapshot } from '../src/testdata/files.js';
import { opgenVersion } from '../src/common/version.js';
import { packPackages } from './helpers.js';
import { PREVIOUS, previousRelease } from './previous-release.js';

const STEP = 600_000;

describe(`opgen update: a project scaffolded by ${PREVIOUS}`, () => {
  let work: string;
  let pristine: string;
  let tarball: string;
  let fresh: string;

  const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');
  const edit = (dir: string, path: string, change: (text: string) => string) => {
    const before = read(dir, path);
    const after = change(before);
    expect(after, path).not.toBe(before);
    writeFileSync(join(dir, path), after);
  };
  const copy = (name: string) => {
    const dir = join(work, name, 'memcached-operator');
    cpSync(pristine, dir, { recursive: true });
    return dir;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-e2e-update-'));
    // opgen's tarball with its @opgen/runtime's (not on the registry), as --from takes them.
    const previous = await previousRelease();
    tarball = `${previous.opgen},${previous.runtime}`;
    // The previous opgen's CLI, installed as a user would have it.
    const cli = join(work, 'old-cli');
    mkdirSync(cli);
    writeFileSync(join(cli, 'package.json'), '{"private":true}\n');
    await execa('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', previous.opgen, previous.runtime], { cwd: cli });
    const old = (dir: string, ...argv: string[]) => execa(process.execPath, [join(cli, 'node_modules/opgen/bin/opgen.js'), ...argv], { cwd: dir });
    pristine = join(work, 'pristine', 'memcached-operator');
    mkdirSync(pristine, { recursive: true });
    await old(pristine, 'init', '--domain', 'example.com', '--skip-install');
    await old(pristine, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    expect(read(pristine, 'config/manager/manager.yaml')).toContain('terminationGracePeriodSeconds: 10');
    expect(read(pristine, 'config/rbac/leader_election_role.yaml')).toContain('configmaps');
    // The same project scaffolded by this opgen.
    fresh = join(work, 'fresh', 'memcached-operator');
    mkdirSync(fresh, { recursive: true });
    await opgenOk(fresh, 'init', '--domain', 'example.com', '--skip-install');
    await opgenOk(fresh, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
  }, STEP);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("keeps the user's edits, brings the new scaffold's changes, bumps cliVersion; --dry-run writes nothing", async () => {
    const p = copy('edited');
    const controller = 'src/controller/memcached-controller.ts';
    const types = 'src/api/v1alpha1/memcached-types.ts';
    edit(p, controller, (t) => `${t}\nexport const userReconcileNote = 'kept';\n`);
    edit(p, types, (t) => t.replace(/(export interface MemcachedSpec \{\n)/, '$1  /** The user\'s field. */\n  size?: number;\n'));
    edit(p, 'config/manager/manager.yaml', (t) => t.replace('replicas: 1', 'replicas: 2'));
    edit(p, 'package.json', (t) => t.replace('"scripts": {\n', '"scripts": {\n    "user:hello": "echo hello",\n'));

    // The previous release was 0.1.0; this one is another version, which the update records.
    expect(read(p, 'PROJECT')).toMatch(/^cliVersion: 0\.1\.0$/m);
    expect(opgenVersion()).not.toBe('0.1.0');

    const before = snapshot(p);
    const dry = await opgen(p, 'update', '--from', tarball, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('UPDATE config/rbac/leader_election_role.yaml');
    expect(dry.stdout).toContain('UPDATE config/manager/manager.yaml');
    expect(dry.stdout).toContain('CREATE .github/workflows/opgen-update.yml');
    expect(dry.stdout).not.toContain('CONFLICT');
    expect(snapshot(p)).toEqual(before);

    const r = await opgen(p, 'update', '--from', tarball);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('CONFLICT');
    // The user's edits.
    expect(read(p, controller)).toContain("export const userReconcileNote = 'kept';");
    expect(read(p, types)).toContain('  size?: number;');
    const manager = read(p, 'config/manager/manager.yaml');
    expect(manager).toContain('replicas: 2');
    const pkg = JSON.parse(read(p, 'package.json')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.scripts['user:hello']).toBe('echo hello');
    // The new scaffold's changes.
    expect(manager).toContain('terminationGracePeriodSeconds: 40');
    expect(manager).not.toContain('terminationGracePeriodSeconds: 10');
    expect(read(p, 'config/rbac/leader_election_role.yaml')).not.toContain('configmaps');
    expect(read(p, types)).toContain('+kubebuilder:printcolumn:name="Ready"');
    expect(pkg.devDependencies['@kubernetes/client-node']).toBeUndefined();
    expect(read(p, 'PROJECT')).toContain(`cliVersion: ${opgenVersion()}`);
    // Nothing else of the user's changed: apart from the merged files, the tree is as it was.
    const after = snapshot(p);
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]).sort();
    // Only files the templates changed between the releases (PROJECT aside) were touched.
    const pristineFiles = snapshot(pristine);
    const freshFiles = snapshot(fresh);
    const templatesChanged = Object.keys(freshFiles).filter((k) => freshFiles[k] !== pristineFiles[k]);
    expect(templatesChanged).toEqual(expect.arrayContaining(['.github/workflows/opgen-update.yml', 'config/manager/manager.yaml', 'config/rbac/leader_election_role.yaml', 'package.json', types]));
    for (const k of changed) if (k !== 'PROJECT') expect(templatesChanged, k).toContain(k);
    expect(changed).toContain('PROJECT');
  }, STEP);

  it("after `npm install` of this opgen's packed tarballs: package.json stays JSON npm reads, your versions win, a script you both changed goes to package.json.opgen-theirs", async () => {
    const p = copy('installed');
    // The steps: the new release installed as dev dependencies (both tarballs: @opgen/runtime
    // 0.2.0 is not on the registry), a script of the scaffold's edited.
    const tarballs = await packPackages(join(work, 'installed'));
    edit(p, 'package.json', (t) => t.replace('"start": "exec node dist/main.js"', '"start": "exec node --inspect dist/main.js"'));
    const install = await execa('npm', ['install', '--save-dev', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', tarballs.opgen, tarballs.runtime], { cwd: p, reject: false, all: true });
    expect(install.exitCode, install.all).toBe(0);
    const installed = JSON.parse(read(p, 'package.json')) as Record<string, Record<string, string>>;
    const [opgenSpec, runtimeSpec] = [installed.devDependencies!.opgen, installed.devDependencies!['@opgen/runtime']];
    expect(opgenSpec).toMatch(/^file:.*opgen-\d.*\.tgz$/);

    const r = await opgen(p, 'update', '--from', tarball);
    expect(r.code, r.stderr).toBe(0);
    // One line per file.
    const lines = r.stdout.trim().split('\n').filter((l) => /^[A-Z]+ /.test(l));
    const files = lines.map((l) => l.split(' ')[1]);
    expect(files.length, r.stdout).toBe(new Set(files).size);
    expect(lines).toContain("CONFLICT package.json (1 conflict: scripts.start: both changed; yours kept, the new scaffold's file is package.json.opgen-theirs: take what you need from it, then delete it)");
    const text = read(p, 'package.json');
    expect(text).not.toContain('<<<<<<<');
    const pkg = JSON.parse(text) as Record<string, Record<string, string>>;
    // The versions npm installed win; nothing is put back beside them.
    expect(pkg.devDependencies!.opgen).toBe(opgenSpec);
    expect(pkg.devDependencies!['@opgen/runtime']).toBe(runtimeSpec);
    expect(pkg.dependencies?.['@opgen/runtime']).toBeUndefined();
    // The new scaffold's change the user did not touch arrives; the conflicting one stays the user's.
    expect(pkg.devDependencies!['@kubernetes/client-node']).toBeUndefined();
    expect(pkg.scripts!.start).toBe('exec node --inspect dist/main.js');
    expect((JSON.parse(read(p, 'package.json.opgen-theirs')) as typeof pkg).scripts!.start).toBe('exec node --enable-source-maps dist/main.js');
    // npm reads it: every npm command works.
    const npm = await execa('npm', ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: p, reject: false, all: true });
    expect(npm.exitCode, npm.all).toBe(0);
  }, STEP);

  it('an edit on a line the new scaffold changed: a conflict with both sides, listed; the rest merged', async () => {
    const p = copy('conflict');
    edit(p, 'config/manager/manager.yaml', (t) => t.replace('terminationGracePeriodSeconds: 10', 'terminationGracePeriodSeconds: 20'));
    const r = await opgen(p, 'update', '--from', tarball);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('CONFLICT config/manager/manager.yaml (1 conflict: resolve the <<<<<<< ======= >>>>>>> markers)');
    const manager = read(p, 'config/manager/manager.yaml');
    expect(manager).toMatch(new RegExp(`<<<<<<< yours\\n\\s+terminationGracePeriodSeconds: 20\\n=======\\n[\\s\\S]*terminationGracePeriodSeconds: 40\\n>>>>>>> opgen ${opgenVersion().replaceAll('.', '\\.')} scaffold\\n`));
    expect(read(p, 'config/rbac/leader_election_role.yaml')).not.toContain('configmaps');
  }, STEP);

  it('an unedited project becomes exactly what this opgen scaffolds', async () => {
    const p = copy('unedited');
    const r = await opgen(p, 'update', '--from', tarball);
    expect(r.code, r.stderr).toBe(0);
    expect(snapshot(p)).toEqual(snapshot(fresh));
  }, STEP);

  it('a project this opgen scaffolded (or updated) is up to date without --from: no npm, nothing written', async () => {
    const p = copy('current');
    await opgenOk(p, 'update', '--from', tarball);
    expect(read(p, 'PROJECT')).toContain(`cliVersion: ${opgenVersion()}`);
    const before = snapshot(p);
    const r = await opgen(p, 'update');
    expect(r).toMatchObject({ code: 0, stdout: `PROJECT's cliVersion is ${opgenVersion()}, this opgen's: the scaffold is up to date (pass --from <older opgen> to merge from another)\n` });
    expect(snapshot(p)).toEqual(before);
  }, STEP);

  it('refuses a --from npm cannot install, in one line, writing nothing', async () => {
    const p = copy('refused');
    const before = snapshot(p);
    const r = await opgen(p, 'update', '--from', './no-such-opgen.tgz');
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^--from: error: .*no-such-opgen\.tgz does not exist \(name an opgen tarball/);
    expect(snapshot(p)).toEqual(before);
  });
});

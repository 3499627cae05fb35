// `opgen edit --cert-provider`: a project moved to the other provider builds (`kubectl kustomize
// config/default`) to exactly what a project created with that provider builds, there and back, with the
// same src/main.ts; the switch to self prints the kubectl command that deletes the deployed Certificate
// and Issuer, and the chart generated again has no templates/cert-manager folder; a bad value is one
// line with nothing written.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opgen as opgenIn, type CliResult } from '../../testdata/cli.js';
import { snapshot, tempDir } from '../../testdata/files.js';

const dirs: { dir: string; cleanup: () => void }[] = [];
beforeEach(() => void dirs.push(tempDir('opgen-edit-cert-', 'demo'), tempDir('opgen-edit-cert-', 'demo')));
afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

async function ok(dir: string, ...argv: string[]): Promise<CliResult> {
  const r = await opgenIn(dir, ...argv);
  expect(r.code, `opgen ${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/** init, two Memcached versions, all three webhooks with `flags`, generate. */
async function project(dir: string, ...flags: string[]): Promise<void> {
  await ok(dir, 'init', '--domain', 'example.com', '--skip-install');
  await ok(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
  await ok(dir, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--controller=false');
  await ok(dir, 'create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1', ...flags);
  await ok(dir, 'generate');
}

async function build(dir: string): Promise<string> {
  const r = await execa('kubectl', ['kustomize', 'config/default'], { cwd: dir, reject: false });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return String(r.stdout);
}

const main = (dir: string) => readFileSync(join(dir, 'src/main.ts'), 'utf8');

describe('opgen edit --cert-provider', () => {
  it('cert-manager → self → cert-manager builds what create webhook --cert-provider builds', async () => {
    const [switched, created] = dirs.map((d) => d.dir) as [string, string];
    await project(switched);
    await project(created, '--cert-provider', 'self');
    const certManagerBuild = await build(switched);
    expect(certManagerBuild).toContain('cert-manager.io/inject-ca-from');
    await ok(switched, 'generate', 'helm');
    expect(existsSync(join(switched, 'dist/chart/templates/cert-manager'))).toBe(true);

    const r = await ok(switched, 'edit', '--cert-provider', 'self');
    expect(r.stdout).toContain('webhooks now get their certificate from the manager');
    // The command it prints deletes what config/default deployed: the names kustomize gave them.
    const deployed = parseAllDocuments(certManagerBuild).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace: string }; spec?: { secretName?: string } });
    const cert = deployed.find((o) => o.kind === 'Certificate' && o.spec?.secretName === 'webhook-server-cert')!;
    const issuer = deployed.find((o) => o.kind === 'Issuer')!;
    expect(r.stdout).toContain(`kubectl delete --ignore-not-found -n ${cert.metadata.namespace} certificates.cert-manager.io/${cert.metadata.name} issuers.cert-manager.io/${issuer.metadata.name}`);
    expect(issuer.metadata.namespace).toBe(cert.metadata.namespace);
    // The chart generated again has no cert-manager folder left, empty or not.
    await ok(switched, 'generate');
    await ok(switched, 'generate', 'helm');
    expect(existsSync(join(switched, 'dist/chart/templates/cert-manager'))).toBe(false);
    expect(await build(switched)).toBe(await build(created));
    expect(main(switched)).toBe(main(created));
    expect(readFileSync(join(switched, 'PROJECT'), 'utf8')).toMatch(/^certProvider: self$/m);

    await ok(switched, 'edit', '--cert-provider', 'cert-manager');
    expect(await build(switched)).toBe(certManagerBuild);
    expect(main(switched)).not.toContain('selfCertificate');
    expect(readFileSync(join(switched, 'PROJECT'), 'utf8')).not.toContain('certProvider');
  }, 240_000);

  it('a bad value is one line naming the flag and the allowed values, nothing written', async () => {
    const dir = dirs[0]!.dir;
    await ok(dir, 'init', '--domain', 'example.com', '--skip-install');
    const before = snapshot(dir);
    const r = await opgenIn(dir, 'edit', '--cert-provider', 'vault');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--cert-provider.*vault.*cert-manager, self/);
    expect(snapshot(dir)).toEqual(before);
  }, 120_000);
});

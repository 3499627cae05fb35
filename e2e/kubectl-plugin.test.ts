// The kubectl plugin as npm installs it: the packed package's bin/kubectl-opgen, found by the real
// kubectl's `plugin list` with PATH set to that bin folder, and run as `kubectl opgen …`.
import { execa } from 'execa';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackages, unpackCli } from './helpers.js';

let work: string;
let bin: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'opgen-plugin-'));
  const { opgen } = await packPackages(work);
  bin = dirname(await unpackCli(opgen, work));
  const kubectl = (await execa('which', ['kubectl'])).stdout.trim();
  // Only the package's bin, kubectl's folder and node's: nothing else on PATH could be the plugin.
  env = { ...process.env, PATH: [bin, dirname(kubectl), dirname(process.execPath)].join(delimiter) };
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('kubectl opgen', () => {
  it('is an executable bin of the package that kubectl plugin list finds', async () => {
    const pkg = JSON.parse(readFileSync(join(bin, '..', 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin['kubectl-opgen']).toBe('bin/kubectl-opgen');
    accessSync(join(bin, 'kubectl-opgen'), constants.X_OK);
    const list = await execa('kubectl', ['plugin', 'list'], { env, reject: false });
    expect(list.stdout).toContain(join(bin, 'kubectl-opgen'));
    expect(list.stderr).not.toMatch(/warning: .*kubectl-opgen/);
  });

  it('runs doctor, dev and debug through kubectl and refuses other commands in one line', async () => {
    const help = await execa('kubectl', ['opgen', '--help'], { env, reject: false, cwd: work });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/doctor .*\n.*dev .*\n.*debug .*127\.0\.0\.1/);
    const doctorHelp = await execa('kubectl', ['opgen', 'doctor', '--help'], { env, reject: false, cwd: work });
    expect(doctorHelp.stdout).toContain('--output <format>');
    // Outside a project doctor says so in one line.
    const doctor = await execa('kubectl', ['opgen', 'doctor'], { env, reject: false, cwd: work });
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stderr.trim()).toMatch(/^PROJECT: error: no PROJECT in .* \(run opgen doctor in an opgen project/);
    const other = await execa('kubectl', ['opgen', 'generate'], { env, reject: false, cwd: work });
    expect(other.exitCode).toBe(1);
    expect(other.stderr.trim()).toBe("kubectl opgen: error: unknown command 'generate' (use one of: doctor, dev, debug; the other opgen commands run as opgen <command>)");
  });
});

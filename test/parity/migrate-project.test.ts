// `opgen migrate project` on a kubebuilder project (test/parity/go/kbproject: PROJECT, a Go API, a Go
// reconciler, a sample): a new opgen project whose PROJECT lists the resource, whose CRD equals
// controller-gen's on the Go API, whose controller points at the Go reconciler, and which compiles.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgen } from '../../src/testdata/cli.js';
import { tscErrors } from '../../src/testdata/tsc.js';
import { controllerGen, goRoot, warmUp } from './harness.js';

warmUp();

const work = mkdtempSync(join(tmpdir(), 'opgen-migrate-project-'));
const out = join(work, 'cronjob-ts');
const crd = 'batch.parity.opgen.dev_cronjobs.yaml';
let migrate: { code: number; stdout: string; stderr: string };

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  migrate = await opgen(goRoot, 'migrate', 'project', 'kbproject', '--output', out);
}, 120_000);

const read = (path: string): string => readFileSync(join(out, path), 'utf8');

describe('opgen migrate project', () => {
  it('exits 0 and says what it did', () => {
    expect(migrate.stderr).toBe('');
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('1 resource (batch/v1 CronJob)');
    expect(migrate.stdout).toMatch(/CronJob: its controller points at internal\/controller\/cronjob_controller\.go:\d+/);
  });

  it('records the resource in PROJECT, as opgen create api does', () => {
    const project = read('PROJECT');
    expect(project).toContain('layout:\n- ts.opgen.dev/v1');
    expect(project).toMatch(/- api:\n {4}crdVersion: v1\n {4}namespaced: true\n {2}controller: true\n {2}domain: parity\.opgen\.dev\n {2}group: batch\n {2}kind: CronJob/);
  });

  it('puts the migrated API where create api puts types, the scaffolded module re-exporting it', () => {
    expect(read('src/api/v1/cronjob-types.ts')).toContain('export interface CronJob {');
    expect(read('src/api/v1/cron-job-types.ts')).toContain("export * from './cronjob-types.js';");
    expect(read('src/api/v1/groupversion-info.ts')).toContain("export const GroupVersion = groupVersion('batch.parity.opgen.dev', 'v1');");
  });

  it('points the controller at the Go reconciler and keeps the Go sample', () => {
    expect(read('src/controller/cron-job-controller.ts')).toMatch(/\/\/ TODO\(user\): port the Go reconciler this controller replaces, CronJobReconciler\.Reconcile at internal\/controller\/cronjob_controller\.go:11\n/);
    expect(read('config/samples/batch_v1_cronjob.yaml')).toContain('schedule: "*/1 * * * *"');
  });

  it("fills the controller test's object with the Go sample's spec", () => {
    expect(read('src/controller/cron-job-controller.test.ts')).toContain(
      '      // The spec of the kubebuilder project\'s sample, config/samples/batch_v1_cronjob.yaml.\n      spec: {\n        "schedule": "*/1 * * * *"\n      },\n',
    );
  });

  it("generates controller-gen's CRD for the Go API, byte for byte", async () => {
    const theirs = join(work, 'controller-gen');
    await promisify(execFile)(controllerGen(), ['crd', `output:crd:dir=${theirs}`, 'paths=./kbproject/api/v1'], { cwd: goRoot });
    const g = await opgen(out, 'generate', 'crd');
    expect(g.stderr).toBe('');
    const strip = (t: string): string => t.split('\n').filter((l) => !/^ {4}(controller-gen\.kubebuilder\.io|opgen\.dev)\/version: /.test(l)).join('\n');
    expect(strip(read(`config/crd/bases/${crd}`))).toBe(strip(readFileSync(join(theirs, crd), 'utf8')));
  }, 120_000);

  it('compiles with tsc against @opgen/runtime', () => {
    expect(existsSync(join(out, 'tsconfig.json'))).toBe(true);
    const output = tscErrors(join(work, 'tsconfig.check.json'), {
      extends: join(out, 'tsconfig.json'),
      include: [join(out, 'src', '**', '*.ts')],
      entries: ['envtest', 'kubernetes'],
      vitest: true,
    });
    expect(output).toBe('');
  }, 120_000);
});

describe('opgen migrate project refuses', () => {
  it('a folder without PROJECT, in one line, writing nothing', async () => {
    const r = await opgen(goRoot, 'migrate', 'project', 'migrate', '--output', join(work, 'none'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('migrate: error: migrate has no PROJECT file (pass the root folder of a kubebuilder project (where PROJECT is))\n');
    expect(existsSync(join(work, 'none'))).toBe(false);
  });

  it('an output folder that is not empty', async () => {
    const r = await opgen(goRoot, 'migrate', 'project', 'kbproject', '--output', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--output: error: .* is not an empty folder \(pass a new folder: migrate project writes a whole project\)\n$/);
  });
});

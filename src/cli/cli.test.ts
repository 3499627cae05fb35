import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpgenError } from '../diag/diagnostic.js';
import { opgen, type CliResult } from '../testdata/cli.js';
import { report, run } from './main.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

const cli = (...argv: string[]): Promise<CliResult> => opgen(tmpdir(), ...argv);

describe('opgen CLI (in-process)', () => {
  it('prints the version from package.json', async () => {
    expect(await cli('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect((await cli('-v')).stdout).toBe(`${version}\n`);
  });

  it('lists every command in --help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const c of ['init', 'create', 'edit', 'generate|manifests', 'markers']) expect(r.stdout).toContain(`  ${c} `);
  });

  it('shows per-command help with kubebuilder-style flags', async () => {
    const r = await cli('create', 'api', '--help');
    expect(r.code).toBe(0);
    for (const f of ['--group <group>', '--version <version>', '--kind <kind>', '--plural <plural>', '--namespaced', '--no-namespaced', '--resource', '--controller', '--force', '--dry-run']) {
      expect(r.stdout).toContain(f);
    }
    expect((await cli('generate', '--help')).stdout).toMatch(/--paths <dir\|glob>[\s\S]*--output-dir <dir>[\s\S]*--check[\s\S]*--dry-run/);
  });

  it.each([
    [['int'], "error: unknown command 'int' (did you mean init?)"],
    [['frobnicate'], "error: unknown command 'frobnicate' (see `opgen --help`)"],
    [['init', '--domian', 'x'], "error: unknown option '--domian' (did you mean --domain?)"],
    [['create', 'apy'], "error: unknown command 'apy' (did you mean api?)"],
    [['init', '--license', 'mit'], "error: option '--license <license>' argument 'mit' is invalid. Allowed choices are apache2, none."],
    [['init', '--skip-install=maybe'], "--skip-install: error: expects true or false, got 'maybe' (write --skip-install=true or --skip-install=false)"],
    [['generate', 'crds'], "generate: error: unknown target 'crds' (use one or more of: crd, rbac, webhook)"],
  ])('usage error %j: one line, exit 1', async (argv, line) => {
    expect(await cli(...argv)).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
  });
});

describe('--help after an unknown command', () => {
  it('exits 1 naming the unknown command (with a suggestion), at the top level and in a group', async () => {
    for (const [argv, pattern] of [
      [['frobnicate', '--help'], /^error: unknown command 'frobnicate'/],
      [['creat', '-h'], /^error: unknown command 'creat' \(did you mean create\?\)/i],
      [['create', 'apii', '--help'], /^error: unknown command 'apii'/],
    ] as const) {
      const r = await opgen(process.cwd(), ...argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    }
  });

  it('still shows help for known commands, and for a command whose words are its arguments', async () => {
    for (const argv of [['create', 'api', '--help'], ['generate', 'crd', '--help'], ['--help']]) {
      const r = await opgen(process.cwd(), ...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: opgen/);
    }
  });
});

describe('the error handler', () => {
  const capture = (err: unknown): { code: number; text: string } => {
    let text = '';
    const code = report(err, { stdout: () => {}, stderr: (s) => void (text += s) });
    return { code, text };
  };

  it('prints an OpgenError as its one formatted line', () => {
    expect(capture(new OpgenError('bad', { file: 'PROJECT', line: 3, column: 1 }, 'fix it'))).toEqual({ code: 1, text: 'PROJECT:3:1: error: bad (fix it)\n' });
  });

  it('prints anything else as "internal error" without a stack unless OPGEN_DEBUG=1', () => {
    const saved = process.env.OPGEN_DEBUG;
    try {
      delete process.env.OPGEN_DEBUG;
      const quiet = capture(new TypeError('cannot read x\nsecond line'));
      expect(quiet).toEqual({ code: 1, text: 'internal error: cannot read x (set OPGEN_DEBUG=1 for the stack trace)\n' });
      process.env.OPGEN_DEBUG = '1';
      expect(capture(new TypeError('boom')).text).toMatch(/^internal error: boom\nTypeError: boom\n\s+at /);
    } finally {
      if (saved === undefined) delete process.env.OPGEN_DEBUG;
      else process.env.OPGEN_DEBUG = saved;
    }
  });
});

// Startup cost: `--help` and `--version` must not load the heavy libraries. Runs the real bin/opgen.js on
// the compiled CLI with a module-resolution hook that records every module loaded.
describe('lazy loading (bin/opgen.js on dist/)', () => {
  let work: string;
  const heavy = /\/node_modules\/(ts-morph|@ts-morph\/common|typescript|handlebars|yaml)\//;

  beforeAll(() => {
    // `npm test` builds dist/ before vitest starts; compiling again here would rewrite files other test
    // workers are running from.
    if (!existsSync(join(root, 'dist/cli/main.js'))) throw new Error('dist/ is missing; run `npm run build` first');
    work = mkdtempSync(join(tmpdir(), 'opgen-lazy-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  function loadedModules(...argv: string[]): { code: number | null; modules: string[] } {
    const log = join(work, `load-${argv.join('_').replace(/\W/g, '')}.log`);
    writeFileSync(log, '');
    const r = spawnSync(process.execPath, ['--import', join(root, 'test/module-log/register.mjs'), join(root, 'bin/opgen.js'), ...argv], {
      cwd: work,
      env: { ...process.env, OPGEN_LOAD_LOG: log },
      encoding: 'utf8',
    });
    return { code: r.status, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  }

  it.each([['--help'], ['--version'], ['create', 'api', '--help'], ['generate', '--help']])('%s loads no ts-morph, TypeScript, handlebars or yaml', (...argv) => {
    const { code, modules } = loadedModules(...argv);
    expect(code).toBe(0);
    expect(modules.some((m) => m.endsWith('/dist/cli/main.js'))).toBe(true); // the hook saw the CLI load
    expect(modules.filter((m) => heavy.test(m))).toEqual([]);
  });

  it('a command that scaffolds does load them (the check above can fail)', () => {
    const { code, modules } = loadedModules('init', '--dry-run', '--skip-install', '--project-name', 'probe');
    expect(code).toBe(0);
    expect(modules.some((m) => /\/node_modules\/handlebars\//.test(m))).toBe(true);
  });
});

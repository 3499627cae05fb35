// `opgen migrate api` on bad input: one line naming the folder, file:line:col or flag and the fix, exit 1,
// and nothing written. (What a good migration writes is proven against controller-gen in
// test/parity/migrate.test.ts.)
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { opgen } from '../testdata/cli.js';
import { tempDir } from '../testdata/files.js';

/** A Go module with one package, `api/v1`, holding `source` (standard library only: no download). */
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanups) c();
});

function goModule(source: string): string {
  const { dir, cleanup } = tempDir('opgen-migrate-');
  cleanups.push(cleanup);
  writeFileSync(join(dir, 'go.mod'), 'module example.com/widgets\n\ngo 1.22\n');
  mkdirSync(join(dir, 'api', 'v1'), { recursive: true });
  writeFileSync(join(dir, 'api', 'v1', 'types.go'), source);
  return dir;
}

const API = `// +groupName=widgets.example.com
package v1

// WidgetSpec is what a widget should be.
type WidgetSpec struct {
	// Size of the widget.
	// +kubebuilder:validation:Minimum=1
	Size int32 \`json:"size"\`
}
`;

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

describe('Go package patterns', () => {
  it('./api/... migrates every package below, shared ones without +groupName too', async () => {
    const dir = goModule(API.replace('type WidgetSpec struct {', 'type WidgetSpec struct {\n\t// +optional\n\tLimits shared.Limits `json:"limits,omitempty"`\n').replace('package v1\n', 'package v1\n\nimport "example.com/widgets/api/shared"\n'));
    mkdirSync(join(dir, 'api', 'shared'));
    writeFileSync(join(dir, 'api', 'shared', 'limits.go'), 'package shared\n\n// Limits bound a widget.\ntype Limits struct {\n\tMax int64 `json:"max"`\n}\n\n// Unused is migrated too: the pattern names its package.\ntype Unused struct{}\n');
    const r = await opgen(dir, 'migrate', 'api', './api/...', '--output', 'out');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('migrated 2 Go packages (3 types, 0 kinds: none)');
    expect(readFileSync(join(dir, 'out', 'shared', 'limits.ts'), 'utf8')).toContain('export interface Unused {\n}');
    expect(readFileSync(join(dir, 'out', 'v1', 'types.ts'), 'utf8')).toContain('  limits?: shared.Limits;\n');
  });

  it('a pattern with no +groupName package below it is refused', async () => {
    const dir = goModule(API.replace('// +groupName=widgets.example.com\n', ''));
    const r = await opgen(dir, 'migrate', 'api', './api/...', '--output', 'out');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^migrate api: error: no package in \.\/api\/\.\.\. has a \+groupName marker/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});

describe('Go without a TypeScript form', () => {
  it('is written as unknown and said in the summary with its position', async () => {
    const dir = goModule(`${API}
// Box is generic: controller-gen has no schema for its T either.
type Box[T any] struct {
	Item T \`json:"item"\`
}
`);
    const r = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^1 Go construct without a TypeScript form:\n {2}api\/v1\/types\.go:13:2: Box\.Item: Go type T was not found in its package .*; written as unknown$/m);
    expect(readFileSync(join(dir, 'out', 'v1', 'types.ts'), 'utf8')).toContain('  item: unknown;\n');
  });
});

describe('opgen migrate api refuses bad input in one line and writes nothing', () => {
  it('a folder that does not exist', async () => {
    const dir = goModule(API);
    const r = await opgen(dir, 'migrate', 'api', './api/v2', '--output', 'out');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('migrate api: error: ./api/v2 is not a folder (pass the folder of a Go API package, e.g. ./api/v1, or ./api/... for all below it)\n');
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('no --output', async () => {
    const dir = goModule(API);
    const r = await opgen(dir, 'migrate', 'api', './api/v1');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--output: error: --output is required \(.*\)\n$/);
  });

  it('a package without +groupName', async () => {
    const dir = goModule(API.replace('// +groupName=widgets.example.com\n', ''));
    const r = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\.\/api\/v1: error: \.\/api\/v1 \(package v1\) has no \+groupName marker, so controller-gen makes no CRD of it \(.*groupName=<group>\)\n$/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('Go source that does not parse: its file:line:col', async () => {
    const dir = goModule(API.replace('Size int32', 'Size int32 int32'));
    const r = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^migrate api: error: reading the Go packages failed: .*api\/v1\/types\.go:8:13: .*\(run `go build \.\/\.\.\.` in the module.*\)\n$/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('no go on PATH: how to get it', async () => {
    const dir = goModule(API);
    process.env.PATH = join(dir, 'no-bin');
    const r = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'migrate api: error: go is not installed (or not on PATH) (install Go (https://go.dev/dl/, the version your go.mod names): migrate reads your API with the Go toolchain, as controller-gen does)\n',
    );
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a rerun changes nothing; edited files are not overwritten without --force; --dry-run writes nothing', async () => {
    const dir = goModule(API);
    const first = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('CREATE v1/types.ts');
    // The same Go gives the same files: a rerun changes nothing and needs no --force.
    const rerun = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('(0 files changed)');
    const file = join(dir, 'out', 'v1', 'types.ts');
    expect(readFileSync(file, 'utf8')).toContain('  // +kubebuilder:validation:Minimum=1\n  /**\n   * Size of the widget.\n   */\n  size: int32;\n');
    writeFileSync(file, '// edited\n');
    const before = statSync(file).mtimeMs;

    const again = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('v1/types.ts: error: v1/types.ts already exists and would be overwritten (pass --force to overwrite it)\n');
    expect(readFileSync(file, 'utf8')).toBe('// edited\n');

    const dry = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out', '--force', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('UPDATE v1/types.ts');
    expect(statSync(file).mtimeMs).toBe(before);

    const forced = await opgen(dir, 'migrate', 'api', './api/v1', '--output', 'out', '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('size: int32;');
  });
});

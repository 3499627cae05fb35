// Shared by command tests: run the CLI in-process on a temp directory and snapshot directories.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function opgen(cwd: string, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, cwd);
  return { code, stdout, stderr };
}

/** A new empty directory named `name` inside a fresh temp folder. */
export function tempProjectDir(name = 'memcached-operator'): { dir: string; cleanup: () => void } {
  const parent = mkdtempSync(join(tmpdir(), 'opgen-cmd-'));
  const dir = join(parent, name);
  mkdirSync(dir);
  return { dir, cleanup: () => rmSync(parent, { recursive: true, force: true }) };
}

/** Every file under dir with its content. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = join(entry.parentPath, entry.name);
    out[abs.slice(dir.length + 1)] = readFileSync(abs, 'utf8');
  }
  return out;
}

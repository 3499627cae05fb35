// Test support (excluded from the build): opgen run in-process from a folder, its output captured, as
// the command tests, the OLM and Helm suites drive it.
import { run } from '../cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `opgen <argv>` in cwd; never throws for a failing command (the exit code says it). */
export async function opgen(cwd: string, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, cwd);
  return { code, stdout, stderr };
}

/** `opgen <argv>` in cwd that must succeed: a failure throws with its stderr. */
export async function opgenOk(cwd: string, ...argv: string[]): Promise<CliResult> {
  const r = await opgen(cwd, ...argv);
  if (r.code !== 0) throw new Error(`opgen ${argv.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

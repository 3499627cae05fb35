// The OLM v1 oracle: operator-controller's own code (and operator-registry's, which it depends on) run by
// our small main (test/olm-v1/oracle/main.go), built by .ci/olmv1-oracle.sh inside a copy of the module.
import { spawnSync } from 'node:child_process';
import { ciTool } from '../../src/testdata/ci-tools.js';

export interface OracleVerdict {
  verdict: 'pass' | 'fail';
  stage?: string;
  message?: string;
  findings?: { where: string; path?: string; rule: string }[];
  catalog?: unknown;
}

/** OPGEN_OLMV1_ORACLE (set by .ci/run), else built (or found in the cache) by .ci/olmv1-oracle.sh now. */
export const oracleBinary = (): string => ciTool('OPGEN_OLMV1_ORACLE', 'olmv1-oracle.sh');

export function olmV1Oracle(...args: string[]): OracleVerdict {
  const r = spawnSync(oracleBinary(), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`olmv1-oracle ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as OracleVerdict;
}

/** Cases per verdict, e.g. "pass 9, fail 19" (for the commit message and the test log). */
export function tally(verdicts: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort().map(([v, n]) => `${v} ${n}`).join(', ');
}

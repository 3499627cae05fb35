// The scaffolded opgen-update workflow (kubebuilder's autoupdate for opgen projects): what it may do, which
// commands it runs, and that its shell scripts parse (bash -n) after handlebars rendered them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { opgen } from '../testdata/cli.js';
import { tempDir } from '../testdata/files.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-update-wf-', 'memcached-operator')));
afterEach(() => cleanup());

interface Step { uses?: string; run?: string; if?: string; env?: Record<string, string> }

describe('init: .github/workflows/opgen-update.yml', () => {
  it('runs opgen update from the recorded version to the newest and opens a pull request, with pinned actions', async () => {
    const r = await opgen(dir, 'init', '--domain', 'example.com', '--skip-install');
    expect(r.code, r.stderr).toBe(0);
    const wf = parse(readFileSync(join(dir, '.github/workflows/opgen-update.yml'), 'utf8')) as { on: Record<string, unknown>; permissions: unknown; jobs: Record<string, { steps: Step[] }> };
    expect(Object.keys(wf.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(wf.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    for (const s of steps) if (s.uses) expect(s.uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs.join('\n')).toContain('npx --yes "opgen@$latest" update --from "opgen@$recorded"');
    expect(runs.join('\n')).toContain('gh pr create');
    // GitHub expressions survive handlebars.
    expect(steps.find((s) => s.env?.GH_TOKEN)?.env?.GH_TOKEN).toBe('${{ github.token }}');
    for (const run of runs) {
      const check = spawnSync('bash', ['-n'], { input: run, encoding: 'utf8' });
      expect(check.status, `${run}\n${check.stderr}`).toBe(0);
    }
    // The version it compares with is the one PROJECT records.
    const recorded = spawnSync('bash', ['-c', "sed -n 's/^cliVersion: //p' PROJECT"], { cwd: dir, encoding: 'utf8' }).stdout.trim();
    expect(recorded).toMatch(/^\d+\.\d+\.\d+/);
  });
});

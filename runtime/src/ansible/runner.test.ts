// ansible-runner missing: one line naming the packages to install, not a stack of ENOENTs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnsibleRunnerMissingError, runAnsible } from './runner.js';

const dir = mkdtempSync(join(tmpdir(), 'opgen-ansible-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runAnsible', () => {
  it('without ansible-runner on PATH: an AnsibleRunnerMissingError naming the Debian and pip packages', async () => {
    const run = runAnsible({ inputDir: join(dir, 'in'), ident: 'x', role: join(dir, 'roles', 'r'), extraVars: {}, kubeconfig: {}, maxArtifacts: 1, verbosity: 0 }, 'no-such-ansible-runner');
    await expect(run).rejects.toBeInstanceOf(AnsibleRunnerMissingError);
    await expect(run).rejects.toThrow(/^no-such-ansible-runner was not found on PATH: install ansible-runner, ansible and the Kubernetes Python client: `apt-get install ansible python3-ansible-runner python3-kubernetes` \(Debian\/Ubuntu\) or `pip install ansible-runner ansible-core kubernetes`/);
  });
});

// opgen debug on a real kube-apiserver: the project's config/default rendered into the debug namespace
// with debug logging and applied; the port-forward binds 127.0.0.1 only. (envtest runs no pods, so the
// forward itself is shown, not run: --no-port-forward.)
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TestEnv } from '@opgen/runtime/envtest';
import { opgen } from '../testdata/cli.js';
import { useMemcachedProjectEnv } from '../testdata/project-env.js';
import { portForwardArgs } from './debug.js';

let env: TestEnv;
let dir: string;

useMemcachedProjectEnv({ prefix: 'opgen-debug-', projectName: 'dbg' }, (started) => ({ dir, env } = started));

describe('opgen debug', () => {
  it('applies config/default into <project>-debug with debug logging and names the 127.0.0.1 port-forward', async () => {
    const r = await opgen(dir, 'debug', '--kubeconfig', env.kubeconfigPath, '--no-port-forward');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the manager is deployment/dbg-controller-manager in namespace dbg-debug');
    expect(r.stdout).toContain(`port-forward with: kubectl --kubeconfig ${env.kubeconfigPath} port-forward --address 127.0.0.1 -n dbg-debug deployment/dbg-controller-manager 8443:8443 8081:8081`);
    const deploy = JSON.parse(execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, 'get', 'deployment', '-n', 'dbg-debug', 'dbg-controller-manager', '-o', 'json'], { encoding: 'utf8' }));
    expect(deploy.spec.template.spec.containers[0].env).toContainEqual({ name: 'OPGEN_LOG_LEVEL', value: 'debug' });
    // Nothing went to the release namespace.
    expect(() => execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, 'get', 'namespace', 'dbg-system'], { stdio: 'pipe' })).toThrow();
  });

  it('only forwards on loopback, with the ports the manager binds', () => {
    const args = portForwardArgs({ metadata: { name: 'm', namespace: 'ns' }, spec: { template: { spec: { containers: [{ args: ['--metrics-bind-address=0.0.0.0:9000', '--health-probe-bind-address=:9001'] }] } } } });
    expect(args).toEqual(['port-forward', '--address', '127.0.0.1', '-n', 'ns', 'deployment/m', '9000:9000', '9001:9001']);
  });
});

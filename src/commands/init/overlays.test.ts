// The scaffold's kustomize overlays (config/overlays/{dev,staging,debug}): each renders with the real
// `kubectl kustomize` into what it promises, and its manager pod is admitted under restricted PodSecurity by a
// real kube-apiserver (envtest), with a control pod that the same namespace rejects so the check can fail.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgenOk } from '../../testdata/cli.js';
import { tempDir } from '../../testdata/files.js';

interface Container { name: string; args?: string[]; env?: Array<{ name: string; value?: string }>; resources?: { limits?: object; requests?: object }; readinessProbe?: object; securityContext?: object }
interface PodSpec { containers: Container[]; securityContext?: object }
interface Obj { kind: string; metadata: { name: string; namespace?: string }; spec?: { replicas?: number; template?: { spec: PodSpec } } }

let env: TestEnv;
let dir: string;
let cleanup: () => void;

const kubectl = (args: string[], input?: string): string =>
  execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

function render(overlay: string): Obj[] {
  const out = execFileSync('kubectl', ['kustomize', `config/overlays/${overlay}`], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(out).map((d) => d.toJS() as Obj).filter(Boolean);
}

function manager(objects: Obj[]): { deploy: Obj; container: Container } {
  const deploy = objects.find((o) => o.kind === 'Deployment')!;
  return { deploy, container: deploy.spec!.template!.spec.containers.find((c) => c.name === 'manager')! };
}

/** Server-side dry-run create of the Deployment's pod in `namespace`; throws with the API's message. */
function admitPod(namespace: string, name: string, spec: PodSpec): void {
  kubectl(['create', '--dry-run=server', '-n', namespace, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec }));
}

/** Creates the overlay's own Namespace for real, enforcing (and warning about) restricted PodSecurity. */
function restrictedNamespace(objects: Obj[]): string {
  const ns = objects.find((o) => o.kind === 'Namespace')!.metadata.name;
  kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } } }));
  return ns;
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('opgen-overlays-', 'ovl'));
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install', '--namespaced');
  env = await startTestEnv();
}, 240_000);

afterAll(async () => {
  await env?.stop();
  cleanup?.();
});

describe('config/overlays', () => {
  it('dev: debug logging through OPGEN_LOG_LEVEL, one replica, no resource limits, the base env kept', () => {
    const { deploy, container } = manager(render('dev'));
    expect(deploy.metadata.namespace).toBe('ovl-system');
    expect(deploy.spec!.replicas).toBe(1);
    expect(container.env).toContainEqual({ name: 'OPGEN_LOG_LEVEL', value: 'debug' });
    // --namespaced's WATCH_NAMESPACE survives the patch (env merges by name).
    expect(container.env!.map((e) => e.name)).toContain('WATCH_NAMESPACE');
    expect(container.resources).toEqual({ requests: { cpu: '10m', memory: '128Mi' } });
    expect(container.args).toContain('--metrics-bind-address=:8443');
  });

  it('staging: two replicas with leader election, resource limits and a readiness probe', () => {
    const { deploy, container } = manager(render('staging'));
    expect(deploy.spec!.replicas).toBe(2);
    expect(container.args).toEqual(expect.arrayContaining(['--leader-elect', '--metrics-bind-address=:8443']));
    expect(container.resources!.limits).toEqual({ cpu: '500m', memory: '256Mi' });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 8081 } });
    expect(container.env!.some((e) => e.name === 'OPGEN_LOG_LEVEL')).toBe(false);
  });

  it('debug: the dev overlay in <project>-debug, every namespaced object moved there', () => {
    const objects = render('debug');
    const { deploy, container } = manager(objects);
    expect(deploy.metadata.namespace).toBe('ovl-debug');
    expect(container.env).toContainEqual({ name: 'OPGEN_LOG_LEVEL', value: 'debug' });
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual(['ovl-debug']);
    expect(objects.filter((o) => o.metadata.namespace && o.metadata.namespace !== 'ovl-debug')).toEqual([]);
  });

  it.each(['dev', 'staging', 'debug'])('%s: the manager pod is admitted under restricted PodSecurity', (overlay) => {
    const objects = render(overlay);
    const ns = restrictedNamespace(objects);
    const spec = manager(objects).deploy.spec!.template!.spec;
    expect(() => admitPod(ns, `manager-${overlay}`, spec)).not.toThrow();
    // The whole overlay applies too (server-side dry-run: the API server validates every object), and
    // PodSecurity's warn mode, which checks a Deployment's pod template, has nothing to say.
    const r = spawnSync('kubectl', ['--kubeconfig', env.kubeconfigPath, 'apply', '--server-side', '--dry-run=server', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n'), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`deployment.apps/ovl-controller-manager serverside-applied`);
  });

  it('the restricted namespace does reject a pod without the security context (the check above can fail)', () => {
    const objects = render('dev');
    const ns = restrictedNamespace(objects);
    const spec = manager(objects).deploy.spec!.template!.spec;
    const bare: PodSpec = { ...spec, securityContext: undefined, containers: spec.containers.map((c) => ({ ...c, securityContext: undefined })) };
    expect(() => admitPod(ns, 'manager-bare', bare)).toThrow(/violates PodSecurity "restricted/);
  });
});

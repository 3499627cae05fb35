// `opgen debug` / `kubectl opgen debug`: the guide's debug flow. It renders config/overlays/debug with
// kustomize (or, when the project has no such overlay, config/default with debug logging) into a debug
// namespace, applies it, waits for the manager, and port-forwards its metrics and health ports on
// 127.0.0.1 only, so nothing else on the network reaches them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { Kubectl, KubectlError, type KubectlTarget } from '../doctor/kubectl.js';
import { loadDoctorProject } from '../doctor/project.js';

export interface DebugOptions extends KubectlTarget {
  /** Namespace to install into (default: <project>-debug). */
  namespace?: string;
  portForward: boolean;
}

export const DEBUG_OVERLAY = 'config/overlays/debug';

interface Container {
  name?: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
}

interface Deployment {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: Container[] } } };
}

/** `kubectl port-forward` arguments for the manager's metrics and health ports, bound to 127.0.0.1 only. */
export function portForwardArgs(deploy: Deployment): string[] {
  const args = deploy.spec?.template?.spec?.containers?.flatMap((c) => c.args ?? []) ?? [];
  const port = (flag: string): string | undefined => args.map((a) => new RegExp(`^--${flag}=.*:(\\d+)$`).exec(a)?.[1]).find((p) => p !== undefined);
  const ports = [port('metrics-bind-address'), port('health-probe-bind-address')].filter((p): p is string => p !== undefined);
  return ['port-forward', '--address', '127.0.0.1', '-n', deploy.metadata?.namespace ?? 'default', `deployment/${deploy.metadata?.name ?? ''}`, ...ports.map((p) => `${p}:${p}`)];
}

/** Renders the debug overlay: the project's own, or config/default in `namespace` with debug logging. */
export async function renderDebug(kubectl: Kubectl, root: string, namespace: string): Promise<string> {
  if (existsSync(join(root, DEBUG_OVERLAY))) {
    const r = await kubectl.run(['kustomize', join(root, DEBUG_OVERLAY)]);
    if (r.code !== 0) throw new KubectlError(['kustomize', DEBUG_OVERLAY], r);
    return r.stdout;
  }
  // kustomize refuses absolute paths to a base, so the overlay names config/default relative to itself.
  const dir = mkdtempSync(join(tmpdir(), 'opgen-debug-'));
  try {
    writeFileSync(join(dir, 'kustomization.yaml'), stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace,
      resources: [relative(dir, join(root, 'config/default'))],
      // A strategic merge: the scaffold's container is "manager"; its other env entries stay.
      patches: [{
        target: { kind: 'Deployment' },
        patch: stringify({
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'controller-manager' },
          spec: { template: { spec: { containers: [{ name: 'manager', env: [{ name: 'OPGEN_LOG_LEVEL', value: 'debug' }] }] } } },
        }),
      }],
    }));
    const r = await kubectl.run(['kustomize', dir]);
    if (r.code !== 0) throw new KubectlError(['kustomize', 'config/default'], r);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function debugCommand(ctx: CommandContext, opts: DebugOptions, signal?: AbortSignal): Promise<number> {
  const project = loadDoctorProject(ctx.cwd);
  const namespace = opts.namespace ?? `${project.config.projectName}-debug`;
  const kubectl = new Kubectl(opts, ctx.cwd);
  let rendered: string;
  try {
    rendered = await renderDebug(kubectl, ctx.cwd, namespace);
  } catch (err) {
    if (err instanceof KubectlError) throw new OpgenError(`kustomize failed: ${err.message}`, { file: existsSync(join(ctx.cwd, DEBUG_OVERLAY)) ? DEBUG_OVERLAY : 'config/default' }, 'fix the kustomization (kubectl kustomize shows the same error)');
    throw err;
  }
  const objects = parseAllDocuments(rendered).map((d) => d.toJS() as Deployment).filter((o) => o);
  const deploy = objects.find((o) => o.kind === 'Deployment');
  if (!deploy?.metadata?.name) throw new OpgenError('the debug overlay renders no Deployment', { file: DEBUG_OVERLAY }, 'include config/default (or config/manager) in its resources');
  const applied = await kubectl.run(['apply', '--server-side', '--force-conflicts', '-f', '-'], rendered);
  if (applied.code !== 0) throw new OpgenError(`applying the debug overlay failed: ${new KubectlError(['apply'], applied).message}`, { flag: 'debug' }, 'install what it needs first (cert-manager for the webhook certificate), or run opgen doctor');
  ctx.out(`applied ${objects.length} objects; the manager is deployment/${deploy.metadata.name} in namespace ${deploy.metadata.namespace ?? namespace}`);
  const forward = portForwardArgs(deploy);
  if (!opts.portForward) {
    ctx.out(`port-forward with: kubectl ${[...kubectl.flags(), ...forward].join(' ')}`);
    return 0;
  }
  const rollout = await kubectl.run(['rollout', 'status', '-n', deploy.metadata.namespace ?? namespace, `deployment/${deploy.metadata.name}`, '--timeout=180s']);
  if (rollout.code !== 0) throw new OpgenError(`the manager did not become ready: ${new KubectlError(['rollout', 'status'], rollout).message}`, { flag: 'debug' }, `kubectl -n ${namespace} describe deployment/${deploy.metadata.name}; kubectl -n ${namespace} logs deployment/${deploy.metadata.name}`);
  ctx.out(`forwarding ${forward.slice(6).join(', ')} on 127.0.0.1 (Ctrl-C stops)`);
  return new Promise((resolve) => {
    const child = spawn('kubectl', [...kubectl.flags(), ...forward], { cwd: ctx.cwd, stdio: 'inherit', signal });
    child.on('error', () => resolve(signal?.aborted ? 0 : 1));
    child.on('exit', (code) => resolve(signal?.aborted ? 0 : code ?? 1));
  });
}

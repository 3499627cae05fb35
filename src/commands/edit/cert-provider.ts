// `opgen edit --cert-provider cert-manager|self`: moves every webhook of the project to the other
// certificate provider — config/default's resources, manager patch and replacements, the provider's RBAC
// or cert-manager objects, and src/main.ts's webhook option — the same wiring `create webhook
// --cert-provider` writes, so a switched project renders as one created that way.
import { OpgenError } from '../../diag/diagnostic.js';
import type { ProjectConfig } from '../../project/index.js';
import type { Tree } from '../../scaffold/index.js';
import {
  caTargets, certProviderOf, kustomizationFragments, switchMainTs, wireCaTarget, wireProvider, type CertProvider,
} from '../create-webhook/cert-provider.js';

const KUSTOMIZATION = 'config/default/kustomization.yaml';

/** The kubectl command that deletes the serving Certificate and Issuer config/default deployed (its namespace and name prefix). */
function deleteCertManagerObjects(kustomization: string): string {
  const namespace = /^namespace:\s*(\S+)\s*$/m.exec(kustomization)?.[1];
  const prefix = /^namePrefix:\s*(\S+)\s*$/m.exec(kustomization)?.[1] ?? '';
  return `kubectl delete --ignore-not-found${namespace ? ` -n ${namespace}` : ''} certificates.cert-manager.io/${prefix}serving-cert issuers.cert-manager.io/${prefix}selfsigned-issuer`;
}
const MANAGER_PATCH = 'config/default/manager_webhook_patch.yaml';

/** Rewires the project's webhooks for `to`; returns the project to save and notes for the user. */
export function switchCertProvider(tree: Tree, project: ProjectConfig, to: CertProvider): { project: ProjectConfig; notes: string[] } {
  const from = certProviderOf(project);
  const next = { ...project };
  if (to === 'self') next.certProvider = 'self';
  else delete next.certProvider;
  if (from === to) return { project, notes: [`the webhooks already get their certificate from ${to}`] };
  if (!project.resources.some((r) => r.webhooks)) {
    return { project: next, notes: [`webhooks created from now on get their certificate from ${to}`] };
  }
  const data = { projectName: project.projectName };
  const targets = caTargets(project);
  // Take out what `from` put into config/default/kustomization.yaml, block by block, as it was written.
  let text = tree.read(KUSTOMIZATION) ?? '';
  for (const fragment of kustomizationFragments(from, targets, data)) {
    const block = `${fragment.replace(/\n+$/, '')}\n`;
    if (!text.includes(block)) {
      throw new OpgenError(`cannot find the ${from} wiring that \`opgen create webhook\` wrote (it starts with \`${block.split('\n')[0]}\`)`, { file: KUSTOMIZATION }, 'put it back as scaffolded, or move the project to the other provider by hand (docs/webhooks.md)');
    }
    text = text.replace(block, '');
  }
  tree.write(KUSTOMIZATION, text);
  tree.delete(MANAGER_PATCH);
  const notes: string[] = [];
  if (from === 'self') {
    for (const path of tree.list('config/selfcert')) tree.delete(path);
  } else {
    notes.push('config/certmanager is kept (no longer built by config/default): its metrics certificate is what the [METRICS-WITH-CERTS] and [PROMETHEUS-WITH-CERTS] options use; delete it if you use neither');
  }
  wireProvider(tree, to, data);
  for (const target of targets) wireCaTarget(tree, to, target, project.projectName);
  switchMainTs(tree, to);
  notes.push(
    to === 'self'
      ? `webhooks now get their certificate from the manager (Secret webhook-server-cert). On a cluster deployed with kubectl apply -k config/default before, delete the old Certificate and Issuer, or cert-manager keeps rewriting the Secret: ${deleteCertManagerObjects(text)}`
      : 'webhooks now get their certificate from cert-manager (config/certmanager): install cert-manager before deploying; it takes over Secret webhook-server-cert',
  );
  return { project: next, notes };
}

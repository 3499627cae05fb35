// Who provides the webhook serving certificate, and the kustomize wiring and src/main.ts line of each:
// cert-manager (Certificate, Issuer, CA-injection annotations, the Secret mounted) or the manager itself
// (`self`: Secret and CA bundle kept by @opgen/runtime, RBAC limited to the objects it names).
// `create webhook --cert-provider` and `edit --cert-provider` both go through here.
import { OpgenError } from '../../diag/diagnostic.js';
import { pluralize } from '../../naming/index.js';
import { qualifiedGroup, type ProjectConfig } from '../../project/index.js';
import { insertInto, renderPartial, renderTemplates, type Tree } from '../../scaffold/index.js';

export const CERT_PROVIDERS = ['cert-manager', 'self'] as const;
export type CertProvider = (typeof CERT_PROVIDERS)[number];

/** The --cert-provider value, checked; throws one line naming the flag and the allowed values. */
export function parseCertProvider(value: string): CertProvider {
  if ((CERT_PROVIDERS as readonly string[]).includes(value)) return value as CertProvider;
  throw new OpgenError(`invalid value "${value}"`, { flag: '--cert-provider' }, `use one of: ${CERT_PROVIDERS.join(', ')}`);
}

/** The project's provider: PROJECT's certProvider, cert-manager when absent. */
export function certProviderOf(project: Pick<ProjectConfig, 'certProvider'>): CertProvider {
  return project.certProvider ?? 'cert-manager';
}

/** A place the CA bundle goes. */
export type CaTarget =
  | { kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration' }
  | { kind: 'CustomResourceDefinition'; crdName: string };

/** Every CA target the project's recorded webhooks have. */
export function caTargets(project: ProjectConfig): CaTarget[] {
  const has = (k: 'defaulting' | 'validation') => project.resources.some((r) => r.webhooks?.[k]);
  return [
    ...(has('defaulting') ? [{ kind: 'MutatingWebhookConfiguration' as const }] : []),
    ...(has('validation') ? [{ kind: 'ValidatingWebhookConfiguration' as const }] : []),
    ...project.resources.filter((r) => r.webhooks?.conversion && !r.core).map((r) => ({ kind: 'CustomResourceDefinition' as const, crdName: `${r.plural ?? pluralize(r.kind)}.${qualifiedGroup(r)}` })),
  ];
}

const kustomization = 'config/default/kustomization.yaml';

/** The provider's shared wiring: its folder, config/default's resources, manager patch and first replacements. */
export function wireProvider(tree: Tree, provider: CertProvider, data: { projectName: string }, force = false): void {
  if (provider === 'self') {
    renderTemplates(tree, 'webhook/self', { data, force });
    insertInto(tree, kustomization, 'webhook', renderPartial('webhook-default-resources-self', data));
    insertInto(tree, kustomization, 'webhookpatch', renderPartial('webhook-default-patch', data));
    insertInto(tree, kustomization, 'replacements', renderPartial('webhook-default-replacements-self', data));
    return;
  }
  renderTemplates(tree, 'webhook/cert-manager', { data, force });
  insertInto(tree, kustomization, 'webhook', renderPartial('webhook-default-resources', data));
  insertInto(tree, kustomization, 'webhookpatch', renderPartial('webhook-default-patch', data));
  insertInto(tree, kustomization, 'replacements', renderPartial('webhook-default-replacements', data));
}

/** How `target` gets the CA bundle: cert-manager's inject-ca-from annotation, or the manager's injector RBAC and names. */
export function wireCaTarget(tree: Tree, provider: CertProvider, target: CaTarget, projectName: string): void {
  if (provider === 'cert-manager') {
    insertInto(tree, kustomization, 'replacements', caInjectionPartial(target));
    return;
  }
  const t = selfTarget(target);
  renderTemplates(tree, 'webhook/self-injector', { data: { ...t, projectName }, placeholders: { injectorFile: t.injectorFile } });
  insertInto(tree, 'config/selfcert/kustomization.yaml', 'selfcert', renderPartial('webhook-selfcert-resource', t));
  if (t.replaced) insertInto(tree, kustomization, 'replacements', renderPartial('webhook-selfcert-injection', t));
}

function caInjectionPartial(target: CaTarget): string {
  const crd = target.kind === 'CustomResourceDefinition';
  return renderPartial('webhook-ca-injection', {
    targetKind: target.kind,
    targetDescription: crd ? `conversion settings of CRD ${target.crdName}` : target.kind === 'MutatingWebhookConfiguration' ? 'mutating webhook configuration' : 'validating webhook configuration',
    targetName: crd ? target.crdName : '',
  });
}

function selfTarget(target: CaTarget) {
  if (target.kind === 'CustomResourceDefinition') {
    const file = target.crdName.split('.')[0]!;
    return {
      targetKind: target.kind, targetName: target.crdName, targetDescription: `the conversion webhook of CRD ${target.crdName}`,
      apiGroup: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', replaced: false, envName: '',
      injectorFile: `crd_${file}_cert_role`, roleName: `webhook-cert-crd-${file}-role`,
    };
  }
  const mutating = target.kind === 'MutatingWebhookConfiguration';
  const word = mutating ? 'mutating' : 'validating';
  return {
    targetKind: target.kind, targetName: `${word}-webhook-configuration`, targetDescription: `the ${word} webhook configuration`,
    apiGroup: 'admissionregistration.k8s.io', resource: `${word}webhookconfigurations`, replaced: true,
    envName: mutating ? 'MUTATING_WEBHOOK_CONFIGURATION' : 'VALIDATING_WEBHOOK_CONFIGURATION',
    injectorFile: `${word}_webhook_cert_role`, roleName: `webhook-cert-${word}-role`,
  };
}

const MAIN = 'src/main.ts';
const certDirOption = "certDir: flags['webhook-cert-path'] || undefined";
const selfOption = 'selfCertificate: selfCertificateFromEnv()';

/** src/main.ts's webhook option for `provider` (certDir from --webhook-cert-path, or selfCertificateFromEnv()). */
export function switchMainTs(tree: Tree, provider: CertProvider): void {
  const text = tree.read(MAIN) ?? '';
  const [from, to] = provider === 'self' ? [certDirOption, selfOption] : [selfOption, certDirOption];
  if (text.includes(to)) return;
  if (!text.includes(from)) {
    throw new OpgenError(`cannot find \`${from}\` in the manager's webhook options`, { file: MAIN }, `write \`${to}\` in createManager's webhook option yourself, then run the command again`);
  }
  let next = text.replace(from, to);
  const runtimeImport = /import \{([^}]*)\} from '@opgen\/runtime';/;
  const m = runtimeImport.exec(next);
  if (!m) throw new OpgenError("cannot find the `import { ... } from '@opgen/runtime'` line", { file: MAIN }, 'import selfCertificateFromEnv from @opgen/runtime yourself');
  const names = m[1]!.split(',').map((s) => s.trim()).filter(Boolean).filter((n) => n !== 'selfCertificateFromEnv');
  if (provider === 'self') names.push('selfCertificateFromEnv');
  next = next.replace(runtimeImport, runtimeImportLine(names.sort((a, b) => a.localeCompare(b))));
  tree.write(MAIN, next);
}

/**
 * The `@opgen/runtime` import as the scaffold's prettier (printWidth 120) lays it out: one line when it
 * fits, otherwise one name per line with a trailing comma.
 */
function runtimeImportLine(names: string[]): string {
  const line = `import { ${names.join(', ')} } from '@opgen/runtime';`;
  return line.length <= 120 ? line : `import {\n${names.map((n) => `  ${n},\n`).join('')}} from '@opgen/runtime';`;
}

/** The partial texts `provider` put into config/default/kustomization.yaml for `targets` (for a switch). */
export function kustomizationFragments(provider: CertProvider, targets: CaTarget[], data: { projectName: string }): string[] {
  if (provider === 'cert-manager') {
    return [
      renderPartial('webhook-default-resources', data),
      renderPartial('webhook-default-replacements', data),
      ...targets.map(caInjectionPartial),
    ];
  }
  return [
    renderPartial('webhook-default-resources-self', data),
    renderPartial('webhook-default-replacements-self', data),
    ...targets.map(selfTarget).filter((t) => t.replaced).map((t) => renderPartial('webhook-selfcert-injection', t)),
  ];
}

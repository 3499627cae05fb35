// `opgen create webhook`: defaulting and validating admission webhooks and conversion between versions for
// one kind, with the kustomize wiring (webhook Service, the serving certificate from cert-manager or from
// the manager itself, CA injection), the registration in src/main.ts and the record in PROJECT.
import { posix } from 'node:path';
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { checkApiVersion, checkDns1123Label, checkKind, pluralize } from '../../naming/index.js';
import { requiredFlag } from '../shared/gvk-flags.js';
import { apiDir, loadProject, qualifiedGroup, saveProject, type ProjectConfig, type ResourceConfig, type WebhooksConfig } from '../../project/index.js';
import { insertInto, renderPartial, renderTemplates, type Tree } from '../../scaffold/index.js';
import { importPath, kebab, variableName } from '../shared/names.js';
import { sourceHeader, stageAndCommit } from '../shared/run-in-tree.js';
import { markStorageVersion, unmarkStorageVersion } from '../shared/storage-version.js';
import { certProviderOf, parseCertProvider, switchMainTs, wireCaTarget, wireProvider, type CaTarget, type CertProvider } from './cert-provider.js';
import { builtinNamespaced } from '../../common/kubernetes-builtins.js';
import { coreGroupDomain, runtimeExportsKind } from './core-groups.js';

export interface CreateWebhookOptions {
  group?: string;
  version?: string;
  kind?: string;
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  /** Comma-separated spoke versions, as given to --spoke. */
  spoke?: string;
  defaultingPath?: string;
  validationPath?: string;
  /** --cert-provider: cert-manager (default) or self; recorded in PROJECT with the first webhook. */
  certProvider?: string;
  force: boolean;
  dryRun: boolean;
}

/** What the flags ask for, validated on their own (before PROJECT is read). */
interface Request {
  group: string;
  version: string;
  kind: string;
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  spokes: string[];
  defaultingPath?: string;
  validationPath?: string;
}

/** The resource the webhooks are for, as PROJECT knows it (or a built-in kind). */
interface Target {
  /** The API group as the API server spells it: '' for core, `apps`, `cache.example.com`. */
  apiGroup: string;
  domain: string;
  plural: string;
  core: boolean;
  existing: ResourceConfig | undefined;
}

export async function createWebhookCommand(ctx: CommandContext, o: CreateWebhookOptions): Promise<number> {
  const request = validateFlags(o);
  const asked = o.certProvider === undefined ? undefined : parseCertProvider(o.certProvider);
  stageAndCommit(ctx, o.dryRun, (tree) => {
    const project = loadProject(tree);
    const target = checkAgainstProject(project, request, o.force);
    scaffold(tree, project, request, target, o.force, chooseCertProvider(project, asked));
  });
  if (!o.dryRun) {
    if (request.group === 'core' || coreGroupDomain(request.group) !== undefined) {
      ctx.err(`warning: a webhook on the built-in ${request.kind} also sees the operator's own ${request.kind} objects; keep it failurePolicy=fail only if the manager never needs them to start`);
    }
    ctx.out('Next: implement the webhooks, then generate the manifests (webhook configurations) with:');
    ctx.out('$ npm run manifests');
  }
  return 0;
}

function validateFlags(o: CreateWebhookOptions): Request {
  const group = requiredFlag(o.group, '--group', 'cache');
  const version = requiredFlag(o.version, '--version', 'v1alpha1');
  const kind = requiredFlag(o.kind, '--kind', 'Memcached');
  if (!o.defaulting && !o.validation && !o.conversion) {
    throw new OpgenError(
      'nothing to create: no webhook kind given',
      { flag: '--defaulting' },
      'pass at least one of --defaulting, --programmatic-validation and --conversion',
    );
  }
  const kindProblem = checkKind(kind);
  if (kindProblem) throw new OpgenError(`invalid kind "${kind}": it ${kindProblem}`, { flag: '--kind' });
  if (coreGroupDomain(group) === undefined) {
    const groupProblem = checkDns1123Label(group);
    if (groupProblem) throw new OpgenError(`invalid group "${group}": it ${groupProblem}`, { flag: '--group' });
  }
  const versionProblem = checkApiVersion(version);
  if (versionProblem) throw new OpgenError(`invalid version "${version}": it ${versionProblem}`, { flag: '--version' });
  if (o.defaultingPath !== undefined && !o.defaulting) {
    throw new OpgenError('--defaulting-path can only be used with --defaulting', { flag: '--defaulting-path' }, 'add --defaulting or drop --defaulting-path');
  }
  if (o.validationPath !== undefined && !o.validation) {
    throw new OpgenError('--validation-path can only be used with --programmatic-validation', { flag: '--validation-path' }, 'add --programmatic-validation or drop --validation-path');
  }
  for (const [flag, path] of [['--defaulting-path', o.defaultingPath], ['--validation-path', o.validationPath]] as const) {
    if (path !== undefined && !/^\/[A-Za-z0-9._~\-/]*$/.test(path)) {
      throw new OpgenError(`invalid path "${path}": it must be a URL path starting with '/'`, { flag }, `e.g. ${flag} /${flag === '--defaulting-path' ? 'mutate' : 'validate'}-${kind.toLowerCase()}`);
    }
  }
  if (o.spoke !== undefined && !o.conversion) {
    throw new OpgenError('--spoke can only be used with --conversion', { flag: '--spoke' }, 'add --conversion (the --version given is the hub)');
  }
  const spokes = o.spoke === undefined ? [] : o.spoke.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const spoke of spokes) {
    const problem = spoke === '' ? 'is empty' : checkApiVersion(spoke) ? `is not an API version: it ${checkApiVersion(spoke)}` : undefined;
    if (problem) throw new OpgenError(`spoke version "${spoke}" ${problem}`, { flag: '--spoke' }, 'e.g. --spoke v1beta1,v1alpha1');
    if (spoke === version) {
      throw new OpgenError(`spoke version ${spoke} is the hub (--version)`, { flag: '--spoke' }, 'list the other versions of the kind; the hub converts to and from each of them');
    }
    if (seen.has(spoke)) throw new OpgenError(`duplicate spoke version ${spoke}`, { flag: '--spoke' });
    seen.add(spoke);
  }
  if (o.conversion && spokes.length === 0) {
    throw new OpgenError('--conversion needs the versions to convert', { flag: '--spoke' }, `e.g. --spoke v1beta1 (created with \`opgen create api --version v1beta1 --kind ${kind}\`)`);
  }
  return {
    group, version, kind,
    defaulting: o.defaulting, validation: o.validation, conversion: o.conversion, spokes,
    ...(o.defaultingPath !== undefined ? { defaultingPath: o.defaultingPath } : {}),
    ...(o.validationPath !== undefined ? { validationPath: o.validationPath } : {}),
  };
}

function checkAgainstProject(project: ProjectConfig, r: Request, force: boolean): Target {
  const existing = project.resources.find((x) => x.group === r.group && x.version === r.version && x.kind === r.kind);
  const coreDomain = coreGroupDomain(r.group);
  const isCore = coreDomain !== undefined && !existing?.api;
  if (!isCore && !existing?.api) {
    throw new OpgenError(
      `no API ${r.group}/${r.version}, Kind=${r.kind} in PROJECT`,
      { flag: '--kind' },
      `run \`opgen create api --group ${r.group} --version ${r.version} --kind ${r.kind}\` first`,
    );
  }
  if (isCore && r.conversion) {
    throw new OpgenError(`${r.kind} is a built-in kind; the API server converts its versions itself`, { flag: '--conversion' }, 'drop --conversion');
  }
  const had = existing?.webhooks ?? { webhookVersion: 'v1' as const };
  if (!force) {
    for (const [asked, present, what, flag] of [
      [r.defaulting, had.defaulting, 'defaulting', '--defaulting'],
      [r.validation, had.validation, 'validating', '--programmatic-validation'],
      [r.conversion, had.conversion, 'conversion', '--conversion'],
    ] as const) {
      if (asked && present) {
        throw new OpgenError(`a ${what} webhook for ${r.group}/${r.version}, Kind=${r.kind} is already scaffolded`, { flag }, 'pass --force to scaffold it again (its files are overwritten)');
      }
    }
  }
  for (const spoke of r.spokes) {
    const other = project.resources.find((x) => x.group === r.group && x.version === spoke && x.kind === r.kind && x.api);
    if (!other) {
      const known = project.resources.filter((x) => x.group === r.group && x.kind === r.kind && x.api && x.version !== r.version).map((x) => x.version);
      throw new OpgenError(
        `spoke version ${spoke} is not a version of ${r.group}, Kind=${r.kind} in PROJECT`,
        { flag: '--spoke' },
        known.length > 0 ? `known versions besides the hub: ${known.join(', ')}` : `create it first with \`opgen create api --group ${r.group} --version ${spoke} --kind ${r.kind} --controller=false\``,
      );
    }
  }
  if (isCore) {
    const domain = coreDomain ?? '';
    const apiGroup = r.group === 'core' ? '' : domain === '' ? r.group : `${r.group}.${domain}`;
    return { apiGroup, domain, plural: existing?.plural ?? pluralize(r.kind), core: true, existing };
  }
  const resource = existing as ResourceConfig;
  return { apiGroup: qualifiedGroup(resource), domain: resource.domain, plural: resource.plural ?? pluralize(resource.kind), core: false, existing };
}

/** The provider asked for, or the project's; a different one than the project's webhooks use is refused. */
function chooseCertProvider(project: ProjectConfig, asked: CertProvider | undefined): CertProvider {
  const current = certProviderOf(project);
  const hasWebhooks = project.resources.some((r) => r.webhooks);
  if (asked !== undefined && hasWebhooks && asked !== current) {
    throw new OpgenError(`the project's webhooks get their certificate from ${current}`, { flag: '--cert-provider' }, `switch all of them with \`opgen edit --cert-provider ${asked}\`, or drop --cert-provider`);
  }
  return asked ?? current;
}

function scaffold(tree: Tree, project: ProjectConfig, r: Request, t: Target, force: boolean, provider: CertProvider): void {
  const kindFile = kebab(r.kind);
  const kindLower = r.kind.toLowerCase();
  const dashedGroup = t.apiGroup.replaceAll('.', '-');
  const whDir = webhookDir(project, r.group, r.version);
  const typesPath = t.existing?.path ?? `${apiDir(project, r.group, r.version)}/${kindFile}-types.ts`;
  const builtin = t.core && runtimeExportsKind(t.apiGroup, r.version, r.kind);
  const base = {
    projectName: project.projectName,
    header: sourceHeader(tree.read('hack/boilerplate.ts.txt')),
    group: r.group,
    version: r.version,
    kind: r.kind,
    kindLower,
    kindFile,
    plural: t.plural,
    qualifiedGroup: t.apiGroup,
    // kubebuilder writes the core group as groups="" in markers.
    markerGroup: t.apiGroup === '' ? '""' : t.apiGroup,
    varName: variableName(r.kind),
    core: t.core,
    builtin,
    namespaced: t.existing?.api?.namespaced ?? (t.core ? builtinNamespaced(t.apiGroup, r.kind) : true),
    typesImport: importPath(whDir, typesPath),
    envtestImport: importPath(whDir, 'test/envtest.ts'),
    webhooksTestImport: importPath(whDir, 'test/webhooks.ts'),
    mutatePath: r.defaultingPath ?? t.existing?.webhooks?.defaultingPath ?? `/mutate-${dashedGroup}-${r.version}-${kindLower}`,
    validatePath: r.validationPath ?? t.existing?.webhooks?.validationPath ?? `/validate-${dashedGroup}-${r.version}-${kindLower}`,
    mutateName: `m${kindLower}-${r.version}.kb.io`,
    validateName: `v${kindLower}-${r.version}.kb.io`,
    hubVersion: r.version,
    runtimeKindImports: builtin ? `, ${r.kind}` : t.core ? ', groupVersion, type KubeObject' : '',
    samplePod: t.core && t.apiGroup === '' && r.kind === 'Pod',
  };
  const placeholders = { webhookDir: whDir, kindFile, plural: t.plural };

  // Shared by every webhook: Service, certificates, manager patch, network policy (each kept if present).
  renderTemplates(tree, 'webhook/common', { data: base, placeholders });
  wireProvider(tree, provider, base);
  if (provider === 'self') switchMainTs(tree, provider);
  insertInto(tree, 'config/network-policy/kustomization.yaml', 'networkpolicy', renderPartial('webhook-network-policy', base));
  const injectCa = (target: CaTarget) => wireCaTarget(tree, provider, target, project.projectName);

  if (r.defaulting || r.validation) {
    insertInto(tree, 'config/webhook/kustomization.yaml', 'webhookmanifests', renderPartial('webhook-manifests', base));
  }
  if (r.defaulting) {
    renderTemplates(tree, 'webhook/defaulting', { data: base, placeholders, force });
    injectCa({ kind: 'MutatingWebhookConfiguration' });
    register(tree, `setup${r.kind}DefaulterWithManager`, `${whDir}/${kindFile}-defaulter.ts`);
  }
  if (r.validation) {
    renderTemplates(tree, 'webhook/validation', { data: base, placeholders, force });
    injectCa({ kind: 'ValidatingWebhookConfiguration' });
    register(tree, `setup${r.kind}ValidatorWithManager`, `${whDir}/${kindFile}-validator.ts`);
  }
  if (r.conversion) {
    const crdName = `${t.plural}.${t.apiGroup}`;
    renderTemplates(tree, 'webhook/conversion', { data: { ...base, spokes: scaffoldSpokes(project, r, t, whDir, typesPath, base, tree, force) }, placeholders, force });
    insertInto(tree, 'config/crd/kustomization.yaml', 'crdkustomizewebhookpatch', renderPartial('webhook-crd-patch', base));
    enableCrdConfigurations(tree);
    injectCa({ kind: 'CustomResourceDefinition', crdName });
    // The hub becomes the storage version (as kubebuilder's); the version that held it until now
    // (create api keeps the first one) gives it up, so the CRD has exactly one.
    for (const other of project.resources.filter((x) => x.group === r.group && x.kind === r.kind && x.version !== r.version && x.api)) {
      unmarkStorageVersion(tree, other.path ?? `${apiDir(project, r.group, other.version)}/${kindFile}-types.ts`);
    }
    markStorageVersion(tree, typesPath, r.kind);
    register(tree, `setup${r.kind}ConversionWithManager`, `${whDir}/${kindFile}-conversion.ts`);
  }

  saveProject(tree, { ...project, ...(provider === 'self' ? { certProvider: provider } : {}), resources: record(project, r, t) });
}

/**
 * Writes each new spoke's conversion module and round-trip test beside its types; returns every spoke
 * (earlier ones included) for the hub's registration module.
 */
function scaffoldSpokes(project: ProjectConfig, r: Request, t: Target, whDir: string, hubTypesPath: string, base: Record<string, unknown>, tree: Tree, force: boolean): { version: string; conversionName: string; conversionImport: string; typesImport: string; alias: string }[] {
  const versions = [...new Set([...(t.existing?.webhooks?.spoke ?? []), ...r.spokes])];
  const kindFile = kebab(r.kind);
  return versions.map((version) => {
    const spoke = project.resources.find((x) => x.group === r.group && x.version === version && x.kind === r.kind);
    const typesPath = spoke?.path ?? `${apiDir(project, r.group, version)}/${kindFile}-types.ts`;
    const dir = posix.dirname(typesPath);
    const conversionName = `${variableName(r.kind)}${pascal(version)}Conversion`;
    if (r.spokes.includes(version)) {
      const data = { ...base, spokeVersion: version, conversionName, hubTypesImport: importPath(dir, hubTypesPath) };
      renderTemplates(tree, 'webhook/spoke', { data, placeholders: { spokeDir: dir, kindFile }, force });
    }
    return {
      version, conversionName, conversionImport: importPath(whDir, `${dir}/${kindFile}-conversion.ts`),
      // For the hub's round-trip test through the API server: the spoke's kind under another name.
      typesImport: importPath(whDir, typesPath), alias: `${r.kind}${pascal(version)}`,
    };
  });
}

/** Imports a setup function into src/main.ts and calls it where webhooks are registered. */
function register(tree: Tree, setupName: string, modulePath: string): void {
  const data = { setupName, moduleImport: importPath('src', modulePath) };
  insertInto(tree, 'src/main.ts', 'imports', renderPartial('webhook-main-import', data));
  insertInto(tree, 'src/main.ts', 'webhooks', renderPartial('webhook-main-setup', data));
}

const CRD_CONFIGURATIONS = '#configurations:\n#- kustomizeconfig.yaml';

/** Uncomments `configurations: [kustomizeconfig.yaml]` in config/crd, which maps the conversion Service reference. */
function enableCrdConfigurations(tree: Tree): void {
  const path = 'config/crd/kustomization.yaml';
  const text = tree.read(path) ?? '';
  if (/^configurations:\s*\n-\s*kustomizeconfig\.yaml\s*$/m.test(text)) return;
  if (!text.includes(CRD_CONFIGURATIONS)) {
    throw new OpgenError(
      'cannot find the commented `#configurations:` / `#- kustomizeconfig.yaml` lines',
      { file: path },
      'add `configurations:` with `- kustomizeconfig.yaml` to the file yourself, then run the command again',
    );
  }
  tree.write(path, text.replace(CRD_CONFIGURATIONS, 'configurations:\n- kustomizeconfig.yaml'));
}

/** The PROJECT resources with this resource's webhooks merged in (kinds OR-ed, spokes unioned). */
function record(project: ProjectConfig, r: Request, t: Target): ResourceConfig[] {
  const had: WebhooksConfig = t.existing?.webhooks ?? { webhookVersion: 'v1' };
  const spoke = [...new Set([...(had.spoke ?? []), ...r.spokes])];
  const defaultingPath = r.defaultingPath ?? had.defaultingPath;
  const validationPath = r.validationPath ?? had.validationPath;
  const webhooks: WebhooksConfig = {
    ...(had.defaulting || r.defaulting ? { defaulting: true } : {}),
    ...(had.validation || r.validation ? { validation: true } : {}),
    ...(had.conversion || r.conversion ? { conversion: true } : {}),
    ...(spoke.length > 0 ? { spoke } : {}),
    ...(defaultingPath !== undefined ? { defaultingPath } : {}),
    ...(validationPath !== undefined ? { validationPath } : {}),
    webhookVersion: 'v1',
  };
  if (t.existing) return project.resources.map((x) => (x === t.existing ? { ...x, webhooks } : x));
  const entry: ResourceConfig = { core: true, group: r.group, domain: t.domain, version: r.version, kind: r.kind, webhooks };
  return [...project.resources, entry];
}

/** Folder of webhook modules: src/webhook/<version>, or src/webhook/<group>/<version> when multigroup (like src/api). */
export function webhookDir(project: Pick<ProjectConfig, 'multigroup'>, group: string, version: string): string {
  return project.multigroup ? `src/webhook/${group}/${version}` : `src/webhook/${version}`;
}

/** `v1beta1` → `V1beta1`, for import aliases. */
function pascal(version: string): string {
  return version.charAt(0).toUpperCase() + version.slice(1);
}

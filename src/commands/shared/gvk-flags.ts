// The --group/--version/--kind/--plural checks every `create` subcommand makes, in one place so a refusal
// reads the same whichever command (create api, its Helm and Ansible forms, create webhook) gave it.
import { OpgenError } from '../../diag/diagnostic.js';
import { checkApiVersion, checkDns1035Label, checkDns1123Label, checkKind, pluralize } from '../../naming/index.js';

/** A flag that must have a value: missing, empty, or swallowing the next flag (`--kind --group x`) is refused. */
export function requiredFlag(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value === '') throw new OpgenError('is required', { flag }, `e.g. ${flag} ${example}`);
  if (value.startsWith('-')) throw new OpgenError(`is missing its value (got "${value}")`, { flag }, `e.g. ${flag} ${example}`);
  return value;
}

export interface GvkFlagValues {
  group?: string;
  version?: string;
  kind?: string;
  plural?: string;
}

/** The flags every form of `create api` takes (plain, --helm-chart, --ansible-role/--ansible-playbook). */
export interface CreateApiFlagValues extends GvkFlagValues {
  force: boolean;
  dryRun: boolean;
  namespaced?: boolean;
  resource?: boolean;
  controller?: boolean;
  controllerName?: string;
  externalApiPath?: string;
  externalApiDomain?: string;
}

export interface CheckedGvk {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

export interface GvkFlagOptions {
  /** Examples the "is required" fixes show. */
  examples?: { group: string; kind: string };
  /** Extra refusal of a valid kind name (e.g. one that clashes with scaffolded imports). */
  checkKind?: (kind: string) => void;
  /** A group accepted without the DNS-label rule (a built-in group such as rbac.authorization). */
  acceptGroup?: (group: string) => boolean;
}

export function checkGvkFlags(o: GvkFlagValues, options: GvkFlagOptions = {}): CheckedGvk {
  const examples = options.examples ?? { group: 'cache', kind: 'Memcached' };
  const group = requiredFlag(o.group, '--group', examples.group);
  const version = requiredFlag(o.version, '--version', 'v1alpha1');
  const kind = requiredFlag(o.kind, '--kind', examples.kind);
  const kindProblem = checkKind(kind);
  if (kindProblem) throw new OpgenError(`invalid kind "${kind}": it ${kindProblem}`, { flag: '--kind' });
  options.checkKind?.(kind);
  const groupProblem = options.acceptGroup?.(group) ? undefined : checkDns1123Label(group);
  if (groupProblem) throw new OpgenError(`invalid group "${group}": it ${groupProblem}`, { flag: '--group' });
  const versionProblem = checkApiVersion(version);
  if (versionProblem) throw new OpgenError(`invalid version "${version}": it ${versionProblem}`, { flag: '--version' });
  if (o.plural !== undefined) {
    const pluralProblem = checkDns1035Label(o.plural);
    if (pluralProblem) throw new OpgenError(`invalid plural "${o.plural}": it ${pluralProblem}`, { flag: '--plural' });
  }
  return { group, version, kind, plural: o.plural ?? pluralize(kind) };
}

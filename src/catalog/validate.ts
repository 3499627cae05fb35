// A file-based catalog checked the way opm does (operator-registry's declcfg.ConvertToModel and
// model.Validate): packages, channels and bundles that refer to each other, one olm.package property per
// bundle with a SemVer version, a default channel that exists, and per channel exactly one head, a
// replaces chain from it without cycles, and no bundle stranded (neither on that chain nor skipped).
import { parseSemVer } from '../olm/semver.js';
import { checkDns1123Label } from '../naming/validate.js';

/** One FBC blob (`schema: olm.package | olm.channel | olm.bundle | …`) and where it was read. */
export interface Meta {
  value: Record<string, unknown>;
  /** file:line:column of the blob. */
  at: string;
}

export interface CatalogProblem {
  at: string;
  check: string;
  message: string;
  fix: string;
}

interface Entry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function validateCatalog(metas: Meta[]): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const add = (at: string, check: string, message: string, fix: string): void => void problems.push({ at, check, message, fix });
  const packages = new Map<string, { at: string; defaultChannel: string; channels: Map<string, { at: string; entries: Entry[] }>; bundles: Map<string, Meta> }>();

  for (const m of metas.filter((x) => x.value.schema === 'olm.package')) {
    const name = str(m.value.name);
    if (name === '') add(m.at, 'package-name', 'olm.package without a name', 'set name');
    else if (packages.has(name)) add(m.at, 'duplicate-package', `package ${name} is declared twice`, 'keep one olm.package blob per package');
    else {
      const bad = checkDns1123Label(name);
      if (bad) add(m.at, 'package-name', `package name '${name}' ${bad}`, 'rename the package');
      packages.set(name, { at: m.at, defaultChannel: str(m.value.defaultChannel), channels: new Map(), bundles: new Map() });
    }
  }
  for (const m of metas.filter((x) => x.value.schema === 'olm.channel')) {
    const pkgName = str(m.value.package);
    const name = str(m.value.name);
    const pkg = packages.get(pkgName);
    if (!pkg) {
      add(m.at, 'channel-package', `channel ${name} belongs to package '${pkgName}', which has no olm.package blob`, 'add the olm.package blob or fix the package name');
      continue;
    }
    if (name === '') {
      add(m.at, 'channel-name', `a channel of package ${pkgName} has no name`, 'set name');
      continue;
    }
    if (pkg.channels.has(name)) {
      add(m.at, 'duplicate-channel', `package ${pkgName} has channel ${name} twice`, 'merge the two olm.channel blobs');
      continue;
    }
    const entries: Entry[] = [];
    const seen = new Set<string>();
    for (const e of Array.isArray(m.value.entries) ? (m.value.entries as Record<string, unknown>[]) : []) {
      const entry: Entry = { name: str(e.name), replaces: str(e.replaces) || undefined, skips: Array.isArray(e.skips) ? e.skips.map(str) : undefined, skipRange: str(e.skipRange) || undefined };
      if (seen.has(entry.name)) add(m.at, 'duplicate-entry', `channel ${name} lists ${entry.name} twice`, 'keep one entry per bundle');
      seen.add(entry.name);
      entries.push(entry);
    }
    pkg.channels.set(name, { at: m.at, entries });
  }
  for (const m of metas.filter((x) => x.value.schema === 'olm.bundle')) {
    const pkgName = str(m.value.package);
    const name = str(m.value.name);
    const pkg = packages.get(pkgName);
    if (pkgName === '' || !pkg) {
      add(m.at, 'bundle-package', pkgName === '' ? `bundle ${name} has no package` : `bundle ${name} belongs to package '${pkgName}', which has no olm.package blob`, 'set package to the olm.package name');
      continue;
    }
    if (pkg.bundles.has(name)) {
      add(m.at, 'duplicate-bundle', `package ${pkgName} has bundle ${name} twice`, 'keep one olm.bundle blob per bundle');
      continue;
    }
    pkg.bundles.set(name, m);
    const props = Array.isArray(m.value.properties) ? (m.value.properties as Record<string, unknown>[]) : [];
    const pkgProps = props.filter((p) => p.type === 'olm.package');
    if (pkgProps.length !== 1) {
      add(m.at, 'package-property', `bundle ${name} has ${pkgProps.length} olm.package properties`, 'give it exactly one {type: olm.package, value: {packageName, version}}');
    } else {
      const v = (pkgProps[0]!.value ?? {}) as Record<string, unknown>;
      if (str(v.packageName) !== pkgName) add(m.at, 'package-property', `bundle ${name}'s olm.package property names package '${str(v.packageName)}', not ${pkgName}`, 'make them agree');
      if (!parseSemVer(str(v.version))) add(m.at, 'bundle-version', `bundle ${name} has version '${str(v.version)}', which is not SemVer`, 'use a version such as 1.2.3');
    }
    if (str(m.value.image) === '' && !(Array.isArray(m.value.properties) && props.some((p) => p.type === 'olm.bundle.object'))) {
      add(m.at, 'bundle-image', `bundle ${name} has no image`, 'set image to the bundle image reference');
    }
    if (![...pkg.channels.values()].some((c) => c.entries.some((e) => e.name === name))) {
      add(m.at, 'bundle-unlisted', `bundle ${name} is in no channel`, 'add an entry for it to a channel, or remove it');
    }
  }

  for (const [pkgName, pkg] of [...packages].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (pkg.channels.size === 0) add(pkg.at, 'no-channels', `package ${pkgName} has no channels`, 'add an olm.channel blob');
    if (pkg.defaultChannel === '') add(pkg.at, 'default-channel', `package ${pkgName} has no defaultChannel`, 'set defaultChannel to one of its channels');
    else if (!pkg.channels.has(pkg.defaultChannel)) add(pkg.at, 'default-channel', `package ${pkgName}'s default channel ${pkg.defaultChannel} is not one of its channels (${[...pkg.channels.keys()].sort().join(', ') || 'none'})`, 'name an existing channel');
    for (const [name, ch] of [...pkg.channels].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const missing = ch.entries.filter((e) => !pkg.bundles.has(e.name)).map((e) => e.name);
      if (missing.length > 0) add(ch.at, 'entry-without-bundle', `channel ${name} lists ${missing.join(', ')}, which ${missing.length > 1 ? 'have' : 'has'} no olm.bundle blob`, 'render the bundle into the catalog or drop the entry');
      for (const e of ch.entries) (e.skips ?? []).forEach((s, i) => s === '' && add(ch.at, 'skip-empty', `channel ${name}: ${e.name} skips[${i}] is empty`, 'remove the empty skip'));
      if (ch.entries.length === 0) {
        add(ch.at, 'empty-channel', `channel ${name} has no entries`, 'add entries or remove the channel');
        continue;
      }
      const problem = replacesChainProblem(ch.entries);
      if (problem) add(ch.at, problem.check, `channel ${name}: ${problem.message}`, problem.fix);
    }
  }
  return problems;
}

/** opm's rules for a channel's upgrade graph; the first broken one. */
export function replacesChainProblem(entries: Entry[]): { check: string; message: string; fix: string } | undefined {
  const incoming = new Set(entries.flatMap((e) => [e.replaces ?? '', ...(e.skips ?? [])]).filter((n) => n !== ''));
  const heads = entries.filter((e) => !incoming.has(e.name)).map((e) => e.name).sort();
  if (heads.length === 0) return { check: 'head', message: 'no head: every entry is replaced or skipped by another', fix: 'break the loop so the newest bundle is replaced by none' };
  if (heads.length > 1) return { check: 'head', message: `${heads.length} heads (${heads.join(', ')})`, fix: 'let the newest bundle replace (or skip) the others, so exactly one is replaced by none' };
  const byName = new Map(entries.map((e) => [e.name, e]));
  const chain = [heads[0]!];
  const onChain = new Set(chain);
  for (let cur = byName.get(heads[0]!); cur?.replaces; cur = byName.get(cur.replaces)) {
    if (onChain.has(cur.replaces)) return { check: 'cycle', message: `replaces cycle ${[...chain.slice(chain.indexOf(cur.replaces)), cur.replaces].join(' -> ')}`, fix: 'make the chain run from the newest bundle down to the oldest once' };
    chain.push(cur.replaces);
    onChain.add(cur.replaces);
  }
  const skipped = new Set(entries.flatMap((e) => e.skips ?? []));
  const stranded = entries.map((e) => e.name).filter((n) => !onChain.has(n) && !skipped.has(n)).sort();
  if (stranded.length > 0) return { check: 'stranded', message: `${stranded.join(', ')} ${stranded.length > 1 ? 'are' : 'is'} not reachable from the head ${heads[0]} (neither on its replaces chain nor skipped)`, fix: 'link each bundle into the replaces chain, or skip it from a newer one' };
  return undefined;
}

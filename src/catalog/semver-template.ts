// operator-registry's semver catalog template (`schema: olm.semver`, what `opm alpha render-template
// semver` reads): bundles listed under candidate, fast and stable; channels generated per minor version
// (`stable-v1.2`, the default) and/or per major version (`stable-v1`), each linked so that within a minor
// version the newest bundle skips the older ones and each minor version's newest bundle replaces the
// previous minor version's. The package's default channel is the most stable channel with the newest
// version. Same algorithm as operator-registry's alpha/template/semver, so the graph is the one opm renders.
import { compareSemVer, type SemVer } from '../olm/semver.js';

export const ARCHETYPES = ['candidate', 'fast', 'stable'] as const; // least to most stable
export type Archetype = (typeof ARCHETYPES)[number];
export type StreamType = 'minor' | 'major';

export interface SemverTemplate {
  schema: 'olm.semver';
  generateMajorChannels?: boolean;
  generateMinorChannels?: boolean;
  defaultChannelTypePreference?: StreamType;
  candidate?: { bundles?: { image: string }[] };
  fast?: { bundles?: { image: string }[] };
  stable?: { bundles?: { image: string }[] };
}

export interface RenderedBundle {
  /** The CSV name, e.g. memcached-operator.v0.2.0. */
  name: string;
  version: SemVer;
}

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
}

export interface Channel {
  name: string;
  entries: ChannelEntry[];
}

/** The template's settings with opm's defaults applied (minor channels when neither is asked for); throws on a preference that names no generated kind. */
export function templateSettings(t: SemverTemplate): { major: boolean; minor: boolean; preference: StreamType } {
  const major = t.generateMajorChannels === true;
  let minor = t.generateMinorChannels === true;
  if (!major && !minor) minor = true;
  const preference = t.defaultChannelTypePreference ?? (minor ? 'minor' : 'major');
  if (preference === 'minor' && !minor) throw new Error("defaultChannelTypePreference 'minor' needs generateMinorChannels: true");
  if (preference === 'major' && !major) throw new Error("defaultChannelTypePreference 'major' needs generateMajorChannels: true");
  return { major, minor, preference };
}

const minorKey = (v: SemVer): string => `${v.major}.${v.minor}`;
const sameVersion = (a: SemVer, b: SemVer): boolean => compareSemVer(a, b) === 0;

interface Highwater {
  archetype: number;
  kind: StreamType | '';
  version: SemVer;
  name: string;
}

function higher(h: Highwater, than: Highwater, pref: StreamType): boolean {
  if (h.archetype !== than.archetype) return h.archetype > than.archetype;
  if (!sameVersion(h.version, than.version)) return compareSemVer(h.version, than.version) > 0;
  if (h.kind !== than.kind) {
    if (h.kind === pref) return true;
    if (than.kind === pref) return false;
    const rank = { minor: 2, major: 1, '': 0 };
    return rank[h.kind] > rank[than.kind];
  }
  return false;
}

/**
 * Channels (sorted by name) and the default channel for bundles listed per archetype. `bundles` maps
 * each archetype to its bundles (each bundle's name and version).
 */
export function generateChannels(byArchetype: Record<Archetype, RenderedBundle[]>, o: { major: boolean; minor: boolean; preference: StreamType }): { channels: Channel[]; defaultChannel: string } {
  const unlinked = new Map<string, Channel>();
  const versions = new Map<string, SemVer>();
  let hw: Highwater = { archetype: 0, kind: '', version: { major: 0, minor: 0, patch: 0, pre: [], build: '' }, name: '' };
  ARCHETYPES.forEach((archetype, rank) => {
    const bundles = [...byArchetype[archetype]].sort((a, b) => compareSemVer(a.version, b.version));
    for (const b of bundles) {
      if (!versions.has(b.name)) versions.set(b.name, b.version);
      // opm creates the major and the minor channel of a bundle in either order; the preference decides a tie.
      const names: [StreamType, string][] = [];
      if (o.major) names.push(['major', `${archetype}-v${b.version.major}`]);
      if (o.minor) names.push(['minor', `${archetype}-v${b.version.major}.${b.version.minor}`]);
      for (const [kind, name] of names) {
        let ch = unlinked.get(name);
        if (!ch) {
          ch = { name, entries: [] };
          unlinked.set(name, ch);
          const candidate: Highwater = { archetype: rank, kind, version: b.version, name };
          if (higher(candidate, hw, o.preference)) hw = candidate;
        }
        ch.entries.push({ name: b.name });
      }
    }
  });
  const channels = [...unlinked.values()].map((ch) => link(ch, versions)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { channels, defaultChannel: hw.name };
}

/** operator-registry's linkChannels ("inchworm" over the entries in version order). */
function link(ch: Channel, versions: Map<string, SemVer>): Channel {
  const v = (e: ChannelEntry): SemVer => versions.get(e.name)!;
  const entries = [...ch.entries].sort((a, b) => compareSemVer(v(a), v(b))).map((e) => ({ ...e }));
  const n = entries.length;
  let cur = 0;
  let probe = 0;
  let zmax = '';
  while (cur < n) {
    while (probe < n && minorKey(v(entries[probe]!)) === minorKey(v(entries[cur]!))) probe++;
    const pre = probe - 1;
    if (cur !== probe) {
      if (zmax !== '') entries[pre]!.replaces = zmax;
      zmax = entries[pre]!.name;
    }
    for (; cur < pre; cur++) {
      if (entries[pre]!.replaces !== entries[cur]!.name) entries[pre]!.skips = [...(entries[pre]!.skips ?? []), entries[cur]!.name];
    }
    cur++;
    probe = cur + 1;
  }
  // The inchworm misses a minor-version change at the very end (opm compares the minor number alone here).
  if (n > 1 && v(entries[n - 1]!).minor !== v(entries[n - 2]!).minor) entries[n - 1]!.replaces = entries[n - 2]!.name;
  return { name: ch.name, entries };
}

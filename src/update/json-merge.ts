// A 3-way merge of JSON files by structure instead of by line: npm (and every tool reading package.json)
// stops at a conflict marker, so a JSON file opgen update writes must parse. Objects merge key by key
// (a change on one side wins; equal changes agree); what both sides changed differently is a conflict,
// settled as yours and listed. In package.json's dependency sections the version you installed is not a
// conflict: it wins (installing the new opgen is how an update starts).

/** Sections of package.json whose entries are packages with the version range installed. */
const DEPENDENCY_SECTIONS = new Set(['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface JsonMerge {
  text: string;
  /** Paths (`scripts.build`) both sides changed differently; the text keeps yours there. */
  conflicts: string[];
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

function parse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** The merged text, or undefined when a side is not plain JSON (comments, a conflict already in it). */
export function mergeJson(path: string, ours: string, base: string, theirs: string): JsonMerge | undefined {
  const [o, b, t] = [parse(ours), parse(base), parse(theirs)];
  if (o === undefined || t === undefined || (b === undefined && base.trim() !== '')) return undefined;
  const conflicts: string[] = [];
  const packageJson = path === 'package.json' || path.endsWith('/package.json');
  const merged = merge3(o, b, t, [], conflicts, packageJson ? installedPackages(o) : new Set());
  return { text: `${JSON.stringify(merged, null, indentOf(ours))}\n`, conflicts };
}

/** Every package your package.json lists, in any dependency section: the new scaffold does not add it to another. */
function installedPackages(ours: Json): Set<string> {
  if (!isObject(ours)) return new Set();
  return new Set(Object.entries(ours).filter(([k, v]) => DEPENDENCY_SECTIONS.has(k) && isObject(v)).flatMap(([, v]) => Object.keys(v as object)));
}

function merge3(ours: Json | undefined, base: Json | undefined, theirs: Json | undefined, at: string[], conflicts: string[], installed: Set<string>): Json | undefined {
  if (same(ours, theirs) || same(theirs, base)) return ours;
  if (same(ours, base)) {
    // The new scaffold's change. A package you already have in another section keeps its place.
    const inDependencies = at.length === 2 && DEPENDENCY_SECTIONS.has(at[0]!);
    if (inDependencies && ours === undefined && installed.has(at[1]!)) return undefined;
    return theirs;
  }
  // npm drops a dependency section it emptied (moving a package to devDependencies): merge its entries.
  if (ours === undefined && at.length === 1 && DEPENDENCY_SECTIONS.has(at[0]!) && isObject(theirs)) {
    const merged = merge3({}, base, theirs, at, conflicts, installed) as { [key: string]: Json };
    return Object.keys(merged).length > 0 ? merged : undefined;
  }
  if (isObject(ours) && isObject(theirs)) {
    const b = isObject(base) ? base : {};
    const out: { [key: string]: Json } = {};
    // Your key order, then the keys the new scaffold adds; a dependency section sorted as npm sorts it.
    const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])];
    if (at.length === 1 && DEPENDENCY_SECTIONS.has(at[0]!)) keys.sort((x, y) => x.localeCompare(y, 'en'));
    for (const key of keys) {
      const v = merge3(ours[key], b[key], theirs[key], [...at, key], conflicts, installed);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  // Both changed it differently. In a dependency section yours is the version you installed: it wins.
  if (!(at.length === 2 && DEPENDENCY_SECTIONS.has(at[0]!))) conflicts.push(at.join('.'));
  return ours;
}

function indentOf(text: string): string | number {
  const m = /^\{\r?\n([ \t]+)"/.exec(text);
  return m ? m[1]! : 2;
}

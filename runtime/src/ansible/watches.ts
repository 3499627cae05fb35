// watches.yaml: which role or playbook serves which kind, in operator-sdk's Ansible operator shape (the
// same keys, defaults and role lookup), so its users' files load unchanged. Read strictly: an unknown key,
// a missing role or playbook, or a second entry for one GVK is refused with file:line:col and the fix,
// at the manager's start and by `opgen generate`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';

export interface GroupVersionKind { group: string; version: string; kind: string }

export interface AnsibleFinalizer {
  name: string;
  /** Absolute paths once loaded; neither set: the watch's own role or playbook runs, with `vars`. */
  role?: string;
  playbook?: string;
  vars?: Record<string, unknown>;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface AnsibleWatch extends GroupVersionKind {
  /** Absolute path of the role folder, or of the playbook; exactly one is set. */
  role?: string;
  playbook?: string;
  vars: Record<string, unknown>;
  /** Artifact folders ansible-runner keeps per object (--rotate-artifacts); default 20. */
  maxRunnerArtifacts: number;
  /** Re-run after a successful run this long after it, in ms; 0 (default) = only on changes. */
  reconcilePeriodMs: number;
  manageStatus: boolean;
  watchDependentResources: boolean;
  watchClusterScopedResources: boolean;
  snakeCaseParameters: boolean;
  watchAnnotationsChanges: boolean;
  markUnsafe: boolean;
  blacklist: GroupVersionKind[];
  finalizer?: AnsibleFinalizer;
  selector: LabelSelector;
}

/** A watches.yaml that cannot be served: where, what, and how to fix it. */
export class WatchesError extends Error {
  constructor(readonly file: string, readonly line: number, readonly column: number, readonly problem: string, readonly fix: string) {
    super(`${file}:${line}:${column}: ${problem}; ${fix}`);
    this.name = 'WatchesError';
  }
}

const keys = ['group', 'version', 'kind', 'role', 'playbook', 'vars', 'maxRunnerArtifacts', 'reconcilePeriod', 'manageStatus',
  'watchDependentResources', 'watchClusterScopedResources', 'snakeCaseParameters', 'watchAnnotationsChanges', 'markUnsafe',
  'blacklist', 'finalizer', 'selector'] as const;
const finalizerKeys = ['name', 'role', 'playbook', 'vars'] as const;

export interface LoadWatchesOptions {
  /** Where relative roles and playbooks are found (operator-sdk: the working directory); default the file's folder. */
  rootDir?: string;
  /** ANSIBLE_ROLES_PATH, searched before <rootDir>/roles as operator-sdk does; default the environment's. */
  rolesPath?: string;
}

/** Reads and checks a watches.yaml; throws a WatchesError at the first problem. */
export function loadWatches(file: string, opts: LoadWatchesOptions = {}): AnsibleWatch[] {
  if (!existsSync(file)) throw new WatchesError(file, 1, 1, 'no such file', 'run `opgen create api --ansible-role` or pass the path of your watches.yaml');
  return parseWatches(readFileSync(file, 'utf8'), file, opts);
}

export function parseWatches(text: string, file: string, opts: LoadWatchesOptions = {}): AnsibleWatch[] {
  const lines = new LineCounter();
  // ${VAR} is replaced from the environment before parsing, as operator-sdk does; an unset one stays.
  const expanded = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (all, name: string) => process.env[name] ?? all);
  const doc = parseDocument(expanded, { lineCounter: lines, prettyErrors: false });
  const at = (node: Node | null | undefined): [number, number] => {
    const p = lines.linePos(node?.range?.[0] ?? 0);
    return [p.line, p.col];
  };
  const fail = (node: Node | null | undefined, problem: string, fix: string): never => {
    throw new WatchesError(file, ...at(node), problem, fix);
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const p = lines.linePos(e.pos[0]);
    throw new WatchesError(file, p.line, p.col, `not YAML: ${e.message.split('\n')[0]}`, 'fix the YAML syntax');
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return [];
  if (!isSeq(root)) return fail(root, 'watches.yaml must be a list of entries', 'write `- group: …` entries, one per kind');

  const rootDir = opts.rootDir ?? dirname(file);
  const rolesPath = opts.rolesPath ?? process.env.ANSIBLE_ROLES_PATH ?? '';
  const seen = new Map<string, number>();
  const out: AnsibleWatch[] = [];
  for (const item of root.items) {
    if (!isMap(item)) return fail(item as Node, 'an entry must be a mapping', 'write group, version, kind and role or playbook');
    const entry = item as YAMLMap;
    const get = strictKeys(entry, keys, fail, 'an entry');
    const str = (key: string, required: boolean): string | undefined => {
      const n = get(key);
      if (n === undefined) return required ? fail(entry, `${key} is missing`, `add \`${key}:\``) : undefined;
      if (!isScalar(n) || typeof n.value !== 'string' || n.value === '') return fail(n, `${key} must be a non-empty string`, `give ${key} a value`);
      return n.value;
    };
    const bool = (key: string, dflt: boolean): boolean => {
      const n = get(key);
      if (n === undefined) return dflt;
      if (!isScalar(n) || typeof n.value !== 'boolean') return fail(n, `${key} must be true or false`, `write ${key}: ${dflt}`);
      return n.value;
    };
    const gvk = { group: str('group', false) ?? '', version: str('version', true)!, kind: str('kind', true)! };
    const id = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    if (seen.has(id)) return fail(entry, `a second entry for ${gvk.kind}.${gvk.group}/${gvk.version} (the first is on line ${seen.get(id)})`, 'keep one entry per group, version and kind');
    seen.set(id, at(entry)[0]);

    const resolveRole = (node: Node, name: string): string => {
      const candidates = isAbsolute(name) ? [name] : [
        ...rolesPath.split(':').filter(Boolean).flatMap((d) => [join(d, name), join(d, 'roles', name)]),
        join(rootDir, 'roles', name),
      ];
      const found = candidates.find((c) => existsSync(c) && statSync(c).isDirectory());
      return found ?? fail(node, `role ${name} not found (looked in ${candidates.map((c) => relative(rootDir, c) || '.').join(', ')})`, `create roles/${name} (opgen create api --ansible-role) or fix the name`);
    };
    const resolvePlaybook = (node: Node, path: string): string => {
      const full = isAbsolute(path) ? path : join(rootDir, path);
      return existsSync(full) && statSync(full).isFile() ? full : fail(node, `playbook ${path} not found`, 'create it or fix the path (relative to the folder of watches.yaml)');
    };
    const role = str('role', false);
    const playbook = str('playbook', false);
    if (role && playbook) fail(get('playbook')!, 'role and playbook are both set', 'keep one of them');
    if (!role && !playbook) fail(entry, `${gvk.kind} names no role or playbook`, 'add `role: <name>` or `playbook: <file>`');

    const periodNode = get('reconcilePeriod');
    let reconcilePeriodMs = 0;
    if (periodNode !== undefined) {
      const v = isScalar(periodNode) ? periodNode.value : undefined;
      const ms = typeof v === 'string' ? parseDuration(v) : undefined;
      reconcilePeriodMs = ms ?? fail(periodNode, `reconcilePeriod ${JSON.stringify(v)} is not a duration`, 'write a Go duration such as 30s, 5m or 1h30m');
    }
    const artifactsNode = get('maxRunnerArtifacts');
    let maxRunnerArtifacts = 20;
    if (artifactsNode !== undefined) {
      const v = isScalar(artifactsNode) ? artifactsNode.value : undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(artifactsNode, 'maxRunnerArtifacts must be a whole number', 'write e.g. maxRunnerArtifacts: 20');
      maxRunnerArtifacts = (v as number) || 20; // 0 means the default, as in operator-sdk
    }
    const vars = plainMap(get('vars'), 'vars', fail);

    let finalizer: AnsibleFinalizer | undefined;
    const finNode = get('finalizer');
    if (finNode !== undefined) {
      if (!isMap(finNode)) fail(finNode, 'finalizer must be a mapping', 'write name and role, playbook or vars');
      const fget = strictKeys(finNode as YAMLMap, finalizerKeys, fail, 'finalizer');
      const fstr = (key: string): string | undefined => {
        const n = fget(key);
        if (n === undefined) return undefined;
        return isScalar(n) && typeof n.value === 'string' && n.value !== '' ? n.value : fail(n, `finalizer.${key} must be a non-empty string`, `give finalizer.${key} a value`);
      };
      const name = fstr('name') ?? fail(finNode, 'finalizer has no name', 'add `name: <domain>/finalizer`, e.g. cache.example.com/finalizer');
      const frole = fstr('role');
      const fplaybook = fstr('playbook');
      const fvars = plainMap(fget('vars'), 'finalizer.vars', fail);
      if (!frole && !fplaybook && Object.keys(fvars).length === 0) fail(finNode, 'finalizer has no role, playbook or vars', 'add the role or playbook to run on deletion, or vars for the watch\'s own one');
      finalizer = {
        name,
        ...(frole ? { role: resolveRole(fget('role')!, frole) } : {}),
        ...(fplaybook ? { playbook: resolvePlaybook(fget('playbook')!, fplaybook) } : {}),
        vars: fvars,
      };
    }

    const blNode = get('blacklist');
    const blacklist: GroupVersionKind[] = [];
    if (blNode !== undefined) {
      if (!isSeq(blNode)) fail(blNode, 'blacklist must be a list', 'write `- {group: apps, version: v1, kind: ReplicaSet}` items');
      for (const b of (blNode as { items: unknown[] }).items) {
        const v = isMap(b) ? (b as YAMLMap).toJSON() as Record<string, unknown> : undefined;
        if (!v || typeof v.kind !== 'string' || typeof v.version !== 'string') fail(b as Node, 'a blacklist item needs version and kind', 'write {group, version, kind}');
        blacklist.push({ group: String(v!.group ?? ''), version: String(v!.version), kind: String(v!.kind) });
      }
    }
    const selector = plainMap(get('selector'), 'selector', fail) as LabelSelector;

    out.push({
      ...gvk,
      ...(role ? { role: resolveRole(get('role')!, role) } : {}),
      ...(playbook ? { playbook: resolvePlaybook(get('playbook')!, playbook) } : {}),
      vars,
      maxRunnerArtifacts,
      reconcilePeriodMs,
      manageStatus: bool('manageStatus', true),
      watchDependentResources: bool('watchDependentResources', true),
      watchClusterScopedResources: bool('watchClusterScopedResources', false),
      snakeCaseParameters: bool('snakeCaseParameters', true),
      watchAnnotationsChanges: bool('watchAnnotationsChanges', false),
      markUnsafe: bool('markUnsafe', false),
      blacklist,
      ...(finalizer ? { finalizer } : {}),
      selector,
    });
  }
  return out;
}

type Fail = (node: Node | null | undefined, problem: string, fix: string) => never;

/** A getter for a mapping's keys that refuses a key outside `allowed`, naming the closest known one. */
function strictKeys(map: YAMLMap, allowed: readonly string[], fail: Fail, what: string): (key: string) => Node | undefined {
  const byKey = new Map<string, Node>();
  for (const pair of map.items) {
    const k = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!allowed.includes(k)) {
      const near = allowed.find((a) => a.toLowerCase() === k.toLowerCase()) ?? allowed.find((a) => editDistance(a, k) <= 2);
      fail(pair.key as Node, `unknown key ${JSON.stringify(k)} in ${what}`, near ? `did you mean ${near}?` : `the keys are ${allowed.join(', ')}`);
    }
    byKey.set(k, pair.value as Node);
  }
  return (key) => byKey.get(key);
}

function plainMap(node: Node | undefined, key: string, fail: Fail): Record<string, unknown> {
  if (node === undefined || (isScalar(node) && node.value === null)) return {};
  if (!isMap(node)) return fail(node, `${key} must be a mapping`, `write ${key} as key: value lines`);
  return (node as YAMLMap).toJSON() as Record<string, unknown>;
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length]![b.length]!;
}

const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (time.ParseDuration: 1h30m, 45s, 250ms) in ms; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]!]!;
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? total : undefined;
}

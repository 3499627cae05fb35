// `opgen init --sharded` and `opgen edit --sharded[=false]`: every replica active, each reconciling its
// share of the objects (docs/sharding.md). Three places change, and `edit` writes each as `init` renders
// it, so that init + edit --sharded gives the same bytes as init --sharded (and --sharded=false goes
// back byte for byte): createManager's `sharding: true` in src/main.ts, the Deployment's replicas in
// config/manager/manager.yaml, and the shard Lease verbs in the leader-election Role, which a project
// scaffolded by this opgen already grants.
import { isMap, isScalar, isSeq, parseAllDocuments, type YAMLMap } from 'yaml';
import type { ts } from 'ts-morph';
import { loadTypeScript } from '../../common/typescript-loader.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { renderPartial, type Tree } from '../../scaffold/index.js';

const MANAGER = 'config/manager/manager.yaml';
const MAIN = 'src/main.ts';
const LEASE_ROLE = 'config/rbac/leader_election_role.yaml';
/** What @opgen/runtime's sharding does with Leases in its namespace: list the ring, create, renew (PUT) and delete its own and expired ones. */
const SHARD_LEASE_VERBS = ['get', 'list', 'create', 'update', 'delete'];
export const DEFAULT_REPLICAS = 3;

/** --replicas checked: a whole number ≥ 2 with --sharded (default 3), and refused without it. */
export function shardedReplicas(sharded: boolean, replicas: string | undefined): number {
  if (!sharded) {
    if (replicas !== undefined) throw new OpgenError('applies only to a sharded project', { flag: '--replicas' }, 'add --sharded, or drop --replicas');
    return 1;
  }
  if (replicas === undefined) return DEFAULT_REPLICAS;
  const n = Number(replicas);
  if (!/^\d+$/.test(replicas) || n < 2) throw new OpgenError(`must be a whole number of at least 2, got '${replicas}'`, { flag: '--replicas' }, 'sharding spreads the objects over several replicas, e.g. --replicas 3');
  return n;
}

/** Stages the switch; returns notes for the user. Throws an OpgenError (nothing written) for files it cannot edit. */
export function switchSharded(tree: Tree, on: boolean, replicas: number): string[] {
  const notes: string[] = [];
  tree.write(MAIN, setShardingOption(tree, on));
  tree.write(MANAGER, setReplicas(tree, on, replicas));
  if (on) notes.push(...grantShardLeases(tree));
  notes.push(
    on
      ? `Sharded: ${replicas} active replicas. config/overlays/staging sets its own replica count (2), and config/overlays/dev one replica.`
      : 'Not sharded: one active replica (config/manager/manager.yaml replicas: 1).',
  );
  return notes;
}

/** src/main.ts with `sharding: true` added to (or the sharding option removed from) the createManager({...}) call. */
function setShardingOption(tree: Tree, on: boolean): string {
  const text = tree.read(MAIN);
  if (text === undefined) throw new OpgenError(`${MAIN} not found`, { file: MAIN }, 'restore it (opgen init writes it) to switch sharding');
  // Loaded here, not at the top: `opgen init` imports this file for --replicas alone.
  const tsc = loadTypeScript();
  const source = tsc.createSourceFile(MAIN, text, tsc.ScriptTarget.Latest, true);
  const options = findCreateManagerOptions(tsc, source);
  if (!options) {
    throw new OpgenError('no createManager({ ... }) call with an object literal', { file: MAIN }, `pass ${on ? '`sharding: true`' : 'no `sharding` option'} to createManager by hand`);
  }
  const existing = options.properties.find((p) => p.name !== undefined && tsc.isIdentifier(p.name) && p.name.text === 'sharding');
  if (!on) {
    if (!existing) return text;
    // The property with its leading comment lines, and its comma.
    const end = text[existing.end] === ',' ? existing.end + 1 : existing.end;
    return text.slice(0, existing.getFullStart()) + text.slice(end);
  }
  if (existing) return text;
  const last = options.properties[options.properties.length - 1];
  if (!last) {
    const at = options.getStart() + 1;
    return `${text.slice(0, at)}\n${renderPartial('main-sharding', {})}${text.slice(at)}`;
  }
  const comma = text.slice(last.end).match(/^\s*,/);
  const head = comma ? text.slice(0, last.end + comma[0].length) : `${text.slice(0, last.end)},`;
  const rest = comma ? text.slice(last.end + comma[0].length) : text.slice(last.end);
  const eol = rest.indexOf('\n');
  return `${head}${rest.slice(0, eol + 1)}${renderPartial('main-sharding', {})}${rest.slice(eol + 1)}`;
}

function findCreateManagerOptions(tsc: typeof ts, node: ts.Node): ts.ObjectLiteralExpression | undefined {
  if (tsc.isCallExpression(node) && tsc.isIdentifier(node.expression) && node.expression.text === 'createManager') {
    const arg = node.arguments[0];
    return arg && tsc.isObjectLiteralExpression(arg) ? arg : undefined;
  }
  return tsc.forEachChild(node, (child) => findCreateManagerOptions(tsc, child));
}

/** manager.yaml with the Deployment's replicas (and init's comment above it) as init renders them. */
function setReplicas(tree: Tree, on: boolean, replicas: number): string {
  const text = tree.read(MANAGER);
  if (text === undefined) throw new OpgenError(`${MANAGER} not found`, { file: MANAGER }, 'restore it (opgen init writes it) to switch sharding');
  const deployment = parseAllDocuments(text).find((d) => d.get('kind') === 'Deployment');
  const node = deployment?.getIn(['spec', 'replicas'], true);
  if (!isScalar(node) || !node.range) {
    throw new OpgenError('no spec.replicas in the Deployment', { file: MANAGER }, 'add `replicas: 1` under the controller-manager Deployment\'s spec');
  }
  const lines = text.split('\n');
  let index = text.slice(0, node.range[0]).split('\n').length - 1;
  // init's comment for a sharded Deployment goes with the line; any other comment is the user's and stays.
  const ours = renderPartial('manager-replicas', { sharded: true, replicas: 0 }).split('\n').filter((l) => l.trimStart().startsWith('#'));
  let first = index;
  for (let k = ours.length - 1; k >= 0 && first > 0 && lines[first - 1] === ours[k]; k--) first--;
  if (index - first !== ours.length) first = index;
  const indent = /^\s*/.exec(lines[index]!)![0];
  const rendered = renderPartial('manager-replicas', { sharded: on, replicas }).replace(/\n$/, '').split('\n');
  // The partial is written for the indent init uses; keep the file's own.
  const reindented = rendered.map((l) => indent + l.replace(/^ {2}/, ''));
  lines.splice(first, index - first + 1, ...reindented);
  return lines.join('\n');
}

/** Adds the verbs sharding needs to the leader-election Role's leases rule, when an older or edited Role lacks them. */
function grantShardLeases(tree: Tree): string[] {
  const text = tree.read(LEASE_ROLE);
  if (text === undefined) {
    return [`${LEASE_ROLE} not found: grant the manager's service account ${SHARD_LEASE_VERBS.join(', ')} on coordination.k8s.io leases in its namespace.`];
  }
  const docs = parseAllDocuments(text);
  const rules = docs[0]?.get('rules', true);
  const rule = isSeq(rules)
    ? rules.items.find((r): r is YAMLMap => isMap(r) && listOf(r, 'apiGroups').includes('coordination.k8s.io') && listOf(r, 'resources').includes('leases'))
    : undefined;
  if (!rule) return [`${LEASE_ROLE} has no rule for coordination.k8s.io leases: grant ${SHARD_LEASE_VERBS.join(', ')} on them.`];
  const missing = SHARD_LEASE_VERBS.filter((v) => !listOf(rule, 'verbs').includes(v) && !listOf(rule, 'verbs').includes('*'));
  if (missing.length === 0) return [];
  const verbs = rule.get('verbs', true);
  if (isSeq(verbs)) for (const v of missing) verbs.add(v);
  else rule.set('verbs', [...listOf(rule, 'verbs'), ...missing]);
  tree.write(LEASE_ROLE, docs.map((d) => d.toString({ lineWidth: 0, indentSeq: false })).join(''));
  return [`${LEASE_ROLE}: added ${missing.join(', ')} on leases (the shard Leases).`];
}

function listOf(map: YAMLMap, key: string): string[] {
  const v = map.get(key);
  return isSeq(v) ? v.items.map((i) => String(isScalar(i) ? i.value : i)) : [];
}

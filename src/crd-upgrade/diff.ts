// Is upgrading a CRD from `old` to `new` safe for the objects already stored and the clients already
// written? The checks operator-controller's CRD upgrade-safety preflight runs (sigs.k8s.io/crdify with
// its configuration: every validation an error, descriptions ignored, enum additions allowed, served
// versions not compared when a conversion webhook converts), with the same verdicts, plus the rules of
// the guide's chapter on evolving a schema, marked as opgen's own ('guide').
import { compareKubeVersions, canonicalJson, flattenSchema, normalize, semanticEqual, withoutChildren, type Schema } from './schema.js';

export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema?: Schema };
}

export interface Crd {
  metadata?: { name?: string };
  spec?: { scope?: string; conversion?: { strategy?: string }; versions?: CrdVersion[] };
  status?: { storedVersions?: string[] | null };
}

export interface Finding {
  /** 'preflight': operator-controller refuses the upgrade; 'guide': opgen's schema-evolution rules. */
  origin: 'preflight' | 'guide';
  level: 'error' | 'warning';
  /** crdify's validation name (scope, storedVersionRemoval, required, enum, …) or the guide rule's. */
  rule: string;
  /** 'crd' for the whole CRD, a version name, or a pair of served versions 'v1alpha1 -> v1'. */
  where: string;
  /** crdify's field path: `^.spec.replicas`, `^.spec.items[*].name` (for a removed field `<version>.<path>`). */
  path?: string;
  /** What changed. */
  message: string;
  /** Why stored objects or clients break. */
  why: string;
  fix: string;
}

const DEFAULT_WHY = 'the API server applies defaults to stored objects when it reads them, so existing objects change value without anyone writing them';
const BOUND_WHY = 'stored objects with values outside the new bound fail validation on their next update, and clients that send such values are refused';

interface Result {
  rule: string;
  message: string;
  /** What crdify's message holds (for an unhandled change, both remaining schemas): equal keys, same problem. */
  key?: string;
  why: string;
  fix: string;
}

/** crdify's property comparators plus its check for any other change, on one field path. */
function compareProperty(oldS: Schema, newS: Schema): Result[] {
  const a: Schema = { ...oldS };
  const b: Schema = { ...newS };
  const out: Result[] = [];
  const take = (k: string): [unknown, unknown] => {
    const pair: [unknown, unknown] = [a[k], b[k]];
    delete a[k];
    delete b[k];
    return pair;
  };

  const [oldDefault, newDefault] = take('default').map((v) => (v === null || v === undefined ? undefined : canonicalJson(v)));
  if (oldDefault === undefined && newDefault !== undefined) out.push({ rule: 'default', message: `default ${newDefault} added where there was none`, why: DEFAULT_WHY, fix: 'leave the field without a default, or add the field anew under another name' });
  else if (oldDefault !== undefined && newDefault === undefined) out.push({ rule: 'default', message: `default ${oldDefault} removed`, why: 'objects stored without the field relied on the default; after the upgrade they read back without it', fix: 'keep the default' });
  else if (oldDefault !== newDefault) out.push({ rule: 'default', message: `default changed from ${oldDefault} to ${newDefault}`, why: DEFAULT_WHY, fix: 'keep the old default' });

  const [oldEnum, newEnum] = take('enum').map((v) => new Set(Array.isArray(v) ? v.map(canonicalJson) : []));
  const removedValues = [...oldEnum!].filter((e) => !newEnum!.has(e)).sort();
  if (oldEnum!.size === 0 && newEnum!.size > 0) out.push({ rule: 'enum', message: `enum [${[...newEnum!].sort().join(', ')}] added where any value was allowed`, why: 'stored objects with other values fail validation on their next update, and clients sending them are refused', fix: 'validate the new values in the controller or a webhook instead, or add the field anew' });
  else if (removedValues.length > 0) out.push({ rule: 'enum', message: `enum values [${removedValues.join(', ')}] removed`, why: 'stored objects holding a removed value fail validation on their next update, and clients sending it are refused', fix: 'keep the values in the enum (stop using them in the controller; say in the description they are deprecated)' });

  for (const k of ['maximum', 'maxItems', 'maxLength', 'maxProperties'] as const) {
    const [o, n] = take(k) as [number | undefined, number | undefined];
    if (o === undefined && n !== undefined) out.push({ rule: k, message: `${k} ${n} added where there was none`, why: BOUND_WHY, fix: `drop ${k}, or enforce it for new objects only in a webhook` });
    else if (o !== undefined && n !== undefined && n < o) out.push({ rule: k, message: `${k} lowered from ${o} to ${n}`, why: BOUND_WHY, fix: `keep ${k} at ${o} or raise it` });
  }
  for (const k of ['minimum', 'minItems', 'minLength', 'minProperties'] as const) {
    const [o, n] = take(k) as [number | undefined, number | undefined];
    if (o === undefined && n !== undefined) out.push({ rule: k, message: `${k} ${n} added where there was none`, why: BOUND_WHY, fix: `drop ${k}, or enforce it for new objects only in a webhook` });
    else if (o !== undefined && n !== undefined && n > o) out.push({ rule: k, message: `${k} raised from ${o} to ${n}`, why: BOUND_WHY, fix: `keep ${k} at ${o} or lower it` });
  }

  const [oldReq, newReq] = take('required').map((v) => new Set(Array.isArray(v) ? (v as string[]) : []));
  const added = [...newReq!].filter((r) => !oldReq!.has(r)).sort();
  if (added.length > 0) out.push({ rule: 'required', message: `newly required: ${added.join(', ')}`, why: 'objects stored without it fail validation on their next update (even a status update), and clients that do not send it are refused', fix: 'make it optional (the preflight refuses a new required field even with a default); give it a default and handle absence in the controller' });

  const [oldType, newType] = take('type').map((v) => (typeof v === 'string' ? v : ''));
  const removed = Object.keys(newS).length === 0;
  if (oldType !== newType && removed) out.push({ rule: 'type', message: `field removed (was ${oldType || 'untyped'})`, why: 'the field is gone, so the preflight compares it with nothing: stored values and what clients send are pruned', fix: 'keep the field and mark it deprecated in its doc comment' });
  else if (oldType !== newType) out.push({ rule: 'type', message: `type changed from ${oldType || 'none'} to ${newType || 'none'}`, why: 'stored values of the old type no longer validate, and clients still send the old type', fix: 'keep the type; add a field of the new type under another name and deprecate this one' });

  take('description'); // the preflight ignores description changes

  if (!semanticEqual(a, b)) {
    const keys = [...new Set([...Object.keys(normalize(a)), ...Object.keys(normalize(b))])].filter((k) => canonicalJson(normalize(a)[k]) !== canonicalJson(normalize(b)[k])).sort();
    out.push({ rule: 'unhandled', key: `${canonicalJson(normalize(a))} -> ${canonicalJson(normalize(b))}`, message: `${keys.join(', ')} changed`, why: 'the preflight cannot tell whether stored objects still validate after this change, so it refuses it', fix: `keep ${keys.join(', ')} as before, or ship the change as a new field` });
  }
  return out;
}

type PathResults = Map<string, Result[]>;

/** crdify's CompareVersions: every field path of `a` against the same path of `b` (a removed field against nothing). */
function compareVersions(a: CrdVersion, b: CrdVersion): PathResults {
  const oldFlat = flattenSchema(a.schema?.openAPIV3Schema);
  const newFlat = flattenSchema(b.schema?.openAPIV3Schema);
  const out: PathResults = new Map();
  for (const [path, oldSchema] of oldFlat) {
    const o = withoutChildren(oldSchema);
    const n = newFlat.get(path);
    if (n === undefined) out.set(path, compareProperty(o, {}));
    else if (!semanticEqual(o, withoutChildren(n))) out.set(path, compareProperty(o, withoutChildren(n)));
  }
  return out;
}

function fieldPaths(v: CrdVersion): Set<string> {
  return new Set(flattenSchema(v.schema?.openAPIV3Schema).keys());
}

/** Served versions, paired oldest → newest in Kubernetes' version order, as 'a -> b'. */
function servedPairs(crd: Crd): Map<string, [CrdVersion, CrdVersion]> {
  const served = (crd.spec?.versions ?? []).filter((v) => v.served === true).sort((x, y) => compareKubeVersions(x.name, y.name));
  const out = new Map<string, [CrdVersion, CrdVersion]>();
  for (let i = 0; i < served.length; i++) for (let j = i + 1; j < served.length; j++) out.set(`${served[i]!.name} -> ${served[j]!.name}`, [served[i]!, served[j]!]);
  return out;
}

export function diffCrd(oldCrd: Crd, newCrd: Crd): Finding[] {
  const findings: Finding[] = [];
  const preflight = (where: string, path: string | undefined, { key: _key, ...r }: Result): void => void findings.push({ origin: 'preflight', level: 'error', where, ...(path === undefined ? {} : { path }), ...r });
  const guide = (level: Finding['level'], rule: string, where: string, message: string, why: string, fix: string, path?: string): void =>
    void findings.push({ origin: 'guide', level, rule, where, ...(path === undefined ? {} : { path }), message, why, fix });
  const oldVersions = oldCrd.spec?.versions ?? [];
  const newVersions = newCrd.spec?.versions ?? [];
  const newByName = new Map(newVersions.map((v) => [v.name, v]));

  // Whole-CRD rules.
  const oldScope = oldCrd.spec?.scope ?? '';
  const newScope = newCrd.spec?.scope ?? '';
  if (oldScope !== newScope) {
    preflight('crd', undefined, { rule: 'scope', message: `scope changed from ${oldScope} to ${newScope}`, why: 'stored objects live under keys of the old scope and clients address them by its URLs; the API server cannot serve them under the new one', fix: `keep scope: ${oldScope}; a different scope needs a new CRD (another group or kind) and a migration` });
  }
  const removedStored = (oldCrd.status?.storedVersions ?? []).filter((v) => !newByName.has(v));
  if (removedStored.length > 0) {
    preflight('crd', undefined, { rule: 'storedVersionRemoval', message: `versions [${removedStored.join(' ')}] removed but listed in status.storedVersions`, why: 'etcd still holds objects written at those versions; without the version the API server cannot decode them', fix: 'keep the versions (served: false is allowed), migrate stored objects to the storage version and drop them from status.storedVersions first' });
  }
  // Stored versions: a version leaves the CRD, or stops being served, only once no object is stored in it.
  const stored = oldCrd.status?.storedVersions ?? [];
  const crdName = newCrd.metadata?.name ?? oldCrd.metadata?.name ?? '<crd>';
  const migrate = `opgen crd migrate-storage ${crdName} --kubeconfig <cluster>`;
  for (const nv of newVersions) {
    const ov = oldVersions.find((v) => v.name === nv.name);
    if (!stored.includes(nv.name) || nv.served !== false || ov?.served === false || nv.storage === true) continue;
    guide('error', 'stored-version-unserved', nv.name, `${nv.name} stops being served while status.storedVersions lists it`, `objects may still be stored as ${nv.name}; unserving it first leaves them reachable only through the other versions, and removing it later is refused until they are rewritten`, `run ${migrate} first (it rewrites them and drops ${nv.name} from status.storedVersions), then stop serving ${nv.name}`);
  }
  const oldStorageName = oldVersions.find((v) => v.storage === true)?.name;
  if (stored.length === 0) {
    for (const ov of oldVersions) {
      if (newByName.has(ov.name) || ov.name === oldStorageName) continue; // storage-version-removed says the latter
      guide('error', 'removal-needs-migration', ov.name, `${ov.name} is removed, and whether clusters still store objects as ${ov.name} is not known here (the old CRD has no status.storedVersions)`, `where status.storedVersions still lists ${ov.name} the API server refuses the update and OLM v1's preflight the upgrade`, `run ${migrate} on each cluster first, then check against it with opgen crd diff --kubeconfig <cluster>`);
    }
  }
  for (const nv of newVersions) {
    const ov = oldVersions.find((v) => v.name === nv.name);
    if (!ov) continue;
    const now = fieldPaths(nv);
    for (const path of [...fieldPaths(ov)].filter((p) => !now.has(p)).sort()) {
      preflight('crd', `${nv.name}.${path}`, { rule: 'existingFieldRemoval', message: `field ${displayPath(path)} removed from ${nv.name}`, why: 'stored objects still hold the field and clients still send it; the API server prunes it on the next write, so the data is lost', fix: 'keep the field and mark it deprecated in its doc comment (the controller may ignore it); remove it only in a new API version' });
    }
  }

  // The same version before and after.
  for (const ov of oldVersions) {
    const nv = newByName.get(ov.name);
    if (!nv) continue;
    for (const [path, results] of compareVersions(ov, nv)) for (const r of results) preflight(ov.name, path, r);
  }

  // Served versions against each other (the API server converts between them by changing apiVersion alone),
  // unless a conversion webhook converts; problems the old CRD already had are not reported again.
  if (newCrd.spec?.conversion?.strategy !== 'Webhook') {
    const before = new Map<string, PathResults>();
    for (const [pair, [x, y]] of servedPairs(oldCrd)) before.set(pair, compareVersions(x, y));
    for (const [pair, [x, y]] of servedPairs(newCrd)) {
      const had = before.get(pair);
      for (const [path, results] of compareVersions(x, y)) {
        const old = had?.get(path);
        for (const r of results) {
          if (old?.some((o) => o.rule === r.rule && (o.key ?? o.message) === (r.key ?? r.message))) continue;
          preflight(pair, path, { ...r, why: `without a conversion webhook the API server serves the same stored objects at both versions: ${r.why}`, fix: `${r.fix}; or make ${pair.split(' -> ')[0]} and ${pair.split(' -> ')[1]} agree, or convert with a webhook (spec.conversion.strategy: Webhook)` });
        }
      }
    }
  }

  // The guide's rules.
  const storage = newVersions.filter((v) => v.storage === true).map((v) => v.name);
  if (storage.length !== 1) guide('error', 'one-storage-version', 'crd', `${storage.length} storage versions (${storage.join(', ') || 'none'})`, 'the API server stores every object at exactly one version and refuses the CRD otherwise', 'mark exactly one version storage: true');
  const oldStorage = oldVersions.find((v) => v.storage === true)?.name;
  if ((oldCrd.status?.storedVersions ?? []).length === 0 && oldStorage !== undefined && !newByName.has(oldStorage)) {
    guide('error', 'storage-version-removed', 'crd', `${oldStorage}, the old storage version, is removed`, 'objects written before the upgrade are stored at it; the API server cannot decode them afterwards (the old file has no status.storedVersions, so the preflight would see this on the cluster)', `keep ${oldStorage} (served: false is allowed) until stored objects are migrated`);
  }
  for (const ov of oldVersions) {
    const nv = newByName.get(ov.name);
    if (ov.served !== true || ov.deprecated === true || (nv !== undefined && nv.served === true)) continue;
    if ((oldCrd.status?.storedVersions ?? []).includes(ov.name) && !nv) continue; // storedVersionRemoval says it
    if (ov.name === oldStorage && !nv) continue; // storage-version-removed says it
    guide('warning', nv ? 'version-unserved' : 'version-removed', ov.name, `${ov.name} ${nv ? 'is no longer served' : 'is removed'} without having been deprecated`, `clients that use ${ov.name} get 404s with no warning beforehand`, `first release it with deprecated: true (and a deprecationWarning), then stop serving it`);
  }
  for (const nv of newVersions) {
    const ov = oldVersions.find((v) => v.name === nv.name);
    if (!ov) continue;
    const before = fieldPaths(ov);
    const flat = flattenSchema(nv.schema?.openAPIV3Schema);
    const added = [...flat.keys()].filter((p) => !before.has(p) && !p.endsWith(']')).sort();
    for (const p of added) {
      const parent = p.slice(0, p.lastIndexOf('.'));
      if (!before.has(parent)) continue; // inside a field that is new itself: reported at its top
      const s = flat.get(p)!;
      if (s.default !== undefined || flat.get(parent)?.['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-preserve-unknown-fields'] === true) continue;
      guide('warning', 'new-field-without-default', nv.name, 'new field without a default', 'objects stored before the upgrade read back without it, so the controller sees it unset on every existing object', 'give it a default (+kubebuilder:default), or treat its absence as the old behaviour', p);
    }
  }
  return findings;
}

/** `^.spec.items[*].name` → `spec.items[*].name`. */
export function displayPath(path: string): string {
  return path.replace(/^\^\.?/, '') || '(root)';
}

// controller-runtime's controllerutil.CreateOrUpdate and CreateOrPatch: read the object, let `mutate`
// set the fields the controller owns, and write only when something changed.
import type { KubeObject } from '../api/types.js';
import type { ResourceKind } from '../api/kind.js';
import type { Reader, Writer, StatusWriter } from '../client/client.js';
import { ignoreNotFound } from '../client/errors.js';

export type OperationResult = 'created' | 'updated' | 'unchanged';

export type MutateFn<T> = (obj: T) => void | Promise<void>;

/**
 * What a caller may hand createOrUpdate/createOrPatch before the object exists: its name (and
 * namespace) and whatever else it knows. A kind whose API requires `spec` (batchv1.CronJob) still takes
 * a metadata-only stub, as controllerutil.CreateOrUpdate takes a zero-valued Go struct: `mutate` fills
 * in the rest before anything is written.
 */
export type ObjectStub<T extends KubeObject> = Partial<T> & Pick<KubeObject, 'metadata'>;

/** What createOrUpdate needs from a client (a Client, or a manager's client). */
export type ReadWriter = Reader & Writer;

export class MutateChangedKeyError extends Error {
  override readonly name = 'MutateChangedKeyError';
}

/** Order-insensitive structural equality of JSON values (apimachinery's semantic equality for plain data). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * An RFC 7386 JSON merge patch turning `before` into `after`: changed fields, `null` for removed ones,
 * arrays replaced whole. Empty when they are equal.
 */
export function mergePatchFrom(before: unknown, after: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined) continue;
    if (jsonEqual(b[key], a[key])) continue;
    const plain = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    patch[key] = plain(a[key]) && plain(b[key]) ? mergePatchFrom(b[key], a[key]) : a[key];
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined && a[key] === undefined) patch[key] = null;
  return patch;
}

function keyOf(obj: KubeObject): { name: string; namespace?: string } {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`createOrUpdate ${obj.kind ?? 'object'}: metadata.name is required`);
  return { name, namespace: obj.metadata?.namespace };
}

/** Replaces obj's content with `from`'s, keeping the caller's reference (controllerutil fills the Go pointer). */
function fill<T extends object>(obj: T, from: T): void {
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, structuredClone(from));
}

/**
 * The step both functions share: reads the stored object into `obj` (left as the caller built it when
 * there is none), runs `mutate` on it, and refuses a changed name or namespace. Returns what was stored.
 */
async function readAndMutate<T extends KubeObject>(client: Reader, kind: ResourceKind<T>, obj: T, mutate: MutateFn<T>): Promise<{ key: { name: string; namespace?: string }; existing?: T }> {
  const key = keyOf(obj);
  const existing = await client.get(kind, key).catch((err: unknown) => {
    ignoreNotFound(err);
    return undefined;
  });
  if (existing) fill(obj, existing);
  await mutate(obj);
  if (obj.metadata?.name !== key.name || (obj.metadata?.namespace || undefined) !== (key.namespace || undefined)) {
    throw new MutateChangedKeyError(`mutate changed the object's name or namespace (was ${key.namespace ? `${key.namespace}/` : ''}${key.name}); it may only change the other fields`);
  }
  return { key, existing };
}

/**
 * Gets `obj` by name (and namespace); when missing, runs `mutate` on it and creates it; otherwise runs
 * `mutate` on the object as stored and updates it if that changed anything. `obj` ends up as the
 * server returned it. Let `mutate` set the fields the controller owns rather than replace whole objects
 * (`spec.replicas = n`, not `spec = {...}`): a replaced object drops the API server's defaults, so every
 * run differs from what is stored and updates. An update conflicts (409) if the object changed meanwhile: return the error so
 * the request is retried.
 */
export async function createOrUpdate<T extends KubeObject>(client: ReadWriter, kind: ResourceKind<T>, stub: T | ObjectStub<T>, mutate: MutateFn<T>): Promise<OperationResult> {
  const obj = stub as T; // mutate completes it before any write
  const { existing } = await readAndMutate(client, kind, obj, mutate);
  if (!existing) {
    fill(obj, await client.create(kind, obj));
    return 'created';
  }
  if (jsonEqual(existing, obj)) return 'unchanged';
  fill(obj, await client.update(kind, obj));
  return 'updated';
}

/**
 * Like createOrUpdate, but writes JSON merge patches of what `mutate` changed (no conflict on a
 * concurrent change to other fields), and a status change through the status subresource.
 */
export async function createOrPatch<T extends KubeObject>(
  client: ReadWriter & { status(): StatusWriter },
  kind: ResourceKind<T>,
  stub: T | ObjectStub<T>,
  mutate: MutateFn<T>,
): Promise<OperationResult> {
  const obj = stub as T; // mutate completes it before any write
  const { key, existing } = await readAndMutate(client, kind, obj, mutate);
  if (!existing) {
    const status = (obj as { status?: unknown }).status;
    const created = await client.create(kind, obj);
    // Status is ignored on create when the kind has a status subresource: write it after, as CreateOrPatch does.
    if (status !== undefined && !jsonEqual(status, (created as { status?: unknown }).status)) {
      fill(obj, await client.status().patch(kind, key, { type: 'merge', body: { status } }));
    } else fill(obj, created);
    return 'created';
  }
  const { status: beforeStatus, ...beforeRest } = existing as T & { status?: unknown };
  const { status: afterStatus, ...afterRest } = obj as T & { status?: unknown };
  const specPatch = mergePatchFrom(beforeRest, afterRest);
  const statusPatch = mergePatchFrom({ status: beforeStatus }, { status: afterStatus });
  if (Object.keys(specPatch).length === 0 && Object.keys(statusPatch).length === 0) return 'unchanged';
  let latest: T = existing;
  if (Object.keys(specPatch).length > 0) latest = await client.patch(kind, key, { type: 'merge', body: specPatch });
  if (Object.keys(statusPatch).length > 0) latest = await client.status().patch(kind, key, { type: 'merge', body: statusPatch });
  fill(obj, latest);
  return 'updated';
}

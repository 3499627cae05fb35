// `crd diff --kubeconfig`: the old CRDs' status.storedVersions as the target cluster has them (the released
// files carry none), and how many objects a version that must stay may still hold.
import { Kubectl, KubectlError, type KubectlTarget } from '../doctor/kubectl.js';
import { OpgenError } from '../diag/diagnostic.js';
import type { Crd } from './diff.js';
import type { Located, LoadedCrd } from './loaded-crd.js';

interface ClusterCrd extends Crd {
  spec?: Crd['spec'] & { group?: string; names?: { plural?: string } };
}

/** Sets each old CRD's status.storedVersions to the cluster's; returns the cluster's CRDs by name. */
export async function withClusterStoredVersions(cwd: string, target: KubectlTarget, olds: LoadedCrd[]): Promise<Map<string, ClusterCrd>> {
  const kubectl = new Kubectl(target, cwd);
  let list: { items: ClusterCrd[] };
  try {
    list = await kubectl.json<{ items: ClusterCrd[] }>(['get', 'customresourcedefinitions']);
  } catch (err) {
    if (err instanceof KubectlError) throw new OpgenError(`cannot read the cluster's CRDs: ${err.message}`, { flag: '--kubeconfig' }, 'check the kubeconfig and that it may list customresourcedefinitions');
    throw err;
  }
  const byName = new Map(list.items.map((c) => [c.metadata?.name ?? '', c]));
  for (const old of olds) {
    const live = byName.get(old.crd.metadata?.name ?? '');
    if (live) old.crd.status = { ...old.crd.status, storedVersions: live.status?.storedVersions ?? [] };
  }
  return byName;
}

/** Stored-version findings name the objects on the cluster that may still be stored in the version, and the command. */
export async function annotateWithCounts(cwd: string, target: KubectlTarget, live: Map<string, ClusterCrd>, findings: Located[]): Promise<void> {
  const kubectl = new Kubectl(target, cwd);
  const counts = new Map<string, number>();
  for (const x of findings) {
    if (x.f.rule !== 'storedVersionRemoval' && x.f.rule !== 'stored-version-unserved') continue;
    const crd = live.get(x.name);
    if (!crd) continue;
    if (!counts.has(x.name)) counts.set(x.name, await countObjects(kubectl, crd));
    const n = counts.get(x.name)!;
    const storedOld = (crd.status?.storedVersions ?? []).filter((v) => v !== crd.spec?.versions?.find((s) => s.storage)?.name);
    x.f = {
      ...x.f,
      message: `${x.f.message}; the cluster has ${n} object${n === 1 ? '' : 's'} of it, any of which may still be stored as ${storedOld.join(', ') || 'an old version'}`,
      fix: `run opgen crd migrate-storage ${x.name}${target.kubeconfig ? ` --kubeconfig ${target.kubeconfig}` : ''} first (it rewrites them in the storage version and sets status.storedVersions to it alone)`,
    };
  }
}

/** All objects of the CRD: one list call with limit=1 and the server's remainingItemCount. */
async function countObjects(kubectl: Kubectl, crd: ClusterCrd): Promise<number> {
  const version = crd.spec?.versions?.find((v) => v.storage)?.name;
  const list = await kubectl.raw<{ items?: unknown[]; metadata?: { remainingItemCount?: number } }>(`/apis/${crd.spec?.group}/${version}/${crd.spec?.names?.plural}?limit=1`);
  return (list.items?.length ?? 0) + (list.metadata?.remainingItemCount ?? 0);
}

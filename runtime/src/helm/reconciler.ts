// The Helm reconciler: every object of a kind is a Helm release of one chart (name and namespace of
// the object, values = its spec), with no user code. operator-sdk's helm operator is the model: the
// same finalizer and condition vocabulary, dependent watches to repair drift.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import type { Client } from '../client/client.js';
import type { Controller } from '../controller/controller.js';
import type { Predicate } from '../controller/predicates.js';
import type { Condition } from '../api/types.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import type { Manager } from '../manager/manager.js';
import type { ObjectConditionInput, ReconcileContext, Reconciler, Request, Result } from '../index.js';
import { firstDifference, manifestObjects } from './drift.js';
import { HelmCli, HelmError, type HelmRelease } from './helm-cli.js';

/** operator-sdk's finalizer, so a CR made by its helm operator is uninstalled by this one too. */
export const helmUninstallFinalizer = 'helm.sdk.operatorframework.io/uninstall-release';
/** Helm sets these on every object of a release; they map a dependent back to its release. */
const releaseNameAnnotation = 'meta.helm.sh/release-name';
const releaseNamespaceAnnotation = 'meta.helm.sh/release-namespace';

export interface HelmReleaseStatus {
  conditions?: Condition[];
  /** The release last deployed: name, revision and the sha256 of its rendered manifest. */
  deployedRelease?: { name: string; revision: number; manifestDigest: string };
  /** sha256 of the chart's files and the spec (values) the deployed release was made from. */
  observedDigest?: string;
}

export type HelmReleaseObject = KubeObject & { spec?: Record<string, unknown>; status?: HelmReleaseStatus };

export interface HelmReconcilerOptions {
  kind: ResourceKind<HelmReleaseObject>;
  /** The chart folder (in the image: helm-charts/<name>). */
  chart: string;
  client: Client;
  kubeConfig: KubeConfigLike;
  /** Kinds the chart renders: their objects are checked for drift (and watched by setupHelmController). */
  dependentKinds?: readonly ResourceKind[];
  /** The helm binary; default $HELM_BINARY, else `helm`. */
  helmBinary?: string;
  /** First wait after a failed install or upgrade; doubles per failure of the same input up to maxBackoffMs. Default 10 s. */
  baseBackoffMs?: number;
  /** Default 5 minutes. */
  maxBackoffMs?: number;
  /** Called before every helm run. */
  onHelmRun?: (args: readonly string[]) => void;
}

interface Failure { digest: string; count: number; retryAt: number }

/**
 * The runtime's helpers, through the package's main entry, imported when first used. A static import
 * would make the bundler (runtime/build/bundle.mjs) move everything this entry shares with the main one
 * into a chunk that every operator loads; the operator has loaded the main entry already, so this
 * import costs nothing at run time.
 */
const rt = (): Promise<typeof import('../index.js')> => import('../index.js');

export class HelmReconciler implements Reconciler {
  readonly helm: HelmCli;
  private readonly chartDigest: string;
  private readonly failures = new Map<string, Failure>();
  /** Drift already repaired once for this uid and manifest: not repaired again (a check that cannot settle). */
  private readonly repaired = new Map<string, string>();
  /** The input last deployed per uid: the cache may still hold the object without that status write. */
  private readonly deployed = new Map<string, string>();

  constructor(private readonly opts: HelmReconcilerOptions) {
    this.helm = new HelmCli({ kubeConfig: opts.kubeConfig, binary: opts.helmBinary, onRun: opts.onHelmRun });
    this.chartDigest = digestFolder(opts.chart);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    const { addFinalizer, hasFinalizer, isNotFound, removeFinalizer } = await rt();
    const { client, kind } = this.opts;
    let cr: HelmReleaseObject;
    try {
      cr = await client.get(kind, req);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const name = cr.metadata!.name!;
    const namespace = cr.metadata!.namespace ?? 'default';
    const uid = cr.metadata!.uid ?? `${namespace}/${name}`;

    if (cr.metadata?.deletionTimestamp) {
      if (!hasFinalizer(cr, helmUninstallFinalizer)) return {};
      const failed = this.waiting(uid, 'uninstall');
      if (failed) return failed;
      try {
        await this.helm.uninstall(name, namespace);
      } catch (err) {
        if (!(err instanceof HelmError)) throw err;
        await this.setStatus(cr, [{ type: 'ReleaseFailed', status: 'True', reason: 'UninstallError', message: err.message }]);
        return this.backOff(uid, 'uninstall', err, ctx);
      }
      removeFinalizer(cr, helmUninstallFinalizer);
      await client.update(kind, cr);
      this.failures.delete(uid);
      this.repaired.delete(uid);
      this.deployed.delete(uid);
      ctx.log.info('release uninstalled', { release: name });
      return {};
    }

    if (addFinalizer(cr, helmUninstallFinalizer)) cr = await client.update(kind, cr);
    if (!cr.status?.conditions?.some((c) => c.type === 'Initialized')) {
      cr = await this.setStatus(cr, [{ type: 'Initialized', status: 'True', reason: 'Initialized', message: '' }]);
    }

    const digest = sha256(`${this.chartDigest}\n${canonicalJson(cr.spec ?? {})}`);
    const failed = this.waiting(uid, digest);
    // The same input failed before (helm refused it, or could not run): wait out the backoff instead of running helm again.
    if (failed) return failed;
    if ((cr.status?.observedDigest === digest && cr.status.deployedRelease) || this.deployed.get(uid) === digest) {
      let release: HelmRelease | undefined;
      try {
        release = await this.helm.status(name, namespace, ctx.signal);
      } catch (err) {
        if (!(err instanceof HelmError)) throw err;
        await this.setStatus(cr, [{ type: 'Irreconcilable', status: 'True', reason: 'ReconcileError', message: err.message }]);
        return this.backOff(uid, digest, err, ctx);
      }
      if (release && release.info?.status === 'deployed') {
        // Back to the spec that is deployed (a failed change reverted): nothing to upgrade, the failure is over.
        this.failures.delete(uid);
        if (cr.status?.conditions?.some((c) => c.type === 'ReleaseFailed')) cr = await this.setStatus(cr, [], ['ReleaseFailed']);
        return this.repairDrift(cr, release, digest, uid, ctx);
      }
      // Gone (uninstalled by hand) or left failed/pending by someone else: install again below.
    }
    return this.install(cr, digest, uid, ctx);
  }

  /** The requeue for a key whose last helm run with this input failed and whose backoff has not passed. */
  private waiting(uid: string, input: string): Result | undefined {
    const failed = this.failures.get(uid);
    return failed && failed.digest === input && Date.now() < failed.retryAt ? { requeueAfter: failed.retryAt - Date.now() } : undefined;
  }

  /** Records a failed helm run of `input`: the next try waits baseBackoffMs, doubling per failure of the same input. */
  private backOff(uid: string, input: string, err: HelmError, ctx: ReconcileContext): Result {
    const prev = this.failures.get(uid);
    const count = prev?.digest === input ? prev.count + 1 : 1;
    const wait = Math.min((this.opts.baseBackoffMs ?? 10_000) * 2 ** (count - 1), this.opts.maxBackoffMs ?? 300_000);
    this.failures.set(uid, { digest: input, count, retryAt: Date.now() + wait });
    ctx.log.info('helm failed', { args: err.args.slice(0, 2).join(' '), error: err.message, retryInMs: wait });
    return { requeueAfter: wait };
  }

  /**
   * `helm upgrade --install`, with operator-sdk's condition reasons: InstallSuccessful for revision 1,
   * UpgradeSuccessful after it; InstallError while the release has no deployed revision, UpgradeError
   * once it has; a failed drift repair is Irreconcilable with ReconcileError.
   */
  private async install(cr: HelmReleaseObject, digest: string, uid: string, ctx: ReconcileContext, repairing = false): Promise<Result> {
    const name = cr.metadata!.name!;
    const namespace = cr.metadata!.namespace ?? 'default';
    let release: HelmRelease;
    try {
      // Not aborted with the reconcile: a helm killed mid-upgrade leaves the release pending-upgrade, which
      // every later upgrade refuses ("another operation … is in progress"). The manager's hard stop still ends it.
      release = await this.helm.upgradeInstall(name, namespace, this.opts.chart, cr.spec ?? {});
    } catch (err) {
      if (!(err instanceof HelmError)) throw err;
      const history = await this.helm.history(name, namespace).catch(() => undefined);
      const everDeployed = history ? history.some((h) => h.status === 'deployed' || h.status === 'superseded') : Boolean(cr.status?.deployedRelease);
      if (history && history.length > 0 && history.every((h) => h.status === 'failed')) {
        // A failed install leaves a failed release; operator-sdk removes it so that the retry is an
        // install again (not an "UPGRADE FAILED" of a release that never ran), and failed revisions do not pile up.
        await this.helm.uninstall(name, namespace).catch((e: unknown) => ctx.log.info('could not remove the failed release', { release: name, error: (e as Error).message }));
      }
      const result = this.backOff(uid, digest, err, ctx);
      const stuck = /another operation \(install\/upgrade\/rollback\) is in progress/.test(err.message);
      const failure: ObjectConditionInput = repairing
        ? { type: 'Irreconcilable', status: 'True', reason: 'ReconcileError', message: err.message }
        : { type: 'ReleaseFailed', status: 'True', reason: everDeployed ? 'UpgradeError' : 'InstallError', message: err.message };
      await this.setStatus(cr, [failure,
        // A release left pending by an interrupted helm (a killed pod) waits for a person: Helm will not guess.
        ...(stuck ? [{ type: 'Irreconcilable', status: 'True' as const, reason: 'ReleasePending', message: `${err.message}; if no helm runs for it, run \`helm rollback ${name} -n ${namespace}\` (or \`helm uninstall\` a release that never deployed)` }] : [])]);
      return result;
    }
    this.failures.delete(uid);
    this.deployed.set(uid, digest);
    const manifestDigest = sha256(release.manifest ?? '');
    cr.status = {
      ...cr.status,
      deployedRelease: { name: release.name, revision: release.version, manifestDigest },
      observedDigest: digest,
    };
    // As operator-sdk: what Helm recorded names the reason, and a success removes the failure conditions.
    const reason = release.version === 1 ? 'InstallSuccessful' : 'UpgradeSuccessful';
    await this.setStatus(cr, [{ type: 'Deployed', status: 'True', reason, message: `release ${release.name} revision ${release.version}` }], ['ReleaseFailed', 'Irreconcilable']);
    ctx.log.info('release deployed', { release: release.name, revision: release.version });
    return {};
  }

  /**
   * Objects of the deployed manifest deleted or edited by hand: `helm upgrade` with the same values
   * puts them back (Helm's three-way merge creates what is missing and patches what differs), as one
   * new revision. A difference this check sees again right after repairing the same manifest is one
   * Helm cannot settle (a value the server normalises): reported as Irreconcilable, not repaired in a loop.
   */
  private async repairDrift(cr: HelmReleaseObject, release: HelmRelease, digest: string, uid: string, ctx: ReconcileContext): Promise<Result> {
    const drift = await this.findDrift(release, ctx);
    if (!drift) {
      this.repaired.delete(uid);
      if (cr.status?.conditions?.some((c) => c.type === 'Irreconcilable')) await this.setStatus(cr, [], ['Irreconcilable']);
      return {};
    }
    const key = `${sha256(release.manifest ?? '')} ${drift}`;
    if (this.repaired.get(uid) === key) {
      await this.setStatus(cr, [{ type: 'Irreconcilable', status: 'True', reason: 'ReconcileError', message: `${drift} still differs from the release after a repair` }]);
      return {};
    }
    this.repaired.set(uid, key);
    ctx.log.info('release drifted; upgrading to repair it', { release: release.name, drift });
    return this.install(cr, digest, uid, ctx, true);
  }

  private async findDrift(release: HelmRelease, ctx: ReconcileContext): Promise<string | undefined> {
    const { isNotFound } = await rt();
    for (const obj of manifestObjects(release.manifest)) {
      const kind = (this.opts.dependentKinds ?? []).find((k) => k.apiVersion === obj.apiVersion && k.kind === obj.kind);
      if (!kind) continue;
      const key = { namespace: kind.namespaced ? (obj.metadata?.namespace ?? release.namespace) : undefined, name: obj.metadata!.name! };
      const what = `${obj.kind} ${key.namespace ? `${key.namespace}/` : ''}${key.name}`;
      let live: KubeObject;
      try {
        live = await this.opts.client.get(kind, key, { signal: ctx.signal });
      } catch (err) {
        if (isNotFound(err)) return `${what} (deleted)`;
        throw err;
      }
      const { apiVersion: _a, kind: _k, ...wanted } = obj;
      const diff = firstDifference(wanted, live);
      if (diff) return `${what} ${diff}`;
    }
    return undefined;
  }

  /**
   * Writes the conditions (and the release fields already set on cr.status), removing those of the
   * `remove` types. A conflict — the spec was edited while helm ran — is retried on the fresh object:
   * what helm did must not be lost, or the status would name an older revision than `helm list`.
   */
  private async setStatus(cr: HelmReleaseObject, conditions: ObjectConditionInput[], remove: string[] = []): Promise<HelmReleaseObject> {
    const { isConflict, removeConditions, setConditions } = await rt();
    setConditions(cr, ...conditions);
    removeConditions(cr, ...remove);
    try {
      return await this.opts.client.status().update(this.opts.kind, cr);
    } catch (err) {
      if (!isConflict(err)) throw err;
      const fresh = await this.opts.client.get(this.opts.kind, { namespace: cr.metadata?.namespace, name: cr.metadata!.name! });
      const { deployedRelease, observedDigest } = cr.status ?? {};
      fresh.status = { ...fresh.status, ...(deployedRelease ? { deployedRelease } : {}), ...(observedDigest ? { observedDigest } : {}) };
      setConditions(fresh, ...conditions.map((c) => ({ ...c, observedGeneration: cr.metadata?.generation })));
      removeConditions(fresh, ...remove);
      return this.opts.client.status().update(this.opts.kind, fresh);
    }
  }
}

export interface HelmControllerOptions extends Omit<HelmReconcilerOptions, 'client' | 'kubeConfig'> {
  /** The controller's name; default `<kind lowercased>-helm`. */
  name?: string;
}

/**
 * Registers the Helm controller of one kind on a manager: the CR kind (spec edits and deletions; its
 * own status writes do not wake it) and dependent watches on the kinds the chart renders, mapped to
 * their release through Helm's release annotations.
 */
export function setupHelmController(mgr: Manager, opts: HelmControllerOptions): { controller: Controller; reconciler: HelmReconciler } {
  const reconciler = new HelmReconciler({ ...opts, client: mgr.client, kubeConfig: mgr.kubeConfig });
  const crChanges: Predicate = {
    update: (o, n) => o.metadata?.generation !== n.metadata?.generation || Boolean(n.metadata?.deletionTimestamp) !== Boolean(o.metadata?.deletionTimestamp),
  };
  let builder = mgr.controllerFor(opts.kind, { predicates: [crChanges] }).named(opts.name ?? `${opts.kind.kind.toLowerCase()}-helm`);
  const toRelease = (obj: KubeObject): Request[] => {
    const name = obj.metadata?.annotations?.[releaseNameAnnotation];
    const namespace = obj.metadata?.annotations?.[releaseNamespaceAnnotation];
    return name && namespace ? [{ namespace, name }] : [];
  };
  // Our own creates are not drift; edits are spec (generation) or, for kinds without one, any change.
  const dependentChanges: Predicate = {
    create: () => false,
    update: (o, n) => (n.metadata?.generation !== undefined ? o.metadata?.generation !== n.metadata.generation : o.metadata?.resourceVersion !== n.metadata?.resourceVersion),
  };
  // Optional: a chart may render kinds whose CRDs the cluster lacks (a ServiceMonitor behind a value
  // that is off); their watches start when the CRD is installed, and never hold up the others.
  for (const kind of opts.dependentKinds ?? []) builder = builder.watches(kind, toRelease, { predicates: [dependentChanges], optional: true });
  return { controller: builder.complete(reconciler), reconciler };
}

/** sha256 of a chart folder: every file's path and bytes, in path order. */
export function digestFolder(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): string[] => readdirSync(d).sort().flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  for (const file of walk(dir)) h.update(`${relative(dir, file)}\0`).update(readFileSync(file)).update('\0');
  return h.digest('hex');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted, so the same values always give the same digest. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

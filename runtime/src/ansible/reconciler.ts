// The Ansible reconciler: each object of a watched kind is handed to its role or playbook through
// ansible-runner, with operator-sdk's variables, status conditions, finalizer and annotations, so a role
// written for operator-sdk's Ansible operator runs here unchanged. The role reaches the API server through
// the local proxy (proxy.ts), which makes what it creates the object's dependents.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import type { Controller } from '../controller/controller.js';
import type { Predicate } from '../controller/predicates.js';
import type { Manager } from '../manager/manager.js';
import type { ReconcileContext, Reconciler, Request, Result } from '../reconcile/index.js';
import type { Counter, Histogram } from '../metrics/registry.js';
import { operatorSdkUtilCollection } from './collection.js';
import { extraVars } from './params.js';
import { OwnerInjectingProxy, primaryResourceAnnotation, primaryResourceTypeAnnotation } from './proxy.js';
import { runAnsible, type AnsibleResult, type RunResult } from './runner.js';
import { loadWatches, parseDuration, WatchesError, type AnsibleWatch } from './watches.js';

export const reconcilePeriodAnnotation = 'ansible.sdk.operatorframework.io/reconcile-period';
export const verbosityAnnotation = 'ansible.sdk.operatorframework.io/verbosity';
export const maxRunnerArtifactsAnnotation = 'ansible.sdk.operatorframework.io/max-runner-artifacts';

/** operator-sdk's condition: the usual fields plus the run's counts on Running (success) and Failure. */
export interface AnsibleCondition {
  type: 'Running' | 'Successful' | 'Failure' | string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  ansibleResult?: AnsibleResult;
}

export type AnsibleObject = KubeObject & { spec?: Record<string, unknown>; status?: { conditions?: AnsibleCondition[]; [k: string]: unknown } };

export interface AnsibleReconcilerOptions {
  watch: AnsibleWatch;
  kind: ResourceKind<AnsibleObject>;
  mgr: Manager;
  proxy: OwnerInjectingProxy;
  /** Where each object's runs live (inputs, artifacts); default $ANSIBLE_OPERATOR_RUNNER_DIR or /tmp/ansible-operator/runner. */
  runnerDir?: string;
  /** ansible-runner's -v count unless the object's verbosity annotation says otherwise; default 2 (operator-sdk's). */
  verbosity?: number;
  /** Called with ansible-runner's pid when a run starts. */
  onRunStart?: (pid: number, req: Request) => void;
}

interface RunMetrics { duration: Histogram<'controller' | 'result'>; taskFailures: Counter<'controller' | 'task'> }
const metricsOf = new WeakMap<object, RunMetrics>();

export class AnsibleReconciler implements Reconciler {
  private readonly metrics: RunMetrics;
  private collectionsPath?: string;

  constructor(private readonly opts: AnsibleReconcilerOptions) {
    const registry = opts.mgr.metrics.registry;
    let m = metricsOf.get(registry);
    if (!m) {
      m = {
        duration: registry.histogram({ name: 'ansible_operator_run_duration_seconds', help: 'Duration of ansible-runner runs, per controller and result (successful, failed, cancelled)', labelNames: ['controller', 'result'], buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600] }),
        taskFailures: registry.counter({ name: 'ansible_operator_task_failures_total', help: 'Failed Ansible tasks (not ignored, not rescued), per controller and task name', labelNames: ['controller', 'task'] }),
      };
      metricsOf.set(registry, m);
    }
    this.metrics = m;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    const { addFinalizer, hasFinalizer, isNotFound, removeFinalizer } = await import('../index.js');
    const { watch, kind, mgr } = this.opts;
    let cr: AnsibleObject;
    try {
      cr = await mgr.client.get(kind, req);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const annotations = cr.metadata?.annotations ?? {};
    let period = watch.reconcilePeriodMs;
    if (annotations[reconcilePeriodAnnotation] !== undefined) {
      const ms = parseDuration(annotations[reconcilePeriodAnnotation]!);
      if (ms === undefined) {
        const message = `Unable to parse reconcile period annotation: ${reconcilePeriodAnnotation}: ${JSON.stringify(annotations[reconcilePeriodAnnotation])} is not a duration (e.g. 30s, 5m)`;
        await this.writeStatus(req, (s) => markFailure(s, message));
        throw new Error(message);
      }
      period = ms;
    }
    const deleted = Boolean(cr.metadata?.deletionTimestamp);
    const finalizer = watch.finalizer?.name;
    if (deleted && (!finalizer || !hasFinalizer(cr, finalizer))) return {};
    if (!deleted && finalizer && addFinalizer(cr, finalizer)) cr = await mgr.client.update(kind, cr, { signal: ctx.signal });

    if (watch.manageStatus) cr = await this.writeStatus(req, markRunning) ?? cr;

    const finalizerRun = deleted;
    const f = watch.finalizer;
    const target = finalizerRun && (f?.role || f?.playbook) ? { role: f.role, playbook: f.playbook } : { role: watch.role, playbook: watch.playbook };
    const session = await this.opts.proxy.session({ apiVersion: kind.apiVersion, kind: kind.kind, name: cr.metadata!.name!, namespace: kind.namespaced ? cr.metadata?.namespace : undefined, uid: cr.metadata!.uid! });
    const runnerDir = this.opts.runnerDir ?? process.env.ANSIBLE_OPERATOR_RUNNER_DIR ?? '/tmp/ansible-operator/runner';
    this.collectionsPath ??= operatorSdkUtilCollection(runnerDir);
    let run: RunResult;
    try {
      run = await runAnsible({
        inputDir: join(runnerDir, watch.group || 'core', watch.version, watch.kind, cr.metadata?.namespace ?? '_cluster', cr.metadata!.name!),
        collectionsPath: this.collectionsPath,
        ident: randomUUID(),
        ...target,
        extraVars: extraVars(watch, cr, finalizerRun),
        kubeconfig: session.kubeconfig,
        maxArtifacts: intAnnotation(annotations[maxRunnerArtifactsAnnotation]) ?? watch.maxRunnerArtifacts,
        verbosity: intAnnotation(annotations[verbosityAnnotation]) ?? this.opts.verbosity ?? 2,
        signal: ctx.signal,
        log: ctx.log,
        onStart: (pid) => this.opts.onRunStart?.(pid, req),
      });
    } catch (err) {
      // ansible-runner missing (the one line naming the packages) or not startable: the object says so too.
      if (watch.manageStatus) await this.writeStatus(req, (s) => markFailure(s, (err as Error).message));
      throw err;
    } finally {
      session.close();
    }
    for (const created of session.created) this.warnUnwatched(created, ctx);

    if (ctx.signal.aborted) {
      this.metrics.duration.labels({ controller: ctx.controller, result: 'cancelled' }).observe(run.durationMs / 1000);
      throw new Error(`ansible-runner was stopped: ${String((ctx.signal.reason as Error | undefined)?.message ?? ctx.signal.reason)}`);
    }
    const ok = run.result !== undefined && run.failedTasks.length === 0 && run.exitCode === 0;
    this.metrics.duration.labels({ controller: ctx.controller, result: ok ? 'successful' : 'failed' }).observe(run.durationMs / 1000);
    for (const t of run.failedTasks) this.metrics.taskFailures.labels({ controller: ctx.controller, task: t.task }).inc();

    if (!run.result) {
      // ansible never got to its stats (a syntax error, a missing collection): its output says why.
      const last = run.output.trim().split('\n').filter((l) => l.trim()).slice(-3).join(' ').replace(/\x1b\[[0-9;]*m/g, '');
      const message = `ansible-runner exited with ${run.exitCode} before the play ended: ${last}`;
      if (watch.manageStatus) await this.writeStatus(req, (s) => markFailure(s, message));
      throw new Error(message);
    }
    if (ok && deleted && finalizer) {
      const fresh = await mgr.apiReader.get(kind, req).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      if (fresh && removeFinalizer(fresh, finalizer)) await mgr.client.update(kind, fresh);
      ctx.log.info('finalizer ran; removed it', { finalizer });
      return {};
    }
    if (watch.manageStatus) {
      await this.writeStatus(req, (s) => (ok ? markDone(s, run.result!) : markFailure(s, run.failedTasks.map((t) => t.message).join('\n'), run.result)));
    }
    if (!ok) {
      // Thrown, so the controller retries with its back-off (and counts the error) instead of at once.
      const first = run.failedTasks[0];
      throw new Error(first ? `task "${first.task}" failed: ${first.message}` : `ansible-runner exited with ${run.exitCode}`);
    }
    const requeue = requeueAfter(run);
    if (requeue !== undefined) return { requeueAfter: requeue };
    return period > 0 ? { requeueAfter: period } : {};
  }

  private readonly warned = new Set<string>();
  private warnUnwatched(created: string, ctx: ReconcileContext): void {
    if (!this.opts.watch.watchDependentResources || this.warned.has(created) || watchedDependents(this.opts.mgr).has(created)) return;
    this.warned.add(created);
    ctx.log.info('the role created a kind no dependent watch covers: add it to dependentKinds (and an RBAC marker) in the controller module', { kind: created });
  }

  /**
   * Reads the object from the API server (not the cache: the role may have written it), applies `change`
   * to its status and writes it; a conflict (the object changed meanwhile) is retried on a fresh read.
   */
  private async writeStatus(req: Request, change: (s: { conditions?: AnsibleCondition[] }) => void): Promise<AnsibleObject | undefined> {
    const { isConflict, isNotFound } = await import('../index.js');
    for (let attempt = 0; ; attempt++) {
      let cr: AnsibleObject;
      try {
        cr = await this.opts.mgr.apiReader.get(this.opts.kind, req);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      const status = { ...(cr.status ?? {}) };
      change(status);
      cr.status = status;
      try {
        return await this.opts.mgr.client.status().update(this.opts.kind, cr);
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }
}

/** operator-sdk's SetCondition: lastTransitionTime moves only when the status does. */
function setCondition(s: { conditions?: AnsibleCondition[] }, c: AnsibleCondition): void {
  const conditions = s.conditions ?? [];
  const current = conditions.find((x) => x.type === c.type);
  const next: AnsibleCondition = { ...c, lastTransitionTime: current && current.status === c.status ? current.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
  if (!next.ansibleResult) delete next.ansibleResult;
  s.conditions = [...conditions.filter((x) => x.type !== c.type), next];
}

function demote(s: { conditions?: AnsibleCondition[] }, type: string): void {
  const current = s.conditions?.find((x) => x.type === type);
  if (current && current.status !== 'False') setCondition(s, { ...current, status: 'False' });
}

function markRunning(s: { conditions?: AnsibleCondition[] }): void {
  demote(s, 'Successful');
  setCondition(s, { type: 'Running', status: 'True', reason: 'Running', message: 'Running reconciliation' });
}

function markDone(s: { conditions?: AnsibleCondition[] }, result: AnsibleResult): void {
  setCondition(s, { type: 'Running', status: 'True', reason: 'Successful', message: 'Awaiting next reconciliation', ansibleResult: result });
  setCondition(s, { type: 'Successful', status: 'True', reason: 'Successful', message: 'Last reconciliation succeeded' });
  setCondition(s, { type: 'Failure', status: 'False', reason: '', message: '' });
}

function markFailure(s: { conditions?: AnsibleCondition[] }, message: string, result?: AnsibleResult): void {
  demote(s, 'Running');
  setCondition(s, { type: 'Failure', status: 'True', reason: 'Failed', message, ...(result ? { ansibleResult: result } : {}) });
  setCondition(s, { type: 'Successful', status: 'False', reason: '', message: '' });
}

function intAnnotation(v: string | undefined): number | undefined {
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** operator_sdk.util.requeue_after (or requeue_after): the period its task returned. */
function requeueAfter(run: RunResult): number | undefined {
  const e = run.events.findLast((x) => x.event === 'runner_on_ok' && /(^|\.)requeue_after$/.test(x.event_data?.task_action ?? ''));
  const period = e?.event_data?.res?.period;
  return typeof period === 'string' ? parseDuration(period) : undefined;
}

export interface AnsibleControllerOptions {
  /** The watches.yaml entry: loaded with loadWatches, or the path of the file and this kind is looked up in it. */
  watch: AnsibleWatch | { watches: string; group: string; version: string; kind: string };
  /** The kind the entry serves (its group, version and kind must match the entry's). */
  kind: ResourceKind<AnsibleObject>;
  /** Kinds the role creates: a change or deletion of one of the object's dependents reconciles it again. */
  dependentKinds?: readonly ResourceKind[];
  /** Default: $MAX_CONCURRENT_RECONCILES_<KIND>_<GROUP> (operator-sdk's), else the number of CPUs. */
  maxConcurrentReconciles?: number;
  verbosity?: number;
  runnerDir?: string;
  name?: string;
  onRunStart?: (pid: number, req: Request) => void;
}

const proxies = new WeakMap<Manager, OwnerInjectingProxy>();
const dependents = new WeakMap<Manager, Set<string>>();

/** apiVersion/kind of every kind some Ansible controller of this manager watches as dependents. */
function watchedDependents(mgr: Manager): Set<string> {
  let set = dependents.get(mgr);
  if (!set) dependents.set(mgr, (set = new Set()));
  return set;
}

/** One proxy per manager, closed when the manager stops. */
function proxyFor(mgr: Manager): OwnerInjectingProxy {
  let proxy = proxies.get(mgr);
  if (!proxy) {
    const p = new OwnerInjectingProxy(mgr.kubeConfig, mgr.log, process.env.ANSIBLE_INJECT_OWNER_REF !== 'false');
    proxy = p;
    proxies.set(mgr, p);
    mgr.add({ needLeaderElection: false, start: (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => void p.close().then(resolve), { once: true })) });
  }
  return proxy;
}

/** Registers the controller of one watches.yaml entry on the manager. */
export function setupAnsibleController(mgr: Manager, opts: AnsibleControllerOptions): { controller: Controller; reconciler: AnsibleReconciler } {
  const watch = 'watches' in opts.watch ? findWatch(opts.watch) : opts.watch;
  const kind = opts.kind;
  if (kind.group !== watch.group || kind.version !== watch.version || kind.kind !== watch.kind) {
    throw new Error(`setupAnsibleController: the kind ${kind.kind}.${kind.group}/${kind.version} is not the watch's ${watch.kind}.${watch.group}/${watch.version}`);
  }
  const reconciler = new AnsibleReconciler({ watch, kind, mgr, proxy: proxyFor(mgr), runnerDir: opts.runnerDir, verbosity: opts.verbosity ?? envInt(`ANSIBLE_VERBOSITY_${watch.kind}_${watch.group}`), onRunStart: opts.onRunStart });

  const selects = selectorMatcher(watch.selector);
  const crChanges: Predicate = {
    create: (o) => selects(o),
    update: (o, n) => selects(n) && (o.metadata?.generation !== n.metadata?.generation
      || Boolean(n.metadata?.deletionTimestamp) !== Boolean(o.metadata?.deletionTimestamp)
      || (watch.watchAnnotationsChanges && JSON.stringify(o.metadata?.annotations ?? {}) !== JSON.stringify(n.metadata?.annotations ?? {}))),
    delete: (o) => selects(o),
  };
  const workers = opts.maxConcurrentReconciles ?? envInt(`MAX_CONCURRENT_RECONCILES_${watch.kind}_${watch.group}`) ?? envInt(`WORKER_${watch.kind}_${watch.group}`) ?? availableParallelism();
  let builder = mgr.controllerFor(kind, { predicates: [crChanges] })
    .named(opts.name ?? `${watch.kind.toLowerCase()}-ansible`)
    .withOptions({ maxConcurrentReconciles: workers });

  if (watch.watchDependentResources) {
    const registry = watchedDependents(mgr);
    const ownerType = `${kind.kind}.${kind.group}`;
    const toOwner = (obj: KubeObject): Request[] => {
      const ref = obj.metadata?.ownerReferences?.find((r) => r.apiVersion === kind.apiVersion && r.kind === kind.kind);
      if (ref) return [{ namespace: kind.namespaced ? obj.metadata?.namespace : undefined, name: ref.name }];
      const a = obj.metadata?.annotations ?? {};
      if (a[primaryResourceTypeAnnotation] !== ownerType || !a[primaryResourceAnnotation]) return [];
      const [namespace, name] = a[primaryResourceAnnotation]!.split('/');
      return name ? [{ namespace: namespace || undefined, name }] : [];
    };
    // The role's own creates are not news; an edit is a spec change (or any change, for kinds without a generation).
    const dependentChanges: Predicate = {
      create: () => false,
      update: (o, n) => (n.metadata?.generation !== undefined ? o.metadata?.generation !== n.metadata.generation : o.metadata?.resourceVersion !== n.metadata?.resourceVersion),
    };
    const blocked = (k: ResourceKind) => watch.blacklist.some((b) => b.group === k.group && b.version === k.version && b.kind === k.kind);
    for (const dep of opts.dependentKinds ?? []) {
      if (blocked(dep) || (!dep.namespaced && !watch.watchClusterScopedResources)) continue;
      registry.add(`${dep.apiVersion}/${dep.kind}`);
      builder = builder.watches(dep, toOwner, { predicates: [dependentChanges] });
    }
  }
  return { controller: builder.complete(reconciler), reconciler };
}

function findWatch(ref: { watches: string; group: string; version: string; kind: string }): AnsibleWatch {
  const all = loadWatches(ref.watches);
  const found = all.find((w) => w.group === ref.group && w.version === ref.version && w.kind === ref.kind);
  if (!found) throw new WatchesError(ref.watches, 1, 1, `no entry for ${ref.kind}.${ref.group}/${ref.version}`, `add one (group: ${ref.group}, version: ${ref.version}, kind: ${ref.kind}, role: …)`);
  return found;
}

function envInt(name: string): number | undefined {
  const v = process.env[name.toUpperCase().replace(/[.-]/g, '_')];
  return v !== undefined && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}

/** watches.yaml's selector (matchLabels, matchExpressions) as a test of an object's labels. */
export function selectorMatcher(selector: AnsibleWatch['selector']): (o: KubeObject) => boolean {
  return (o) => {
    const labels = o.metadata?.labels ?? {};
    const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
    return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v)
      && (selector.matchExpressions ?? []).every((e) => {
        switch (e.operator) {
          case 'In': return has(e.key) && (e.values ?? []).includes(labels[e.key]!);
          case 'NotIn': return !has(e.key) || !(e.values ?? []).includes(labels[e.key]!);
          case 'Exists': return has(e.key);
          case 'DoesNotExist': return !has(e.key);
          default: return false;
        }
      });
  };
}

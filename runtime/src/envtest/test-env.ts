import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveBinaries } from './assets/index.js';
import { EarlyExitError, startControlPlane, withFlags, type ControlPlane } from './internal/control-plane.js';
import { installCrds, pickCrds } from './internal/crds.js';
import { EnvtestKubeConfig } from './internal/kubeconfig.js';
import { durationFromEnv } from './internal/durations.js';
import { readObjects, requireEachEntry } from './internal/manifests.js';
import { releasePort } from './internal/ports.js';
import type { KeyPairPem } from '../internal/tls/tiny-ca.js';
import { Reaper, trackFolder, untrackFolder, type Spawned } from './internal/process.js';
import { findClusterBinaries, startSimulatedCluster, type SimulatedClusterOptions } from './internal/simulated-cluster.js';
import {
  applyConversionPatches, installWebhookConfigurations, pickConversionPatches, pickWebhookConfigurations, prepareWebhookServing,
  rewriteConversionWebhooks, type WebhookServing,
} from './internal/webhooks.js';

export type { WebhookServing, SimulatedClusterOptions };

export interface TestEnvOptions {
  /** CRD manifests: files or folders (read one level deep) of .yaml/.yml/.json, multi-document allowed. */
  crdPaths?: string[];
  /**
   * Mutating/ValidatingWebhookConfiguration manifests, and CRD conversion patches (a
   * CustomResourceDefinition with only metadata.name and spec.conversion, as
   * config/crd/patches/webhook_in_<plural>.yaml), all rewritten to call `env.webhook`, like
   * controller-runtime's WebhookInstallOptions and its conversion set-up. A patched CRD must come
   * from crdPaths.
   */
  webhookPaths?: string[];
  /**
   * Copy etcd and kube-apiserver output to this process's stderr (it is always kept in the temp
   * folder). Default: KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true, as in envtest.
   */
  attachLogs?: boolean;
  /**
   * Folder holding kube-apiserver and etcd; defaults to $KUBEBUILDER_ASSETS. With neither set, the
   * binaries come from the cache, a download or a Go build (see setupEnvtest).
   */
  binaryAssetsDirectory?: string;
  /**
   * Extra kube-apiserver flags, or replacements for the defaults, by name without dashes: e.g.
   * `{ 'feature-gates': 'SomeAlphaFeature=true', 'runtime-config': 'api/alpha=true' }`.
   */
  apiServerFlags?: Record<string, string>;
  /**
   * Also run kube-controller-manager, kube-scheduler and kwok, with fake nodes (`true`: one node):
   * Deployments get pods that are scheduled and become Running and Ready, the garbage collector
   * deletes dependents by owner reference. Costs a few seconds of start-up; see docs/envtest.md.
   */
  simulatedCluster?: boolean | SimulatedClusterOptions;
}

export interface TestEnv {
  /**
   * Admin (system:masters) credentials for the test API server, for createClient/createManager. Needs no
   * @kubernetes/client-node; its makeApiClient()/toClientNode() load that package when called.
   */
  kubeConfig: EnvtestKubeConfig;
  /** The same, written as a kubeconfig file (for kubectl or a child process); removed by stop(). */
  kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  caData: string;
  /**
   * etcd's client URL, http://127.0.0.1:<port>, without authentication: for tests that read what the API
   * server stored (its JSON gateway, POST /v3/kv/range), e.g. the version an object is stored in.
   */
  etcdUrl: string;
  /** Names of the CustomResourceDefinitions installed from crdPaths. */
  crds: string[];
  /**
   * Where the webhooks under test must be served: the configurations from webhookPaths (and CRD
   * conversion webhooks) call https://host:port/<their path>, trusting the certificate in certDir.
   */
  webhook: WebhookServing;
  /**
   * Stops kube-apiserver (SIGTERM) and starts it again on the same port with the same certificates;
   * etcd and its data stay. For tests of watch resumption and reconnects.
   */
  restartApiServer(): Promise<void>;
  /**
   * Credentials for another user, authenticated by a client certificate with CN=name and O=groups,
   * like envtest's AddUser: for testing what RBAC (e.g. the generated role) allows.
   */
  addUser(user: { name: string; groups?: string[] }): EnvtestKubeConfig;
  /** Stops kube-apiserver, then etcd, and removes the temp folder. Safe to call twice. */
  stop(): Promise<void>;
}

const CONTEXT = 'envtest';
const START_ATTEMPTS = 3;

function buildKubeConfig(plane: ControlPlane, user: KeyPairPem): EnvtestKubeConfig {
  return new EnvtestKubeConfig(CONTEXT, plane.server, plane.servingCaPem, user);
}

/** Stops processes in reverse start order (kube-apiserver before etcd), then removes the folder. */
async function tearDown(processes: Spawned[], ports: number[], dir: string, reaper: Reaper, stopTimeoutMs: number): Promise<void> {
  for (const p of [...processes].reverse()) await p.stop(stopTimeoutMs);
  ports.forEach(releasePort);
  rmSync(dir, { recursive: true, force: true });
  untrackFolder(dir);
  reaper.dismiss();
}

async function startOnce(opts: TestEnvOptions): Promise<TestEnv> {
  const binaries = await resolveBinaries(opts.binaryAssetsDirectory);
  const cluster = opts.simulatedCluster ? (opts.simulatedCluster === true ? {} : opts.simulatedCluster) : undefined;
  const clusterBinaries = cluster && findClusterBinaries(cluster, opts.binaryAssetsDirectory);
  const startTimeoutMs = durationFromEnv('KUBEBUILDER_CONTROLPLANE_START_TIMEOUT', 60_000);
  const stopTimeoutMs = durationFromEnv('KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT', 20_000);
  // envtest's switch for the same thing, so kubebuilder users' CI settings carry over.
  const attachLogs = opts.attachLogs ?? /^(1|t|true)$/i.test(process.env.KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT ?? '');
  withFlags([], opts.apiServerFlags ?? {}); // refuses environment flags before anything starts
  // Read manifests before starting anything, so a bad path fails fast.
  const crds = pickCrds(readObjects(opts.crdPaths ?? [], 'crdPaths'));
  requireEachEntry(opts.crdPaths ?? [], crds, 'crdPaths', 'CustomResourceDefinition');
  const webhookObjects = readObjects(opts.webhookPaths ?? [], 'webhookPaths');
  const webhookConfigs = pickWebhookConfigurations(webhookObjects);
  const conversionPatches = pickConversionPatches(webhookObjects);
  requireEachEntry(opts.webhookPaths ?? [], [...webhookConfigs, ...conversionPatches], 'webhookPaths', 'Mutating/ValidatingWebhookConfiguration or CRD conversion patch');
  applyConversionPatches(crds.map(({ crd }) => crd), conversionPatches);

  const dir = mkdtempSync(join(tmpdir(), 'opgen-envtest-'));
  trackFolder(dir);
  const reaper = new Reaper(dir);
  const processes: Spawned[] = [];
  const ports: number[] = [];
  let plane: ControlPlane | undefined;
  try {
    plane = await startControlPlane({
      binaries, dir, reaper, ports, startTimeoutMs, attachLogs, apiServerFlags: opts.apiServerFlags ?? {},
      onSpawn: (p) => processes.push(p),
    });
    const webhook = await prepareWebhookServing(dir, ports);
    rewriteConversionWebhooks(crds.map(({ crd }) => crd), webhook);
    const installed = await installCrds(plane.client, crds, startTimeoutMs);
    await installWebhookConfigurations(plane.client, webhookConfigs, webhook, startTimeoutMs);
    const started = plane; // narrowed for the closures below
    const kubeConfig = buildKubeConfig(started, started.admin);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
    if (cluster && clusterBinaries) {
      await startSimulatedCluster({
        binaries: clusterBinaries, options: cluster, dir, kubeconfigPath, servingCaPem: started.servingCaPem,
        serviceAccountKeyPath: started.serviceAccountKeyPath, client: started.client, reaper, attachLogs, startTimeoutMs,
        onSpawn: (p) => processes.push(p),
      });
    }

    let stopping: Promise<void> | undefined;
    return {
      kubeConfig, kubeconfigPath, server: started.server, caData: started.servingCaPem, etcdUrl: started.etcdUrl, crds: installed, webhook,
      addUser: ({ name, groups = [] }) =>
        buildKubeConfig(started, started.clientCa.issue({ commonName: name, organizations: groups, usage: 'client' })),
      restartApiServer: () => started.restartApiServer(stopTimeoutMs),
      stop: () => {
        stopping ??= (async () => {
          started.client.close();
          await tearDown(processes, ports, dir, reaper, stopTimeoutMs);
        })();
        return stopping;
      },
    };
  } catch (err) {
    plane?.client.close();
    await tearDown(processes, ports, dir, reaper, stopTimeoutMs);
    throw err;
  }
}

/**
 * Starts etcd and kube-apiserver on free loopback ports in a temp folder, waits until the API
 * server is ready, installs the CRDs from `crdPaths` and waits until they are served.
 */
export async function startTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      // Another process can grab a port between our check and the server's bind; try new ports.
      const portRace = err instanceof EarlyExitError && /address already in use/i.test(err.logText);
      if (!portRace || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

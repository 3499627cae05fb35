// The rest of a cluster beside kube-apiserver and etcd, for `startTestEnv({ simulatedCluster })`:
// kube-controller-manager (garbage collector, Deployment/ReplicaSet controllers, service accounts,
// namespace deletion, ...), kube-scheduler, and kwok, which plays the kubelet of fake nodes and moves
// pods through its stages (scheduled → Running and Ready; deleted → gone) without a container runtime.
// The flags follow what kwokctl passes in its "binary" runtime (sigs.k8s.io/kwok
// pkg/kwokctl/components), trimmed to what a test needs: no serving ports, admin credentials.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cachedClusterFolders, STAGES_FILE } from '../assets/cluster.js';
import { findExecutable, MissingBinariesError, opgenCacheRoot } from './binaries.js';
import { poll, type AdminClient } from './admin-client.js';
import { logTail, spawnGroup, type Reaper, type Spawned } from './process.js';

export interface SimulatedClusterOptions {
  /** How many fake nodes to create (named kwok-node-0, kwok-node-1, ...). Default 1. */
  nodes?: number;
  /**
   * Folder holding kube-controller-manager, kube-scheduler, kwok and kwok-stages.yaml (what
   * `.ci/cluster-assets.sh` builds); defaults to $OPGEN_CLUSTER_ASSETS.
   */
  binaryAssetsDirectory?: string;
  /**
   * Extra kube-controller-manager flags by name without dashes, e.g. `{ 'feature-gates':
   * 'StorageVersionMigrator=true' }` (with the same gate and runtime config on the API server).
   */
  controllerManagerFlags?: Record<string, string>;
}

export interface ClusterBinaries {
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
  /** kwok Stage objects (multi-document YAML): what the fake kubelet does to nodes and pods. */
  kwokStages: string;
}

/**
 * Order per binary: TEST_ASSET_KUBE_CONTROLLER_MANAGER / TEST_ASSET_KUBE_SCHEDULER / TEST_ASSET_KWOK,
 * then the option's folder, then $OPGEN_CLUSTER_ASSETS, then the kube-apiserver folders (binaryAssetsDirectory,
 * $KUBEBUILDER_ASSETS), then, when neither the option nor $OPGEN_CLUSTER_ASSETS names a folder, opgen's
 * cache (what `opgen setup-envtest --cluster` and .ci/cluster-assets.sh fill). The stages file is read
 * from beside kwok.
 */
export function findClusterBinaries(
  opts: SimulatedClusterOptions, apiServerFolder: string | undefined, env: NodeJS.ProcessEnv = process.env,
): ClusterBinaries {
  // A folder named on purpose that lacks them stays an error (a typo should not be papered over).
  const named = opts.binaryAssetsDirectory || env.OPGEN_CLUSTER_ASSETS;
  const folders = [opts.binaryAssetsDirectory, env.OPGEN_CLUSTER_ASSETS, apiServerFolder, env.KUBEBUILDER_ASSETS, ...(named ? [] : cachedClusterFolders(env))]
    .filter((f): f is string => !!f);
  const kubeControllerManager = findExecutable('kube-controller-manager', env.TEST_ASSET_KUBE_CONTROLLER_MANAGER, folders);
  const kubeScheduler = findExecutable('kube-scheduler', env.TEST_ASSET_KUBE_SCHEDULER, folders);
  const kwok = findExecutable('kwok', env.TEST_ASSET_KWOK, folders);
  const kwokStages = kwok ? join(dirname(kwok), STAGES_FILE) : undefined;
  if (kubeControllerManager && kubeScheduler && kwok && kwokStages && existsSync(kwokStages)) {
    return { kubeControllerManager, kubeScheduler, kwok, kwokStages };
  }
  const missing = [
    !kubeControllerManager && 'kube-controller-manager', !kubeScheduler && 'kube-scheduler', !kwok && 'kwok',
    kwok && `${STAGES_FILE} beside ${kwok}`,
  ].filter(Boolean).join(', ');
  const found = named ? cachedClusterFolders(env)[0] : undefined;
  throw new MissingBinariesError(
    `envtest: simulatedCluster needs ${missing} (looked in ${folders.join(', ') || `no folder: OPGEN_CLUSTER_ASSETS is unset and ${opgenCacheRoot(env)} has none`}). ` +
    (found ? `This machine has them in ${found}: \`export OPGEN_CLUSTER_ASSETS=${found}\`. Otherwise run` : 'Run') +
    ' `npx opgen setup-envtest --cluster`: it builds them into that cache from the Go module proxy (needs Go >= 1.26, about 10 minutes the first time), where tests find them.',
  );
}

export interface SimulatedClusterStart {
  binaries: ClusterBinaries;
  options: SimulatedClusterOptions;
  dir: string;
  /** Admin kubeconfig file for the components. */
  kubeconfigPath: string;
  /** PEM of the serving CA (published to namespaces as kube-root-ca.crt by kube-controller-manager). */
  servingCaPem: string;
  /** The private key kube-apiserver's --service-account-key-file verifies (for the token controller). */
  serviceAccountKeyPath: string;
  client: AdminClient;
  reaper: Reaper;
  attachLogs: boolean;
  startTimeoutMs: number;
  onSpawn: (p: Spawned) => void;
}

export function nodeName(index: number): string { return `kwok-node-${index}`; }

/**
 * Starts the three components and creates the fake nodes; returns once every node is Ready without
 * start-up taints, kube-controller-manager has created the `default` service account (its
 * controllers run) and kube-scheduler holds its lease (it schedules).
 */
export async function startSimulatedCluster(s: SimulatedClusterStart): Promise<void> {
  const nodes = s.options.nodes ?? 1;
  if (!Number.isInteger(nodes) || nodes < 1) {
    throw new Error(`envtest: simulatedCluster.nodes is ${String(nodes)}; pass a whole number of fake nodes, at least 1`);
  }
  const spawn = (name: string, binary: string, args: string[]): Spawned => {
    const p = spawnGroup(name, binary, args, { logPath: join(s.dir, `${name}.log`), attachLogs: s.attachLogs, reaper: s.reaper });
    s.onSpawn(p);
    return p;
  };
  const caPath = join(s.dir, 'pki', 'serving-ca.crt');
  writeFileSync(caPath, s.servingCaPem, { mode: 0o600 });

  const started = [
    spawn('kube-controller-manager', s.binaries.kubeControllerManager, [
      `--kubeconfig=${s.kubeconfigPath}`,
      // No serving port: nothing scrapes it, and a fixed default port would collide between environments.
      '--secure-port=0',
      // One instance per environment: nothing to elect.
      '--leader-elect=false',
      `--root-ca-file=${caPath}`,
      `--service-account-private-key-file=${s.serviceAccountKeyPath}`,
      // kwokctl's defaults: notice a node that stopped heartbeating within 40 s, check every 5 s.
      '--node-monitor-period=5s',
      '--node-monitor-grace-period=40s',
      // Tests create many objects quickly; the default 20 qps would make the controllers lag behind.
      '--kube-api-qps=200',
      '--kube-api-burst=400',
      ...Object.entries(s.options.controllerManagerFlags ?? {}).map(([k, v]) => `--${k}=${v}`),
    ]),
    spawn('kube-scheduler', s.binaries.kubeScheduler, [
      `--kubeconfig=${s.kubeconfigPath}`,
      '--secure-port=0',
      // With leader election it records a Lease once it runs: the readiness signal used below.
      '--leader-elect=true',
      '--kube-api-qps=200',
      '--kube-api-burst=400',
    ]),
    spawn('kwok', s.binaries.kwok, [
      `--kubeconfig=${s.kubeconfigPath}`,
      `--config=${s.binaries.kwokStages}`,
      '--manage-all-nodes=true',
      // Pod IPs; kwok's default (10.0.0.0/24) is the API server's service range.
      '--cidr=10.244.0.0/16',
      '--node-ip=10.96.0.1',
      '--node-lease-duration-seconds=40',
    ]),
  ];

  // Polls `check`, failing at once when a component exits and quoting every component's log on timeout.
  const waitFor = async <T>(label: string, check: () => Promise<T | undefined>): Promise<T> => {
    const exited = started.map((p) => p.exited.then((code) => {
      throw new Error(`envtest: ${p.name} exited (${code}) while starting; its last output:\n${logTail(p.logPath)}`);
    }));
    exited.forEach((e) => e.catch(() => {}));
    const polling = new AbortController();
    try {
      return await Promise.race([poll(label, s.startTimeoutMs, 100, check, polling.signal), ...exited]);
    } catch (err) {
      const logs = started.map((p) => `--- ${p.name}:\n${logTail(p.logPath, 6)}`).join('\n');
      throw /exited/.test((err as Error).message) ? err : new Error(`${(err as Error).message}; last output:\n${logs}`);
    } finally {
      polling.abort();
    }
  };

  for (let i = 0; i < nodes; i++) {
    const name = nodeName(i);
    const res = await s.client.call('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node',
      metadata: {
        name,
        labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      },
    });
    if (res.status !== 201) throw new Error(`envtest: creating fake node ${name} failed (${res.status}): ${res.text}`);
  }

  type Node = { metadata: { name: string }; spec?: { taints?: Array<{ key: string }> }; status?: { conditions?: Array<{ type: string; status: string }> } };
  await waitFor(`${nodes} fake node(s) Ready without start-up taints`, async () => {
    const res = await s.client.call('GET', '/api/v1/nodes?labelSelector=type%3Dkwok', undefined, 2000);
    const items = (res.body as { items?: Node[] } | undefined)?.items ?? [];
    const ready = items.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
      !(n.spec?.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/')));
    return ready.length >= nodes ? true : undefined;
  });
  await waitFor('kube-controller-manager: service account default/default', async () => {
    const res = await s.client.call('GET', '/api/v1/namespaces/default/serviceaccounts/default', undefined, 2000);
    return res.status === 200 ? true : undefined;
  });
  await waitFor('kube-scheduler: its lease in kube-system', async () => {
    const res = await s.client.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler', undefined, 2000);
    const holder = (res.body as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity;
    return res.status === 200 && holder ? true : undefined;
  });
}

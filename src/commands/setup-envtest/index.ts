// `opgen setup-envtest [version] [-p path] [--cluster]`: kubebuilder's `setup-envtest use`, for priming a
// cache in CI or pointing KUBEBUILDER_ASSETS somewhere. The work is @opgen/runtime/envtest's
// setupEnvtest(), the same code startTestEnv runs when nothing is configured, so the command and the
// tests always agree. --cluster adds the simulated cluster's binaries (setupCluster()), found in the
// same cache or built with Go; startTestEnv({ simulatedCluster: true }) finds them there.
import { basename, dirname } from 'node:path';
import { OpgenError } from '../../diag/diagnostic.js';
import type { CommandContext } from '../../common/command-context.js';

export type PrintFormat = 'overview' | 'path' | 'env';

export interface SetupEnvtestCommandOptions {
  version?: string;
  print: PrintFormat;
  indexUrl?: string;
  build: boolean;
  /** Also kube-controller-manager, kube-scheduler and kwok for startTestEnv({ simulatedCluster: true }). */
  cluster: boolean;
}

/** The slice of @opgen/runtime/envtest this command uses (loaded at run time from the project). */
interface EnvtestModule {
  setupEnvtest(opts: { version?: string; indexUrl?: string; build?: boolean }): Promise<string>;
  setupCluster?(opts: { k8sVersion?: string; build?: boolean }): Promise<string>;
}

const VERSION = /^v?\d+\.\d+(\.\d+|\.x)?$/;

export async function setupEnvtestCommand(ctx: CommandContext, o: SetupEnvtestCommandOptions): Promise<number> {
  if (o.version !== undefined && !VERSION.test(o.version)) {
    throw new OpgenError(`'${o.version}' is not a Kubernetes version`, { flag: 'setup-envtest' }, 'write it like 1.36, 1.36.x or 1.36.3');
  }
  if (o.indexUrl !== undefined && !/^(https?|file):\/\//.test(o.indexUrl)) {
    throw new OpgenError(`'${o.indexUrl}' is not a URL`, { flag: '--index-url' }, 'give an http(s) URL of an envtest-releases.yaml');
  }
  let envtest: EnvtestModule;
  const specifier = '@opgen/runtime/envtest'; // a project dependency, not opgen's own
  try {
    envtest = (await import(specifier)) as EnvtestModule;
  } catch {
    throw new OpgenError('@opgen/runtime is not installed here', { flag: 'setup-envtest' }, 'run it in an opgen project, or `npm install @opgen/runtime` first');
  }
  if (o.cluster && envtest.setupCluster === undefined) {
    throw new OpgenError("this project's @opgen/runtime cannot set up the simulated cluster", { flag: '--cluster' }, 'install a newer @opgen/runtime (the one this opgen came with)');
  }
  // kube-apiserver first: the cluster's components are built from the same Kubernetes release, and Go's
  // build cache reuses most of what a kube-apiserver build compiled.
  const folder = await envtest.setupEnvtest({ version: o.version, indexUrl: o.indexUrl, build: o.build });
  const cluster = o.cluster ? await envtest.setupCluster!({ k8sVersion: /\d+\.\d+\.\d+/.exec(basename(folder))?.[0], build: o.build }) : undefined;
  if (o.print === 'path') ctx.out(cluster ?? folder);
  else if (o.print === 'env') {
    ctx.out(`export KUBEBUILDER_ASSETS='${folder}'`);
    if (cluster) ctx.out(`export OPGEN_CLUSTER_ASSETS='${cluster}'`);
  } else {
    ctx.out(`kube-apiserver and etcd: ${folder}`);
    if (cluster) ctx.out(`kube-controller-manager, kube-scheduler and kwok: ${cluster}`);
    ctx.out(`cache: ${dirname(folder)}`);
    ctx.out(`tests find them there without KUBEBUILDER_ASSETS${cluster ? ' or OPGEN_CLUSTER_ASSETS' : ''}; to point other tools at them: export KUBEBUILDER_ASSETS='${folder}'`);
  }
  return 0;
}

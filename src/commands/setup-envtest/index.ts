// `opgen setup-envtest [version] [-p path]`: kubebuilder's `setup-envtest use`, for priming a cache in CI
// or pointing KUBEBUILDER_ASSETS somewhere. The work is @opgen/runtime/envtest's setupEnvtest(), the
// same code startTestEnv runs when nothing is configured, so the command and the tests always agree.
import { dirname } from 'node:path';
import { OpgenError } from '../../diag/diagnostic.js';
import type { CommandContext } from '../../common/command-context.js';

export type PrintFormat = 'overview' | 'path' | 'env';

export interface SetupEnvtestCommandOptions {
  version?: string;
  print: PrintFormat;
  indexUrl?: string;
  build: boolean;
}

/** The slice of @opgen/runtime/envtest this command uses (loaded at run time from the project). */
interface EnvtestModule {
  setupEnvtest(opts: { version?: string; indexUrl?: string; build?: boolean }): Promise<string>;
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
  const folder = await envtest.setupEnvtest({ version: o.version, indexUrl: o.indexUrl, build: o.build });
  if (o.print === 'path') ctx.out(folder);
  else if (o.print === 'env') ctx.out(`export KUBEBUILDER_ASSETS='${folder}'`);
  else {
    ctx.out(`kube-apiserver and etcd: ${folder}`);
    ctx.out(`cache: ${dirname(folder)}`);
    ctx.out(`tests find them there without KUBEBUILDER_ASSETS; to point other tools at them: export KUBEBUILDER_ASSETS='${folder}'`);
  }
  return 0;
}

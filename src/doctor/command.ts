// `opgen doctor`: reads the cluster (/version, CRDs and their stored versions, RBAC, webhooks) and the project, and reports a table
// with a fix for every problem; exit 1 when any check found an error.
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { checkCrds } from './crds.js';
import { formatTable, sortFindings, worst, type Finding } from './findings.js';
import { Kubectl, KubectlError, type KubectlTarget } from './kubectl.js';
import { loadDoctorProject } from './project.js';
import { checkRbac } from './rbac.js';
import { checkStoredVersions } from './storage.js';
import { checkVersion } from './version.js';
import { checkWebhooks } from './webhooks.js';

export interface DoctorOptions extends KubectlTarget {
  output: 'table' | 'json';
  /** `<namespace>/<name>`: the operator's service account, instead of the one config/ names. */
  serviceAccount?: string;
}

export interface DoctorReport {
  status: 'ok' | 'warning' | 'error';
  server: { gitVersion: string; major: string; minor: string };
  findings: Finding[];
}

export async function runDoctor(cwd: string, opts: Omit<DoctorOptions, 'output'>): Promise<DoctorReport> {
  const project = loadDoctorProject(cwd);
  if (opts.serviceAccount !== undefined) {
    const m = /^([a-z0-9-]+)\/([a-z0-9.-]+)$/.exec(opts.serviceAccount);
    if (!m) throw new OpgenError(`'${opts.serviceAccount}' is not <namespace>/<name>`, { flag: '--service-account' }, 'write it as my-operator-system/my-operator-controller-manager');
    project.serviceAccount = { namespace: m[1]!, name: m[2]! };
  }
  const kubectl = new Kubectl(opts, cwd);
  try {
    const version = await checkVersion(kubectl, project.config.minKubeVersion);
    const findings = [
      ...version.findings,
      ...(await checkCrds(kubectl, project.crds)),
      ...(await checkStoredVersions(kubectl, project.crds)),
      ...(await checkRbac(kubectl, project)),
      ...(await checkWebhooks(kubectl, project.webhookConfigurations, project.crds.map((c) => c.metadata?.name ?? ''))),
    ];
    const { gitVersion, major, minor } = version.server;
    return { status: worst(findings), server: { gitVersion, major, minor }, findings: sortFindings(findings) };
  } catch (err) {
    if (err instanceof KubectlError) {
      throw new OpgenError(`cannot read the cluster: ${err.message}`, { flag: 'kubectl' }, 'check kubectl config current-context, or pass --kubeconfig/--context');
    }
    throw err;
  }
}

export async function doctorCommand(ctx: CommandContext, opts: DoctorOptions): Promise<number> {
  const report = await runDoctor(ctx.cwd, opts);
  if (opts.output === 'json') ctx.out(JSON.stringify(report, null, 2));
  else for (const line of formatTable(report.findings)) ctx.out(line);
  return report.status === 'error' ? 1 : 0;
}

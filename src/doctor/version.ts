// Version skew: the Kubernetes release of @opgen/runtime's built-in types (and of the CEL environment
// opgen checks rules against) vs the API server's /version vs PROJECT's minKubeVersion.
import { RUNTIME_KUBERNETES_VERSION, versionSkew, type ServerVersion } from '@opgen/runtime';
import { CEL_LIBRARIES } from '../cel/versions.js';
import { formatKubeMinor, kubeOlder, parseKubeVersion } from '../common/kube-version.js';
import type { Finding } from './findings.js';
import type { Kubectl } from './kubectl.js';

/** The group-versions @opgen/runtime/kubernetes types (tools/kubernetes-types), as the server serves them. */
export const TYPED_GROUP_VERSIONS: readonly string[] = [
  'v1', 'apps/v1', 'batch/v1', 'networking.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1', 'coordination.k8s.io/v1',
  'events.k8s.io/v1', 'autoscaling/v2', 'admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1',
];

interface ApiGroupList {
  groups?: Array<{ versions?: Array<{ groupVersion: string }> }>;
}

export async function checkVersion(kubectl: Kubectl, minKubeVersion: string | undefined): Promise<{ findings: Finding[]; server: ServerVersion }> {
  const server = await kubectl.raw<ServerVersion>('/version');
  const [core, groups] = await Promise.all([kubectl.raw<{ versions?: string[] }>('/api'), kubectl.raw<ApiGroupList>('/apis')]);
  const served = new Set([...(core.versions ?? []), ...(groups.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion))]);
  return { findings: versionFindings(server, served, minKubeVersion), server };
}

/** Findings from a /version answer, the group-versions the server serves and PROJECT's minKubeVersion. */
export function versionFindings(server: ServerVersion, served: ReadonlySet<string>, minKubeVersion: string | undefined): Finding[] {
  const skew = versionSkew(server);
  const window = `${formatKubeMinor(skew.oldest)}-${formatKubeMinor(skew.newest)}`;
  const subject = `server ${server.gitVersion}`;
  const findings: Finding[] = [];
  if (!skew.outside) {
    findings.push({ check: 'version', subject, status: 'ok', message: `inside @opgen/runtime's window ${window} (types and CEL environment of Kubernetes ${RUNTIME_KUBERNETES_VERSION})` });
  } else if (skew.outside === 'older') {
    // A CEL library introduced in 1.N is accepted in new CRDs from 1.N+1 (the API server's compatibility version is N-1).
    const lacking = CEL_LIBRARIES.filter((l) => l.introduced + 1 > skew.server.minor).map((l) => l.name);
    findings.push({
      check: 'version', subject, status: 'error',
      message: `older than @opgen/runtime's window ${window} (types of ${RUNTIME_KUBERNETES_VERSION}): kinds and fields added since ${formatKubeMinor(skew.server)} are missing there` +
        (lacking.length > 0 ? `; its API server refuses CRD rules using ${lacking.join(', ')}` : ''),
      fix: `upgrade the cluster to Kubernetes ${formatKubeMinor(skew.oldest)} or later, or use an @opgen/runtime release whose types are at most 3 minors newer than the server`,
    });
  } else {
    findings.push({
      check: 'version', subject, status: 'warning',
      message: `newer than @opgen/runtime's window ${window} (types of ${RUNTIME_KUBERNETES_VERSION}): the server may serve versions and fields the types do not know, and have removed beta APIs they still have`,
      fix: `upgrade opgen and @opgen/runtime to a release whose types are of Kubernetes ${formatKubeMinor(skew.server)} or at most one minor older`,
    });
  }
  const missing = TYPED_GROUP_VERSIONS.filter((gv) => !served.has(gv));
  if (missing.length > 0) {
    findings.push({
      check: 'version', subject: 'built-in kinds', status: 'warning',
      message: `the server does not serve ${missing.join(', ')}: the runtime's typed kinds of ${missing.length === 1 ? 'that group-version' : 'those group-versions'} answer 404 there`,
      fix: 'enable the API group on the API server (--runtime-config), or do not use those kinds',
    });
  }
  if (minKubeVersion !== undefined) {
    const min = parseKubeVersion(minKubeVersion);
    if (min && kubeOlder(skew.server, min)) {
      findings.push({
        check: 'version', subject: `PROJECT minKubeVersion ${minKubeVersion}`, status: 'error',
        message: `the server is Kubernetes ${formatKubeMinor(skew.server)}, older than the project's declared minimum ${formatKubeMinor(min)}: its CRDs may use CEL functions and fields this server lacks`,
        fix: `use a cluster of Kubernetes ${formatKubeMinor(min)} or later, or lower minKubeVersion in PROJECT to "${formatKubeMinor(skew.server)}" (opgen generate then checks the CEL rules against it)`,
      });
    } else if (min && kubeOlder(min, skew.oldest)) {
      findings.push({
        check: 'version', subject: `PROJECT minKubeVersion ${minKubeVersion}`, status: 'warning',
        message: `below @opgen/runtime's window ${window}: on servers older than ${formatKubeMinor(skew.oldest)} the manager warns at start and kinds or fields of the types may be missing`,
        fix: `raise minKubeVersion in PROJECT to "${formatKubeMinor(skew.oldest)}"`,
      });
    } else if (min) {
      findings.push({ check: 'version', subject: `PROJECT minKubeVersion ${minKubeVersion}`, status: 'ok', message: `the server (${formatKubeMinor(skew.server)}) meets it, and it is inside the window` });
    }
  }
  return findings;
}


// Copied into the e2e project as src/controller/memcached-deployment.ts: the Memcached tutorial's
// reconcile step written with the typed built-in kinds and the runtime's helpers. The test compiles it
// with tsc --strict and lints it; it must need no casts.
import { createOrUpdate, setConditions, setControllerReference, type Client, type EventRecorder } from '@opgen/runtime';
import { appsv1, type corev1 } from '@opgen/runtime/kubernetes';
import { Memcached } from '../api/v1alpha1/memcached-types.js';

export async function ensureDeployment(client: Client, events: EventRecorder, memcached: Memcached): Promise<void> {
  const name = memcached.metadata?.name ?? 'memcached';
  const labels = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': name };
  const deployment: appsv1.Deployment = { metadata: { name, namespace: memcached.metadata?.namespace } };
  const result = await createOrUpdate(client, appsv1.Deployment, deployment, (d) => {
    const spec: appsv1.DeploymentSpec = (d.spec ??= { selector: { matchLabels: labels }, template: {} });
    spec.replicas = 1;
    spec.template.metadata = { ...spec.template.metadata, labels };
    const pod: corev1.PodSpec = (spec.template.spec ??= { containers: [] });
    pod.securityContext = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
    let container = pod.containers.find((c) => c.name === 'memcached');
    if (!container) pod.containers.push((container = { name: 'memcached' }));
    container.image = 'memcached:1.6.26-alpine3.19';
    container.imagePullPolicy = 'IfNotPresent';
    container.ports = [{ containerPort: 11211, name: 'memcached', protocol: 'TCP' }];
    container.securityContext = { runAsUser: 1001, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    container.resources = { limits: { cpu: '500m', memory: '64Mi' } };
    setControllerReference(memcached, d, Memcached);
  });

  const updated: number = deployment.status?.updatedReplicas ?? 0;
  const available = deployment.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';
  const changed = setConditions(
    memcached,
    { type: 'Available', status: available ? 'True' : 'False', reason: available ? 'Ready' : 'Waiting', message: `${updated} pods up to date` },
    { type: 'Progressing', status: available ? 'False' : 'True', reason: result === 'unchanged' ? 'Steady' : 'Reconciling', message: '' },
  );
  events.eventf(memcached, 'Normal', 'DeploymentSynced', 'deployment %s %s (%d pods up to date)', name, result, updated);
  if (changed) await client.status().update(Memcached, memcached);
}

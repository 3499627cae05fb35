// The TypeScript twin of test/parity/go/cluster/clusterapi: its version comes from +versionName, and
// every field is optional unless marked.
// +groupName=cluster.parity.opgen.dev
// +versionName=v1beta1
// +kubebuilder:validation:Optional
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('cluster.parity.opgen.dev', 'v1beta1');

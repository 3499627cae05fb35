// The TypeScript twin of test/parity/go/kubernetes/v1: Kubernetes' own types in a Spec.
// +groupName=kubernetes.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('kubernetes.parity.opgen.dev', 'v1');

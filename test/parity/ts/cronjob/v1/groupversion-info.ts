// The TypeScript twin of test/parity/go/cronjob/v1: the shape of kubebuilder's CronJob tutorial API.
// +groupName=batch.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('batch.parity.opgen.dev', 'v1');

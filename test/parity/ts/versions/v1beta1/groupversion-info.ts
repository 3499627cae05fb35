// The TypeScript twin of test/parity/go/versions/v1beta1.
// +groupName=versions.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('versions.parity.opgen.dev', 'v1beta1');

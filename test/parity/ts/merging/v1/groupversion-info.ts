// The TypeScript twin of test/parity/go/merging/v1.
// +groupName=merging.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('merging.parity.opgen.dev', 'v1');

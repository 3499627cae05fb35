// The TypeScript twin of test/parity/go/versions/v3.
// +groupName=versions.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('versions.parity.opgen.dev', 'v3');

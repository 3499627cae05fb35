// The TypeScript twin of test/parity/go/basics/v1.
// +groupName=basics.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('basics.parity.opgen.dev', 'v1');

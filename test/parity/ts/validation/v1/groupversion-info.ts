// The TypeScript twin of test/parity/go/validation/v1.
// +groupName=validation.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('validation.parity.opgen.dev', 'v1');

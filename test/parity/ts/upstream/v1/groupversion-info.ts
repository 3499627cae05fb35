// The TypeScript twin of test/parity/go/upstream/v1: what public Go APIs write that our own tests did not.
// +groupName=upstream.parity.opgen.dev
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('upstream.parity.opgen.dev', 'v1');

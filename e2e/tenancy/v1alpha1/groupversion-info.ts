// The tenancy.example.com v1alpha1 API of the tenant recipe (docs/multi-tenancy.md).
// +groupName=tenancy.example.com
import { groupVersion } from '@opgen/runtime';

export const GroupVersion = groupVersion('tenancy.example.com', 'v1alpha1');

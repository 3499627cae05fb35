// The runtime's pluraliser is opgen's only one (flect's rules, see runtime/src/api/pluralize.ts): the
// CRDs opgen writes and the ResourceKinds an operator's client uses must agree on every plural.
export { pluralize } from '@opgen/runtime/pluralize';

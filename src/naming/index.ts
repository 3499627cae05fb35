export { pluralize } from './pluralize.js';
export { checkApiVersion, checkDns1035Label, checkDns1123Label, checkDns1123Subdomain, checkKind } from './validate.js';

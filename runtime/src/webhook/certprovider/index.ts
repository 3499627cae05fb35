// The self certificate provider: the manager keeps its webhook serving certificate and CA in a Secret,
// injects the CA bundle, and rotates both before they expire (`opgen create webhook --cert-provider self`).
export { SelfCertificateProvider, type SelfCertificateStats } from './provider.js';
export { selfCertificateFromEnv, selfCertificateEnv, defaults as selfCertificateDefaults, type SelfCertificateOptions } from './options.js';

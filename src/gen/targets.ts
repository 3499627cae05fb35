// What `opgen generate` can write, in its default order. Its own module so the CLI can validate
// arguments without loading the generators.
export const generateTargets = ['crd', 'rbac', 'webhook'] as const;
export type GenerateTarget = (typeof generateTargets)[number];

// data/kubernetes-models.json must be exactly what tools/kubernetes-data/generate.ts produces from the
// Kubernetes v1.36.3 OpenAPI and controller-gen over k8s.io/api: a hand edit or a stale file fails here.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generateKubernetesData, kubernetesDataFile } from '../../tools/kubernetes-data/generate.js';
import { controllerGen, warmUp } from './harness.js';

warmUp();

it('data/kubernetes-models.json is current (npm run data:kubernetes regenerates it)', () => {
  process.env.OPGEN_CONTROLLER_GEN ??= controllerGen();
  const out = join(mkdtempSync(join(tmpdir(), 'opgen-kubernetes-data-')), 'kubernetes-models.json');
  generateKubernetesData(out);
  expect(readFileSync(out, 'utf8') === readFileSync(kubernetesDataFile, 'utf8'), 'regenerated data differs from data/kubernetes-models.json').toBe(true);
}, 300_000);

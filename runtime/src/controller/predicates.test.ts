import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types.js';
import { allowCreate, allowUpdate, predicates } from './predicates.js';

const obj = (generation: number, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({
  metadata: { name: 'a', generation, labels, annotations, resourceVersion: String(generation) },
});

describe('predicates', () => {
  it('generationChanged passes spec changes only', () => {
    const p = predicates.generationChanged();
    expect(p.update!(obj(1), obj(1, { x: 'y' }))).toBe(false);
    expect(p.update!(obj(1), obj(2))).toBe(true);
    expect(allowCreate([p], obj(1))).toBe(true);
  });

  it('labelsChanged and annotationsChanged compare the maps', () => {
    expect(predicates.labelsChanged().update!(obj(1, { a: '1' }), obj(2, { a: '1' }))).toBe(false);
    expect(predicates.labelsChanged().update!(obj(1, { a: '1' }), obj(1, { a: '2' }))).toBe(true);
    expect(predicates.labelsChanged().update!(obj(1, { a: '1' }), obj(1, {}))).toBe(true);
    expect(predicates.annotationsChanged().update!(obj(1, {}, { n: 'x' }), obj(1, {}, { n: 'x' }))).toBe(false);
    expect(predicates.annotationsChanged().update!(obj(1), obj(1, {}, { n: 'x' }))).toBe(true);
  });

  it('or/and/not combine', () => {
    const either = predicates.or(predicates.generationChanged(), predicates.labelsChanged());
    expect(allowUpdate([either], obj(1), obj(1, { a: 'b' }))).toBe(true);
    expect(allowUpdate([either], obj(1), obj(1, {}, { z: 'z' }))).toBe(false);
    const both = predicates.and(predicates.generationChanged(), predicates.labelsChanged());
    expect(allowUpdate([both], obj(1), obj(2))).toBe(false);
    expect(allowUpdate([predicates.not(predicates.generationChanged())], obj(1), obj(2))).toBe(false);
    const named = predicates.filter((o) => o.metadata?.name === 'a');
    expect(allowCreate([named], obj(1))).toBe(true);
  });
});

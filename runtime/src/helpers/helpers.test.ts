import { describe, expect, it } from 'vitest';
import { groupVersion } from '../api/kind.js';
import type { Condition, KubeObject } from '../api/types.js';
import { ConfigMap } from '../api/builtins.js';
import { findStatusCondition, isStatusConditionTrue, removeStatusCondition, setStatusCondition } from './conditions.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
import { AlreadyOwnedError, getControllerOf, setControllerReference, setOwnerReference } from './owner-references.js';

const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind('Memcached');
const owner = (name: string, uid: string): KubeObject => ({ metadata: { name, namespace: 'ns', uid } });
const child = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });

describe('setStatusCondition', () => {
  const base = { type: 'Ready', status: 'False' as const, reason: 'Creating', message: 'creating', observedGeneration: 1 };

  it('adds a missing condition with a transition time', () => {
    const { conditions, changed } = setStatusCondition(undefined, base);
    expect(changed).toBe(true);
    expect(conditions).toHaveLength(1);
    expect(conditions[0]!.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('keeps lastTransitionTime when only reason, message or generation change', () => {
    const start: Condition[] = [{ ...base, lastTransitionTime: '2020-01-01T00:00:00Z' }];
    const { conditions, changed } = setStatusCondition(start, { ...base, reason: 'Waiting', message: 'still', observedGeneration: 2 });
    expect(changed).toBe(true);
    expect(conditions[0]).toEqual({ ...base, reason: 'Waiting', message: 'still', observedGeneration: 2, lastTransitionTime: '2020-01-01T00:00:00Z' });
    expect(start[0]!.reason).toBe('Creating');
  });

  it('moves lastTransitionTime when status changes, and reports no change for an identical condition', () => {
    const start: Condition[] = [{ ...base, lastTransitionTime: '2020-01-01T00:00:00Z' }];
    const flipped = setStatusCondition(start, { ...base, status: 'True' });
    expect(flipped.conditions[0]!.lastTransitionTime).not.toBe('2020-01-01T00:00:00Z');
    expect(isStatusConditionTrue(flipped.conditions, 'Ready')).toBe(true);
    const same = setStatusCondition(flipped.conditions, { ...base, status: 'True' });
    expect(same.changed).toBe(false);
  });

  it('keeps one condition per type and removes by type', () => {
    let list = setStatusCondition(undefined, base).conditions;
    list = setStatusCondition(list, { ...base, type: 'Degraded' }).conditions;
    list = setStatusCondition(list, { ...base, status: 'True' }).conditions;
    expect(list.map((c) => c.type)).toEqual(['Ready', 'Degraded']);
    const removed = removeStatusCondition(list, 'Ready');
    expect(removed.changed).toBe(true);
    expect(findStatusCondition(removed.conditions, 'Ready')).toBeUndefined();
    expect(removeStatusCondition(removed.conditions, 'Ready').changed).toBe(false);
  });
});

describe('finalizers', () => {
  it('adds once, reports changes, removes', () => {
    const obj = child();
    expect(addFinalizer(obj, 'example.com/cleanup')).toBe(true);
    expect(addFinalizer(obj, 'example.com/cleanup')).toBe(false);
    expect(hasFinalizer(obj, 'example.com/cleanup')).toBe(true);
    expect(obj.metadata?.finalizers).toEqual(['example.com/cleanup']);
    expect(removeFinalizer(obj, 'example.com/cleanup')).toBe(true);
    expect(removeFinalizer(obj, 'example.com/cleanup')).toBe(false);
    expect(obj.metadata?.finalizers).toEqual([]);
  });
});

describe('owner references', () => {
  it('sets a controller reference with blockOwnerDeletion', () => {
    const obj = child();
    setControllerReference(owner('m', 'u1'), obj, Memcached);
    expect(obj.metadata?.ownerReferences).toEqual([
      { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', name: 'm', uid: 'u1', blockOwnerDeletion: true, controller: true },
    ]);
    // Setting the same controller again is idempotent.
    setControllerReference(owner('m', 'u1'), obj, Memcached);
    expect(obj.metadata?.ownerReferences).toHaveLength(1);
  });

  it('refuses a second controller', () => {
    const obj = child();
    setControllerReference(owner('m', 'u1'), obj, Memcached);
    expect(() => setControllerReference(owner('other', 'u2'), obj, Memcached)).toThrow(AlreadyOwnedError);
    expect(getControllerOf(obj)?.name).toBe('m');
  });

  it('adds plain owners next to the controller and rejects cross-namespace owners', () => {
    const obj = child();
    setControllerReference(owner('m', 'u1'), obj, Memcached);
    setOwnerReference(owner('other', 'u2'), obj, Memcached);
    expect(obj.metadata?.ownerReferences?.map((r) => [r.name, r.controller])).toEqual([
      ['m', true],
      ['other', undefined],
    ]);
    const far = { metadata: { name: 'x', namespace: 'elsewhere', uid: 'u3' } };
    expect(() => setOwnerReference(far, obj, Memcached)).toThrow(/cross-namespace/);
    expect(() => setControllerReference({ metadata: { name: 'n' } }, obj, ConfigMap)).toThrow(/uid/);
  });
});

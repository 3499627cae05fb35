export { setControllerReference, setOwnerReference, getControllerOf, hasOwnerReference, AlreadyOwnedError } from './owner-references.js';
export { hasFinalizer, addFinalizer, removeFinalizer, isBeingDeleted, ensureFinalizer, releaseFinalizer } from './finalizers.js';
export {
  setStatusCondition,
  findStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
  removeStatusCondition,
  nowTime,
  type ConditionInput,
} from './conditions.js';

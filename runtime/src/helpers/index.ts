export { setControllerReference, setOwnerReference, getControllerOf, hasOwnerReference, AlreadyOwnedError } from './owner-references.js';
export { hasFinalizer, addFinalizer, removeFinalizer, isBeingDeleted, ensureFinalizer, releaseFinalizer } from './finalizers.js';
export {
  setStatusCondition,
  findStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
  removeStatusCondition,
  setConditions,
  removeConditions,
  nowTime,
  readyPrinterColumnMarkers,
  conditionPolarity,
  defaultConditionPolarity,
  isAbnormalStatus,
  type ConditionInput,
  type ObjectConditionInput,
  type WithConditions,
} from './conditions.js';
export {
  createOrUpdate, createOrPatch, mergePatchFrom, jsonEqual, MutateChangedKeyError,
  type OperationResult, type MutateFn, type ReadWriter, type ObjectStub,
} from './create-or-update.js';

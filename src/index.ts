/**
 * burn-ts: Burn, the deep-learning framework, in TypeScript.
 *
 * The facade: tensors, data, devices, distributions, kinds and errors, plus the `activation`,
 * `functional` (Burn's `module::*` ops), `linalg`, `signal`, `grid` and `loss` namespaces.
 * Backend authors find the `Backend` interface and `BaseBackend` here too.
 */
export { Tensor, type TensorOptions, type DeviceOrOptions, type Dims, type NotPromise } from './tensor/tensor.js';
export type { SliceArg, IndexingUpdateOp, PadMode } from './tensor/api/indexing.js';
export type { ToDataOptions } from './tensor/api/base.js';
export { TensorData } from './core/data.js';
export { Transaction } from './tensor/transaction.js';
export {
  defineCustomOp,
  CustomOp,
  type CustomOpDefinition,
  type CustomOpBackwardContext,
  type CustomOpInputInfo,
  type CustomOpTensors,
  type CpuCustomForward,
  type CpuCustomInput,
  type CpuCustomOutput,
  type CustomKernelInfo,
  type WebGpuCustomForward,
} from './tensor/custom-op.js';
export { Tolerance } from './core/tolerance.js';
export { Distribution } from './core/distribution.js';
export { BurnError } from './core/errors.js';
export { setPrintOptions, getPrintOptions, type PrintOptions } from './tensor/display.js';
export type { DType, FloatDType, IntDType } from './core/dtype.js';
export type { Float, Int, Bool, Kind, Numeric, KindOf } from './tensor/kind.js';
export type { Nested } from './core/nested.js';
export type { NumericArray, StorageArray } from './core/element.js';
export {
  Device,
  type CpuEngine,
  type CpuOptions,
  type DeviceDtypes,
  type DeviceSettings,
  type DeviceType,
  type RemoteOptions,
  type WebGpuOptions,
} from './device/device.js';
export { Module, type ParamFilter } from './module/module.js';
export type { ModuleStoreLike } from './module/store-port.js';
export { Param, RunningState, type ParamId, type ParamOptions } from './module/param.js';
export { flattenRecord, unflattenRecord, type ModuleRecord, type RecordItem } from './module/record.js';
export {
  Config,
  z,
  type ConfigClass,
  type ConfigInstance,
  type ConfigShape,
  type ConfigValues,
  type ConfigInput,
  type FieldInput,
} from './config/config.js';
export type { Backend, RequiredOps, TensorPrimitive, SliceSpec } from './backend/backend.js';
export type { CustomCall, CustomKernel, CustomBackward, CustomSaved } from './backend/custom.js';
export { BaseBackend } from './backend/base.js';
export { Gradients, type AutodiffOps } from './backend/autodiff.js';
export type * from './backend/options.js';
export type { UnaryOp, BinaryOp, CompareOp, ReduceOp, ArgOp, ScanOp, ScatterOp, PredicateOp } from './backend/ops.js';
export type { RandomKey } from './backend/rng.js';
export * as activation from './tensor/activation/index.js';
export * as functional from './tensor/functional/index.js';
export * as linalg from './tensor/linalg/index.js';
export * as signal from './tensor/signal/index.js';
export * as grid from './tensor/grid/index.js';
export * as loss from './tensor/loss/index.js';

/**
 * `burn-ts/store`: loading and saving module tensors through stores (burnpack, SafeTensors,
 * PyTorch `.pt`/`.pth`), with adapters, key remapping, filters and a load report, as Burn's
 * `burn-store` crate. Use them with `module.saveInto(store)` and `module.loadFrom(store)`.
 */
export { ModuleStore } from './store.js';
export { BurnpackStore } from './burnpack-store.js';
export { SafetensorsStore } from './safetensors/store.js';
export { PytorchStore } from './pytorch/store.js';
export { ApplyResult, formatApplyError, type ApplyError } from './apply-result.js';
export { PathFilter, type PathPredicate } from './filter.js';
export { KeyRemapper, mapIndicesContiguous } from './remap.js';
export {
  ModuleAdapter,
  ChainAdapter,
  IdentityAdapter,
  PyTorchToBurnAdapter,
  BurnToPyTorchAdapter,
  HalfPrecisionAdapter,
  FloatCastAdapter,
} from './adapter.js';
export { TensorSnapshot } from './snapshot.js';
export { collectSnapshots, applySnapshots, type CollectOptions, type ApplyOptions } from './module-snapshot.js';
export { snakePath, stripEnumVariants } from '../module/naming.js';
export { DEFAULT_LOAD_LIMITS, type LoadLimits } from '../record/limits.js';
export { IndexedDbStorage } from './indexeddb.js';
export { fetchModule } from './fetch.js';

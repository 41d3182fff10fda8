/**
 * `burn-ts/record`: recorders that save and load records (a module's, an optimizer's or a
 * scheduler's tensors plus JSON metadata) to files or bytes, as Burn's `record` module, and
 * the burnpack container.
 */
export {
  Recorder,
  FullPrecisionSettings,
  HalfPrecisionSettings,
  DoublePrecisionSettings,
  applyPrecision,
  type PrecisionSettings,
  type TensorRecord,
  type RecordTensor,
  type JsonValue,
} from './recorder.js';
export { BurnpackRecorder, DefaultRecorder, BurnpackBytesRecorder } from './burnpack-recorder.js';
export { NamedMpkFileRecorder, NamedMpkGzFileRecorder, NamedMpkBytesRecorder, CompactRecorder } from './mpk.js';
export { BinFileRecorder, BinGzFileRecorder, BinBytesRecorder, SensitiveCompactRecorder } from './bin.js';
export { PrettyJsonFileRecorder } from './json.js';
export {
  BURNPACK_ALIGNMENT,
  BURNPACK_EXTENSION,
  BURNPACK_MAGIC,
  BURNPACK_VERSION,
  encodeBurnpack,
  readBurnpack,
  type BurnpackContents,
  type BurnpackScalar,
  type BurnpackTensorEntry,
  type BurnpackTensorInput,
} from './burnpack.js';
export { bytesSource, fileSource, type ByteSource, type FileSourceOptions } from './source.js';
export { DEFAULT_LOAD_LIMITS, type LoadLimits } from './limits.js';
export { paramIdToU64, u64ToParamId } from './param-id.js';
// Module ↔ record glue lives in the module layer (above record); this entry point re-exports it (a facade: see scripts/check-layers.mjs).
export { moduleToRecord, moduleToRecordAsync, moduleFromRecord } from '../module/module-file.js';
export {
  toTensorRecord,
  fromTensorRecord,
  saveRecordFile,
  loadRecordFile,
  saveRecordFileAsync,
  loadRecordFileAsync,
  type TensorsWithJson,
} from './generic.js';

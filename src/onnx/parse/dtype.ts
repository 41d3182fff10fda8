import type { DType } from '../../core/dtype.js';
import type { ElemType } from '../ir/types.js';

/** ONNX `TensorProto.DataType` codes (onnx.proto), as element types. */
const BY_CODE: Readonly<Record<number, ElemType>> = {
  0: 'undefined',
  1: 'f32',
  2: 'u8',
  3: 'i8',
  4: 'u16',
  5: 'i16',
  6: 'i32',
  7: 'i64',
  8: 'string',
  9: 'bool',
  10: 'f16',
  11: 'f64',
  12: 'u32',
  13: 'u64',
  14: 'complex64',
  15: 'complex128',
  16: 'bf16',
  17: 'f8e4m3fn',
  18: 'f8e4m3fnuz',
  19: 'f8e5m2',
  20: 'f8e5m2fnuz',
  21: 'u4',
  22: 'i4',
  23: 'f4e2m1',
};

/** The ONNX name of each element type, for messages (`FLOAT`, `INT64`, …). */
const ONNX_NAME: Readonly<Record<ElemType, string>> = {
  undefined: 'UNDEFINED',
  f32: 'FLOAT',
  u8: 'UINT8',
  i8: 'INT8',
  u16: 'UINT16',
  i16: 'INT16',
  i32: 'INT32',
  i64: 'INT64',
  string: 'STRING',
  bool: 'BOOL',
  f16: 'FLOAT16',
  f64: 'DOUBLE',
  u32: 'UINT32',
  u64: 'UINT64',
  complex64: 'COMPLEX64',
  complex128: 'COMPLEX128',
  bf16: 'BFLOAT16',
  f8e4m3fn: 'FLOAT8E4M3FN',
  f8e4m3fnuz: 'FLOAT8E4M3FNUZ',
  f8e5m2: 'FLOAT8E5M2',
  f8e5m2fnuz: 'FLOAT8E5M2FNUZ',
  u4: 'UINT4',
  i4: 'INT4',
  f4e2m1: 'FLOAT4E2M1',
};

/** The element type of an ONNX data type code, or undefined for a code this format version does not define. */
export function elemTypeOfCode(code: number): ElemType | undefined {
  return BY_CODE[code];
}

/** `FLOAT`, `INT64`, … for messages. */
export function onnxTypeName(elem: ElemType): string {
  return ONNX_NAME[elem];
}

const DTYPES: ReadonlySet<string> = new Set([
  'f64',
  'f32',
  'f16',
  'bf16',
  'i64',
  'i32',
  'i16',
  'i8',
  'u32',
  'u16',
  'u8',
  'bool',
]);

/** True when burn-ts tensors can hold the element type. */
export function isSupportedElem(elem: ElemType): elem is DType {
  return DTYPES.has(elem);
}

import { TensorData } from '../../core/data.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { DType } from '../../core/dtype.js';
import type { TensorProto } from '../proto/onnx/onnx-ml_pb.js';
import { TensorProto_DataLocation } from '../proto/onnx/onnx-ml_pb.js';
import type { ConstTensor, ElemType, ExternalRef } from '../ir/types.js';
import { elemTypeOfCode, isSupportedElem, onnxTypeName } from './dtype.js';

const OP = 'loadOnnx';
/** The largest element count a tensor may declare: typed arrays index with doubles, but 2^32 elements is far past any memory. */
const MAX_ELEMENTS = 2 ** 32;

/** Converts a protobuf int64 dim list into sizes, rejecting negative or oversized dims. */
export function tensorDims(dims: readonly bigint[], what: string): number[] {
  const out: number[] = [];
  let n = 1;
  for (const d of dims) {
    if (d < 0n || d > BigInt(MAX_ELEMENTS))
      throw new BurnError(OP, `${what} has dims ${fmt(dims)}; expected sizes between 0 and ${MAX_ELEMENTS}`);
    out.push(Number(d));
    n *= Number(d);
  }
  if (n > MAX_ELEMENTS)
    throw new BurnError(OP, `${what} has dims ${fmt(dims)} (${n} elements); expected at most ${MAX_ELEMENTS} elements`);
  return out;
}

/**
 * Reads a `TensorProto` (initializer, `Constant` value or tensor attribute). Values come from
 * `raw_data` (little-endian bytes) or the typed field the ONNX spec assigns to the data type;
 * externally stored tensors are left for the loader (`external`). A value count that does not
 * match the dims is a BurnError naming the tensor.
 */
export function readTensorProto(proto: TensorProto, fallbackName = ''): ConstTensor {
  const name = proto.name || fallbackName;
  const what = `tensor '${name}'`;
  const elem = elemTypeOfCode(proto.dataType);
  if (elem === undefined || elem === 'undefined')
    throw new BurnError(OP, `${what} has data type code ${proto.dataType}; expected an ONNX TensorProto.DataType`);
  const shape = tensorDims(proto.dims, what);
  const n = shape.reduce((a, b) => a * b, 1);
  if (proto.segment)
    throw new BurnError(OP, `${what} is segmented (TensorProto.segment); segmented tensors are not supported`);
  if (proto.dataLocation === TensorProto_DataLocation.EXTERNAL) {
    return { name, elem, shape, data: undefined, external: externalRef(proto, what) };
  }
  if (elem === 'string') {
    if (proto.stringData.length !== n) throw countError(what, proto.stringData.length, shape);
    const dec = new TextDecoder();
    return { name, elem, shape, data: undefined, strings: proto.stringData.map((s) => dec.decode(s)) };
  }
  if (!isSupportedElem(elem)) return { name, elem, shape, data: undefined };
  return { name, elem, shape, data: tensorDataOf(proto, elem, shape, n, what) };
}

function countError(what: string, got: number, shape: readonly number[]): BurnError {
  return new BurnError(
    OP,
    `${what} holds ${got} values for dims ${fmt(shape)}; expected ${shape.reduce((a, b) => a * b, 1)} (dims that do not fit the data)`,
  );
}

/** Buffers the loader read itself and parses once: their large raw tensors are aligned in place instead of copied. */
const ownedBuffers = new WeakSet<ArrayBufferLike>();
/** Raw tensors at least this large are aligned in place in an owned buffer; smaller ones are copied (so they never pin it). */
const IN_PLACE_MIN_BYTES = 64 * 1024;

/**
 * @internal Runs `fn` (the parse of `bytes`) letting it move raw tensor data within `bytes`: the
 * caller read them itself and uses them for nothing else.
 */
export function parseOwned<T>(bytes: Uint8Array, fn: () => T): T {
  ownedBuffers.add(bytes.buffer);
  try {
    return fn();
  } finally {
    ownedBuffers.delete(bytes.buffer);
  }
}

/** Bytes of the varint encoding of `v`. */
function varintLength(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/**
 * The raw data as an aligned view of `raw`'s own buffer, moved back by its misalignment when that
 * many bytes before it are its own field header (the tag and length of `raw_data`, already
 * parsed); undefined when it cannot be done in place.
 */
function alignInPlace(raw: Uint8Array, size: number): Uint8Array | undefined {
  if (!ownedBuffers.has(raw.buffer) || raw.byteLength < IN_PLACE_MIN_BYTES) return undefined;
  const shift = raw.byteOffset % size;
  if (shift === 0) return raw;
  if (shift > 1 + varintLength(raw.byteLength)) return undefined;
  const whole = new Uint8Array(raw.buffer);
  whole.copyWithin(raw.byteOffset - shift, raw.byteOffset, raw.byteOffset + raw.byteLength);
  return new Uint8Array(raw.buffer, raw.byteOffset - shift, raw.byteLength);
}

function tensorDataOf(proto: TensorProto, dtype: DType, shape: number[], n: number, what: string): TensorData {
  if (proto.rawData.length > 0 || n === 0) {
    const size =
      dtype === 'f64' || dtype === 'i64'
        ? 8
        : dtype === 'f32' || dtype === 'i32' || dtype === 'u32'
          ? 4
          : dtype === 'f16' || dtype === 'bf16' || dtype === 'i16' || dtype === 'u16'
            ? 2
            : 1;
    if (proto.rawData.length !== n * size) {
      throw new BurnError(
        OP,
        `${what} has ${proto.rawData.length} bytes of raw_data for dims ${fmt(shape)} of ${onnxTypeName(dtype)}; expected ${n * size} (dims that do not fit the data)`,
      );
    }
    // In a buffer the loader owns, a large tensor stays where it is (aligned in place: no second
    // copy of the weights, no fresh pages). Otherwise a copy, so the tensor does not pin the
    // caller's buffer and is aligned for its typed array (`new Uint8Array(view)` copies).
    return TensorData.fromBytes(alignInPlace(proto.rawData, size) ?? new Uint8Array(proto.rawData), shape, dtype);
  }
  const typed = typedValues(proto, dtype);
  if (typed.length !== n) throw countError(what, typed.length, shape);
  return new TensorData(typed, shape, dtype);
}

function typedValues(
  proto: TensorProto,
  dtype: DType,
): Float32Array | Float64Array | Int32Array | Uint16Array | Uint32Array | BigInt64Array | number[] {
  switch (dtype) {
    case 'f32':
      return Float32Array.from(proto.floatData);
    case 'f64':
      return Float64Array.from(proto.doubleData);
    case 'i64':
      return BigInt64Array.from(proto.int64Data);
    case 'u32':
      return Uint32Array.from(proto.uint64Data, (v) => Number(v));
    // Half precision travels as its 16 bits in int32_data.
    case 'f16':
    case 'bf16':
      return Uint16Array.from(proto.int32Data, (v) => v & 0xffff);
    case 'bool':
      return proto.int32Data.map((v) => (v !== 0 ? 1 : 0));
    default:
      return proto.int32Data;
  }
}

function externalRef(proto: TensorProto, what: string): ExternalRef {
  const entries = new Map(proto.externalData.map((e) => [e.key, e.value]));
  const location = entries.get('location');
  if (!location) throw new BurnError(OP, `${what} is stored externally but names no location`);
  const int = (key: string): number | undefined => {
    const v = entries.get(key);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
      throw new BurnError(OP, `${what} has external ${key} '${v}'; expected a non-negative integer`);
    return Number(v);
  };
  return { location, offset: int('offset') ?? 0, length: int('length') };
}

/** A constant of the given element type holding `data` (for folded values). */
export function constOf(name: string, data: TensorData): ConstTensor {
  return { name, elem: data.dtype as ElemType, shape: data.shape, data };
}

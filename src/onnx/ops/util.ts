import type { Device } from '../../device/device.js';
import { TensorData } from '../../core/data.js';
import { intRange, isFloatDType, isIntDType, type DType, type IntDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim, ValueType } from '../ir/types.js';
import { dataForDevice, deviceDType } from './device-dtype.js';
import { mirror } from './host-mirror.js';
import {
  NoneValue,
  SequenceValue,
  type AnyTensor,
  type BoolT,
  type FloatT,
  type InferContext,
  type IntT,
  type NumT,
  type OpContext,
  type Value,
} from './types.js';

/** Input `i` as a tensor; a missing input or a non-tensor value is a BurnError naming the node. */
export function tensorAt(ctx: OpContext, inputs: readonly (Value | undefined)[], i: number): AnyTensor {
  const v = inputs[i];
  if (v === undefined || v instanceof NoneValue)
    throw new BurnError('onnx', `node '${ctx.node.name}' (${ctx.node.opType}) needs input ${i}, which is missing`);
  if (v instanceof SequenceValue)
    throw new BurnError(
      'onnx',
      `node '${ctx.node.name}' (${ctx.node.opType}) got a sequence for input ${i}; expected a tensor`,
    );
  return v;
}

/** Input `i` as a tensor, or undefined when omitted. */
export function optTensorAt(ctx: OpContext, inputs: readonly (Value | undefined)[], i: number): AnyTensor | undefined {
  const v = inputs[i];
  if (v === undefined || v instanceof NoneValue) return undefined;
  return tensorAt(ctx, inputs, i);
}

/** Views a tensor as Float (type level only). */
export const asF = (t: AnyTensor): FloatT => t as FloatT;
/** Views a tensor as Int (type level only). */
export const asI = (t: AnyTensor): IntT => t as IntT;
/** Views a tensor as Bool (type level only). */
export const asB = (t: AnyTensor): BoolT => t as BoolT;
/** Views a tensor as Numeric (type level only). */
export const asN = (t: AnyTensor): NumT => t as NumT;

/**
 * Converts a tensor to any dtype (Burn casts within a kind; across kinds it goes through
 * `float`/`int`/`bool`). On devices without 64-bit types, i64 and f64 become i32 and f32.
 */
export function castTo(t: AnyTensor, target: DType): AnyTensor {
  const dtype = deviceDType(target, t.device());
  const from = t.dtype();
  if (from === dtype) return t;
  if (dtype === 'bool') return from === 'bool' ? t : (asN(t).notEqual(0) as AnyTensor);
  if (isFloatDType(dtype)) {
    if (isFloatDType(from)) return t.cast(dtype);
    return (t as IntT | BoolT).float(dtype) as AnyTensor;
  }
  if (isIntDType(from)) return wrapInt(t, from, dtype as IntDType);
  if (from === 'bool') return (t as BoolT).int(dtype) as AnyTensor;
  return (t as FloatT | BoolT).int(dtype) as AnyTensor;
}

/** Int-to-int casts wrap around like C (ONNX follows NumPy's `astype`); Burn's cast saturates, so values are reduced first. */
function wrapInt(t: AnyTensor, from: IntDType, to: IntDType): AnyTensor {
  const [flo, fhi] = intRange(from);
  const [tlo, thi] = intRange(to);
  if (flo >= tlo && fhi <= thi) return t.cast(to);
  if (to === 'i64') return t.cast(to);
  const m = thi - tlo + 1;
  // Reduce modulo 2^bits in i64 (a non-negative remainder: Burn's takes the divisor's sign), then shift into range.
  let r = (t.cast('i64') as IntT).remainder(m);
  if (tlo < 0) r = r.sub(tlo).remainder(m).add(tlo);
  return r.cast(to);
}

/** A tensor on `device` holding host data (64-bit types narrowed where the device lacks them). */
export function fromHost(data: TensorData, device: Device): AnyTensor {
  const d = dataForDevice(data, device);
  return mirror(Tensor.fromData(d, device), d);
}

/** A rank-1 i64 tensor of integers (i32 on devices without i64). */
export function i64Tensor(
  values: readonly number[],
  device: Device,
  shape: readonly number[] = [values.length],
): AnyTensor {
  const d = new TensorData(values, shape, deviceDType('i64', device));
  return mirror(Tensor.fromData(d, device), d);
}

/** A tensor of `shape` filled with `value` (64-bit types narrowed where the device lacks them). */
export function filled(shape: readonly number[], value: number | boolean, dtype: DType, device: Device): AnyTensor {
  return Tensor.full(shape, value, { device, dtype: deviceDType(dtype, device) });
}

/** Resolves a possibly negative axis; out of range is a BurnError naming the node. */
export function axisOf(ctx: { node: { name: string; opType: string } }, axis: number, rank: number): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw new BurnError(
      'onnx',
      `node '${ctx.node.name}' (${ctx.node.opType}) has axis ${axis} for a tensor of rank ${rank}; expected ${-rank} <= axis < ${rank}`,
    );
  }
  return axis < 0 ? axis + rank : axis;
}

/** Multidirectional (NumPy) broadcast of two shapes; a mismatch is a BurnError naming the node. */
export function broadcastShape(
  ctx: { node: { name: string; opType: string } },
  a: readonly number[],
  b: readonly number[],
): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[i - rank + a.length] ?? 1;
    const y = b[i - rank + b.length] ?? 1;
    if (x !== y && x !== 1 && y !== 1)
      throw new BurnError(
        'onnx',
        `node '${ctx.node.name}' (${ctx.node.opType}) cannot broadcast shapes ${fmt(a)} and ${fmt(b)}`,
      );
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** Expands `t` to `shape` (rank may grow on the left). */
export function broadcastTo(t: AnyTensor, shape: readonly number[]): AnyTensor {
  const dims = t.dims();
  if (dims.length === shape.length && dims.every((d, i) => d === shape[i])) return t;
  const lifted =
    dims.length < shape.length ? t.reshape([...new Array<number>(shape.length - dims.length).fill(1), ...dims]) : t;
  return lifted.expand(shape);
}

// --- inference helpers ---

/** The shape of input `i`, when known. */
export function inShape(ctx: InferContext, i: number): readonly Dim[] | undefined {
  const t = ctx.inputs[i];
  return t && t.kind === 'tensor' ? t.shape : undefined;
}

/** Broadcasts shapes of possibly symbolic dims (unknown where it cannot tell). */
export function broadcastDims(shapes: readonly (readonly Dim[] | undefined)[]): Dim[] | undefined {
  if (shapes.some((s) => s === undefined)) return undefined;
  const ss = shapes as readonly (readonly Dim[])[];
  const rank = Math.max(0, ...ss.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    let d: Dim = 1;
    for (const s of ss) {
      const x = i - rank + s.length < 0 ? 1 : s[i - rank + s.length];
      if (x === 1) continue;
      if (d === 1) d = x;
      else if (d !== x)
        d =
          typeof d === 'number' && typeof x === 'number'
            ? d
            : typeof x === 'number'
              ? x
              : typeof d === 'number'
                ? d
                : undefined;
    }
    out.push(d);
  }
  return out;
}

/** A tensor type with the element type of input `i` and the given shape. */
export function sameElem(ctx: InferContext, i: number, shape: readonly Dim[] | undefined): ValueType | undefined {
  const t = ctx.inputs[i];
  if (!t || t.kind !== 'tensor') return shape === undefined ? undefined : { kind: 'tensor', elem: 'undefined', shape };
  return { kind: 'tensor', elem: t.elem, shape };
}

import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Graph } from '../ir/types.js';
import { elemTypeOfCode, isSupportedElem } from '../parse/dtype.js';
import { NoneValue, SequenceValue, type AnyTensor, type OpContext, type OpFamily, type Value } from './types.js';
import { drive, driveAsync } from './control.js';
import { axisOf, i64Tensor, tensorAt } from './util.js';

const OP = 'onnx';

function seqAt(ctx: OpContext, inputs: readonly (Value | undefined)[], i: number): SequenceValue {
  const v = inputs[i];
  if (!(v instanceof SequenceValue))
    throw new BurnError(OP, `node '${ctx.node.name}' (${ctx.node.opType}) needs a sequence for input ${i}`);
  return v;
}

/** A position in a sequence of `n` (negative counts from the end; `n` itself is allowed when inserting). */
function position(ctx: OpContext, i: number, n: number, fallback: number, inclusiveEnd: boolean): number {
  const p = ctx.ints(i)?.[0] ?? fallback;
  const q = p < 0 ? p + n : p;
  if (q < 0 || q > (inclusiveEnd ? n : n - 1))
    throw new BurnError(OP, `node '${ctx.node.name}' (${ctx.node.opType}) has position ${p} for a sequence of ${n}`);
  return q;
}

function splitToSequence(ctx: OpContext, x: AnyTensor): SequenceValue {
  const axis = axisOf(ctx, ctx.attrs.int('axis', 0), x.rank());
  const n = x.dims()[axis]!;
  const split = ctx.node.inputs[1] ? ctx.ints(1)! : undefined;
  const scalar = split !== undefined && ctx.host(1)!.shape.length === 0;
  let parts: AnyTensor[];
  if (split === undefined) {
    parts = x.splitWithSizes(new Array<number>(n).fill(1), axis);
    if (ctx.attrs.int('keepdims', 1) === 0) parts = parts.map((p) => p.squeezeDim(axis) as AnyTensor);
  } else if (scalar) {
    parts = x.split(split[0]!, axis);
  } else {
    // One item per size, empty ones included (splitWithSizes checks the sizes and drops empty pieces, as Burn).
    const pieces = x.splitWithSizes(split, axis);
    let k = 0;
    parts = split.map((s) => (s === 0 ? x.sliceDim(axis, [0, 0]) : pieces[k++]!) as AnyTensor);
  }
  return new SequenceValue(parts, x.dtype());
}

function concatFromSequence(ctx: OpContext, seq: SequenceValue): AnyTensor {
  const newAxis = ctx.attrs.int('new_axis', 0) === 1;
  const first = seq.items[0];
  if (!first) throw new BurnError(OP, `node '${ctx.node.name}' (ConcatFromSequence) got an empty sequence`);
  const axis = axisOf(ctx, ctx.attrs.int('axis', 0), first.rank() + (newAxis ? 1 : 0));
  return newAxis ? (Tensor.stack(seq.items, axis) as AnyTensor) : Tensor.cat(seq.items, axis);
}

function* sequenceMap(
  ctx: OpContext,
  inputs: readonly (Value | undefined)[],
): Generator<{ graph: Graph; inputs: readonly (Value | undefined)[] }, Value[], unknown> {
  const body = ctx.attrs.requireGraph('body');
  const first = seqAt(ctx, inputs, 0);
  const n = first.items.length;
  const outs: AnyTensor[][] = body.outputs.map(() => []);
  for (let i = 0; i < n; i++) {
    const args = inputs.map((v) => (v instanceof SequenceValue ? v.items[i] : v));
    ((yield { graph: body, inputs: args }) as Value[]).forEach((v, j) => outs[j]!.push(v as AnyTensor));
  }
  return outs.map((items) => new SequenceValue(items, items[0]?.dtype()));
}

/** Sequences (`seq(tensor)`) and optionals. */
export const sequenceOps: OpFamily = {
  SequenceEmpty: {
    run: (ctx) => {
      const code = ctx.attrs.int('dtype');
      const elem = code === undefined ? 'f32' : elemTypeOfCode(code);
      return [new SequenceValue([], elem && isSupportedElem(elem) ? elem : undefined)];
    },
  },
  SequenceConstruct: {
    run: (ctx, inputs) => {
      const items = inputs.map((_, i) => tensorAt(ctx, inputs, i));
      return [new SequenceValue(items, items[0]?.dtype())];
    },
  },
  SequenceAt: {
    run: (ctx, inputs) => {
      const s = seqAt(ctx, inputs, 0);
      return [s.items[position(ctx, 1, s.items.length, 0, false)]];
    },
    hostInputs: [1],
  },
  SequenceInsert: {
    run: (ctx, inputs) => {
      const s = seqAt(ctx, inputs, 0);
      const t = tensorAt(ctx, inputs, 1);
      const at = position(ctx, 2, s.items.length, s.items.length, true);
      const items = [...s.items];
      items.splice(at, 0, t);
      return [new SequenceValue(items, s.elem ?? (t.dtype() as DType))];
    },
    hostInputs: [2],
  },
  SequenceErase: {
    run: (ctx, inputs) => {
      const s = seqAt(ctx, inputs, 0);
      const at = position(ctx, 1, s.items.length, -1, false);
      return [
        new SequenceValue(
          s.items.filter((_, i) => i !== at),
          s.elem,
        ),
      ];
    },
    hostInputs: [1],
  },
  SequenceLength: {
    run: (ctx, inputs) => [i64Tensor([seqAt(ctx, inputs, 0).items.length], ctx.device, [])],
  },
  SplitToSequence: {
    run: (ctx, inputs) => [splitToSequence(ctx, tensorAt(ctx, inputs, 0))],
    hostInputs: [1],
  },
  ConcatFromSequence: {
    run: (ctx, inputs) => [concatFromSequence(ctx, seqAt(ctx, inputs, 0))],
  },
  SequenceMap: {
    run: (ctx, inputs) => drive(ctx, sequenceMap(ctx, inputs)),
    runAsync: (ctx, inputs) => driveAsync(ctx, sequenceMap(ctx, inputs)),
  },
  Optional: {
    run: (ctx, inputs) => [inputs[0] ?? new NoneValue(ctx.attrs.has('type') ? undefined : undefined)],
  },
  OptionalGetElement: {
    run: (ctx, inputs) => {
      const v = inputs[0];
      if (v === undefined || v instanceof NoneValue)
        throw new BurnError(OP, `node '${ctx.node.name}' (OptionalGetElement) got an empty optional`);
      return [v];
    },
  },
  OptionalHasElement: {
    run: (ctx, inputs) => {
      const v = inputs[0];
      const has = v !== undefined && !(v instanceof NoneValue);
      return [Tensor.fromBools([has], ctx.device).reshape([]) as unknown as AnyTensor];
    },
  },
};

import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { tensorType, type Dim } from '../ir/types.js';
import type { AnyTensor, InferContext, IntT, OpContext, OpDef, OpFamily } from './types.js';
import { deviceDType } from './device-dtype.js';
import { asB, asI, asN, axisOf, castTo, filled, fromHost, i64Tensor, inShape, sameElem, tensorAt } from './util.js';

const OP = 'onnx';
type ScatterUpdate = 'assign' | 'add' | 'mul' | 'min' | 'max';

/** Negative indices count from the end of a dim of size `n` (ONNX allows them in Gather*, Scatter*). */
function wrapIndices(idx: AnyTensor, n: number): IntT {
  const i = asI(idx);
  return i.maskWhere(i.lower(0), i.add(n));
}

function scatterUpdate(ctx: OpContext): ScatterUpdate {
  const r = ctx.attrs.string('reduction', 'none');
  if (r === 'none') return 'assign';
  if (r === 'add' || r === 'mul' || r === 'min' || r === 'max') return r;
  throw new BurnError(
    OP,
    `node '${ctx.node.name}' (${ctx.node.opType}) has reduction '${r}'; expected none, add, mul, min or max`,
  );
}

/** ONNX `Slice` bounds for one axis, as Burn's slice argument (Burn walks a negative step from the end of [start, end)). */
export function sliceRange(n: number, start: number, end: number, step: number): [number, number, number] {
  let s = start < 0 ? start + n : start;
  let e = end < 0 ? end + n : end;
  if (step > 0) {
    s = Math.min(Math.max(s, 0), n);
    e = Math.min(Math.max(e, 0), n);
    return e > s ? [s, e, step] : [0, 0, 1];
  }
  s = Math.min(Math.max(s, 0), n - 1);
  e = Math.min(Math.max(e, -1), n - 1);
  return s > e ? [e + 1, s + 1, step] : [0, 0, 1];
}

interface SliceParams {
  starts: number[];
  ends: number[];
  axes: number[] | undefined;
  steps: number[] | undefined;
}

function sliceParams(ctx: OpContext): SliceParams {
  if (ctx.opset < 10) {
    return {
      starts: ctx.attrs.ints('starts', []).slice(),
      ends: ctx.attrs.ints('ends', []).slice(),
      axes: ctx.attrs.ints('axes')?.slice(),
      steps: undefined,
    };
  }
  return { starts: ctx.ints(1)!, ends: ctx.ints(2)!, axes: ctx.ints(3), steps: ctx.ints(4) };
}

function slice(ctx: OpContext, x: AnyTensor): AnyTensor {
  const dims = x.dims();
  const { starts, ends, axes, steps } = sliceParams(ctx);
  const ax = axes ?? starts.map((_, i) => i);
  if (starts.length !== ends.length || ax.length !== starts.length)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (Slice) has ${starts.length} starts, ${ends.length} ends and ${ax.length} axes; expected equal counts`,
    );
  const ranges: ([number, number, number] | null)[] = dims.map(() => null);
  ax.forEach((a, i) => {
    const d = axisOf(ctx, a, dims.length);
    const step = steps?.[i] ?? 1;
    if (step === 0) throw new BurnError(OP, `node '${ctx.node.name}' (Slice) has step 0 for axis ${a}`);
    ranges[d] = sliceRange(dims[d]!, starts[i]!, ends[i]!, step);
  });
  if (ranges.some((r, d) => r && r[0] === r[1] && dims[d]! >= 0)) {
    // An empty selection: Burn slices need a valid start, so build the empty tensor directly.
    const shape = dims.map((n, d) => {
      const r = ranges[d];
      return r ? Math.max(0, Math.ceil((r[1] - r[0]) / Math.abs(r[2]))) : n;
    });
    if (shape.some((s) => s === 0)) return Tensor.zeros(shape, { device: x.device(), dtype: x.dtype() }) as AnyTensor;
  }
  return x.slice(ranges.map((r) => r ?? null));
}

function inferSlice(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const s = inShape(ctx, 0);
  if (!s || ctx.opset < 10) return [sameElem(ctx, 0, undefined)];
  const [st, en, ax, sp] = [1, 2, 3, 4].map((i) => (ctx.node.inputs[i] ? ctx.constant(i)?.toArray() : null));
  if (!st || !en || ax === undefined || sp === undefined)
    return [
      sameElem(
        ctx,
        0,
        s.map(() => undefined),
      ),
    ];
  const out: Dim[] = [...s];
  const axes = ax ? Array.from(ax) : Array.from(st, (_, i) => i);
  axes.forEach((a, i) => {
    const d = a < 0 ? a + s.length : a;
    const n = s[d];
    if (typeof n !== 'number') {
      out[d] = undefined;
      return;
    }
    const [b, e, step] = sliceRange(n, st[i]!, en[i]!, sp ? sp[i]! : 1);
    out[d] = e > b ? Math.ceil((e - b) / Math.abs(step)) : 0;
  });
  return [sameElem(ctx, 0, out)];
}

function gatherNd(ctx: OpContext, data: AnyTensor, indices: AnyTensor): AnyTensor {
  const b = ctx.attrs.int('batch_dims', 0);
  const ds = data.dims();
  const is = indices.dims();
  const k = is[is.length - 1]!;
  if (b === 0) {
    const idx = wrapPerDim(indices, ds.slice(0, k));
    return data.gatherNd(idx);
  }
  // Batch dims: fold the batch into the first indexed dim.
  const batch = ds.slice(0, b).reduce((p, d) => p * d, 1);
  const flatData = data.reshape([batch, ...ds.slice(b)]);
  const inner = wrapPerDim(indices.reshape([batch, ...is.slice(b)]), ds.slice(b, b + k));
  const bShape = [batch, ...is.slice(b, -1), 1];
  const bIdx = Tensor.arange(0, batch, { device: data.device(), dtype: inner.dtype() as 'i32' })
    .reshape([batch, ...new Array<number>(is.length - b - 1).fill(1), 1])
    .expand(bShape);
  const full = Tensor.cat([asI(bIdx as AnyTensor), inner], -1);
  const out = flatData.gatherNd(full);
  return out.reshape([...is.slice(0, -1), ...ds.slice(b + k)]);
}

/** Wraps negative components of ND indices (`[..., k]`) per addressed dim. */
function wrapPerDim(indices: AnyTensor, sizes: readonly number[]): IntT {
  const i = asI(indices);
  const n = i64Like(i, sizes);
  return i.maskWhere(i.lower(0), i.add(n));
}

function i64Like(i: IntT, sizes: readonly number[]): IntT {
  return asI(castTo(i64Tensor(sizes, i.device()), i.dtype()));
}

function oneHot(ctx: OpContext, indices: AnyTensor): AnyTensor {
  const depth = ctx.floats(1)![0]!;
  const values = ctx.host(2)!;
  const [off, on] = Array.from(values.toArray());
  const rank = indices.rank() + 1;
  const axis = axisOf(ctx, ctx.attrs.int('axis', -1), rank);
  const idx = wrapIndices(castTo(indices, 'i64'), depth);
  const shape = [...indices.dims()];
  shape.splice(axis, 0, depth);
  const expanded = idx.unsqueezeDim(axis).expand(shape) as IntT;
  const range = Tensor.arange(0, depth, { device: ctx.device, dtype: deviceDType('i64', ctx.device) as 'i64' })
    .reshape(shape.map((d, i) => (i === axis ? d : 1)))
    .expand(shape) as IntT;
  const hit = expanded.equal(range);
  return filled(shape, off!, values.dtype, ctx.device).maskFill(asB(hit as AnyTensor), on!);
}

function topk(ctx: OpContext, x: AnyTensor): [AnyTensor, AnyTensor] {
  const k = ctx.opset >= 10 ? ctx.ints(1)![0]! : ctx.attrs.int('k', 1);
  const axis = axisOf(ctx, ctx.attrs.int('axis', -1), x.rank());
  const largest = ctx.attrs.int('largest', 1) === 1;
  const n = asN(x);
  const [v, i] = largest ? n.sortDescendingWithIndices(axis) : n.sortWithIndices(axis);
  return [v.sliceDim(axis, [0, k]) as AnyTensor, castTo(i.sliceDim(axis, [0, k]) as AnyTensor, 'i64')];
}

function unique(ctx: OpContext, x: AnyTensor): AnyTensor[] {
  const data = ctx.host(0)!;
  const dims = data.shape;
  const axisAttr = ctx.attrs.int('axis');
  const sorted = ctx.attrs.int('sorted', 1) === 1;
  const values = Array.from(data.toArray());
  const axis = axisAttr === undefined ? undefined : axisOf(ctx, axisAttr, dims.length);
  // Slices along the axis (or single elements) as keys.
  const n = axis === undefined ? values.length : dims[axis]!;
  const inner = axis === undefined ? 1 : dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = axis === undefined ? 1 : dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const sliceOf = (j: number): number[] => {
    if (axis === undefined) return [values[j]!];
    const out: number[] = [];
    for (let o = 0; o < outer; o++) for (let q = 0; q < inner; q++) out.push(values[(o * n + j) * inner + q]!);
    return out;
  };
  const keys = Array.from({ length: n }, (_, j) => sliceOf(j));
  const firstOf = new Map<string, number>();
  const order: number[] = [];
  keys.forEach((key, j) => {
    const s = key.join(',');
    if (!firstOf.has(s)) {
      firstOf.set(s, j);
      order.push(j);
    }
  });
  if (sorted) {
    order.sort((a, b) => {
      const ka = keys[a]!,
        kb = keys[b]!;
      for (let q = 0; q < ka.length; q++) if (ka[q] !== kb[q]) return ka[q]! - kb[q]!;
      return 0;
    });
  }
  const pos = new Map(order.map((j, u) => [keys[j]!.join(','), u]));
  const inverse = keys.map((key) => pos.get(key.join(','))!);
  const counts = order.map(() => 0);
  for (const u of inverse) counts[u]!++;
  const dev = ctx.device;
  const idxOut = i64Tensor(order, dev);
  let y: AnyTensor;
  if (axis === undefined)
    y = fromHost(
      new TensorData(
        order.map((j) => values[j]!),
        [order.length],
        data.dtype,
      ),
      dev,
    );
  else y = fromHost(data, dev).take(axis, asI(idxOut));
  return [y, idxOut, i64Tensor(inverse, dev), i64Tensor(counts, dev)];
}

function reverseSequence(ctx: OpContext, x: AnyTensor, lens: number[]): AnyTensor {
  const dims = x.dims();
  const batchAxis = ctx.attrs.int('batch_axis', 1);
  const timeAxis = ctx.attrs.int('time_axis', 0);
  const T = dims[timeAxis]!;
  const B = dims[batchAxis]!;
  const idx: number[] = [];
  const small = dims.map((_, d) => (d === timeAxis ? T : d === batchAxis ? B : 1));
  // Index table over (time, batch) in the order of the two axes.
  for (let i = 0; i < (timeAxis < batchAxis ? T : B); i++) {
    for (let j = 0; j < (timeAxis < batchAxis ? B : T); j++) {
      const [t, b] = timeAxis < batchAxis ? [i, j] : [j, i];
      const len = lens[b]!;
      idx.push(t < len ? len - 1 - t : t);
    }
  }
  const table = i64Tensor(idx, x.device(), small);
  return x.gather(timeAxis, asI(table.expand(dims) as AnyTensor));
}

/** Indexing ops: gathers, scatters, slicing, masks, one-hot, top-k, unique. */
export const indexOps: OpFamily = {
  Gather: {
    run: (ctx, inputs) => {
      const data = tensorAt(ctx, inputs, 0);
      const indices = tensorAt(ctx, inputs, 1);
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), data.rank());
      const idx = wrapIndices(indices, data.dims()[axis]!);
      if (indices.rank() === 0) return [data.take(axis, idx.reshape([1])).squeezeDim(axis) as AnyTensor];
      return [data.take(axis, idx)];
    },
    infer: (ctx) => {
      const s = inShape(ctx, 0);
      const is = inShape(ctx, 1);
      if (!s || !is) return [sameElem(ctx, 0, undefined)];
      const axis = ctx.attrs.int('axis', 0) < 0 ? ctx.attrs.int('axis', 0) + s.length : ctx.attrs.int('axis', 0);
      return [sameElem(ctx, 0, [...s.slice(0, axis), ...is, ...s.slice(axis + 1)])];
    },
  },
  GatherElements: {
    run: (ctx, inputs) => {
      const data = tensorAt(ctx, inputs, 0);
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), data.rank());
      return [data.gather(axis, wrapIndices(tensorAt(ctx, inputs, 1), data.dims()[axis]!))];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 1))],
  },
  GatherND: {
    run: (ctx, inputs) => [gatherNd(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1))],
  },
  ScatterElements: {
    run: (ctx, inputs) => {
      const data = tensorAt(ctx, inputs, 0);
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), data.rank());
      return [
        data.scatter(
          axis,
          wrapIndices(tensorAt(ctx, inputs, 1), data.dims()[axis]!),
          tensorAt(ctx, inputs, 2),
          scatterUpdate(ctx),
        ),
      ];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
  Scatter: {
    run: (ctx, inputs) => {
      const data = tensorAt(ctx, inputs, 0);
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), data.rank());
      return [
        data.scatter(
          axis,
          wrapIndices(tensorAt(ctx, inputs, 1), data.dims()[axis]!),
          tensorAt(ctx, inputs, 2),
          'assign',
        ),
      ];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
  ScatterND: {
    run: (ctx, inputs) => {
      const data = tensorAt(ctx, inputs, 0);
      const indices = tensorAt(ctx, inputs, 1);
      const k = indices.dims()[indices.rank() - 1]!;
      return [
        data.scatterNd(wrapPerDim(indices, data.dims().slice(0, k)), tensorAt(ctx, inputs, 2), scatterUpdate(ctx)),
      ];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
  Slice: {
    run: (ctx, inputs) => [slice(ctx, tensorAt(ctx, inputs, 0))],
    hostInputs: [1, 2, 3, 4],
    infer: inferSlice,
  },
  Compress: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const cond = ctx.ints(1)!;
      const axisAttr = ctx.attrs.int('axis');
      const src = axisAttr === undefined ? x.reshape([x.numel()]) : x;
      const axis = axisAttr === undefined ? 0 : axisOf(ctx, axisAttr, x.rank());
      const n = src.dims()[axis]!;
      const keep = cond.slice(0, n).flatMap((c, i) => (c ? [i] : []));
      if (keep.length === 0)
        return [
          Tensor.zeros(
            src.dims().map((d, i) => (i === axis ? 0 : d)),
            { device: x.device(), dtype: x.dtype() },
          ) as AnyTensor,
        ];
      return [src.take(axis, asI(i64Tensor(keep, x.device())))];
    },
    hostInputs: [1],
  },
  NonZero: {
    // The output size depends on the values: computed on the host.
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const dims = x.dims();
      const values = ctx.host(0)!.toArray();
      const hits: number[] = [];
      for (let i = 0; i < values.length; i++) if (values[i] !== 0) hits.push(i);
      const rank = dims.length;
      const out = new Array<number>(rank * hits.length);
      hits.forEach((flat, k) => {
        let rest = flat;
        for (let d = rank - 1; d >= 0; d--) {
          out[d * hits.length + k] = rest % dims[d]!;
          rest = Math.floor(rest / dims[d]!);
        }
      });
      return [i64Tensor(out, ctx.device, [rank, hits.length])];
    },
    readsValues: true,
    infer: (ctx) => [tensorType('i64', [inShape(ctx, 0)?.length, undefined])],
  },
  OneHot: {
    run: (ctx, inputs) => [oneHot(ctx, tensorAt(ctx, inputs, 0))],
    hostInputs: [1, 2],
  },
  TopK: {
    run: (ctx, inputs) => topk(ctx, tensorAt(ctx, inputs, 0)),
    hostInputs: [1],
  },
  Unique: {
    run: (ctx, inputs) => unique(ctx, tensorAt(ctx, inputs, 0)),
    readsValues: true,
  },
  ReverseSequence: {
    run: (ctx, inputs) => [reverseSequence(ctx, tensorAt(ctx, inputs, 0), ctx.ints(1)!)],
    hostInputs: [1],
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
};

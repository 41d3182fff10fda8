import { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { tensorType, type Dim, type ElemType, type ValueType } from '../ir/types.js';
import { elemTypeOfCode, isSupportedElem } from '../parse/dtype.js';
import type { Attrs } from './attrs.js';
import type { AnyTensor, InferContext, OpContext, OpFamily } from './types.js';
import {
  asN,
  axisOf,
  broadcastDims,
  broadcastShape,
  broadcastTo,
  castTo,
  filled,
  fromHost,
  i64Tensor,
  inShape,
  sameElem,
  tensorAt,
} from './util.js';

const OP = 'onnx';

/** Resolves a `Reshape` target: `0` copies the input dim (unless `allowzero`), one `-1` is inferred. */
export function reshapeTarget(
  ctx: { node: { name: string; opType: string } },
  input: readonly number[],
  shape: readonly number[],
  allowZero: boolean,
): number[] {
  const out = shape.map((s, i) => (s === 0 && !allowZero ? (input[i] ?? 0) : s));
  const n = input.reduce((a, b) => a * b, 1);
  const neg = out.filter((s) => s === -1).length;
  if (neg > 1 || out.some((s) => s < -1 || !Number.isInteger(s)))
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) has target shape ${fmt(shape)}; expected sizes >= -1 with at most one -1`,
    );
  if (neg === 1) {
    const known = out.reduce((a, s) => (s === -1 ? a : a * s), 1);
    if (known === 0 || n % known !== 0)
      throw new BurnError(
        OP,
        `node '${ctx.node.name}' (${ctx.node.opType}) cannot reshape ${fmt(input)} into ${fmt(shape)}`,
      );
    out[out.indexOf(-1)] = n / known;
  }
  if (out.reduce((a, b) => a * b, 1) !== n)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) cannot reshape ${fmt(input)} (${n} elements) into ${fmt(out)}`,
    );
  return out;
}

function reshapeDims(input: readonly Dim[] | undefined, shape: readonly Dim[], allowZero: boolean): Dim[] {
  const out = shape.map((s, i) => (s === 0 && !allowZero ? input?.[i] : s));
  if (out.filter((s) => s === -1).length === 1) {
    const idx = out.indexOf(-1);
    if (input && input.every((d) => typeof d === 'number') && out.every((d, i) => i === idx || typeof d === 'number')) {
      const n = (input as number[]).reduce((a, b) => a * b, 1);
      const known = (out as number[]).reduce((a, s, i) => (i === idx ? a : a * s), 1);
      out[idx] = known === 0 ? 0 : n / known;
    } else out[idx] = undefined;
  }
  return out;
}

/** The element type named by a `Cast`'s `to` attribute. */
function castTarget(attrs: Attrs): ElemType {
  return elemTypeOfCode(attrs.int('to', 0)) ?? 'undefined';
}

/** The value of a `Constant` node's attribute as host data, or a reason it cannot be one. */
export function constantValue(attrs: Attrs): TensorData | string {
  const t = attrs.tensor('value') ?? attrs.tensor('sparse_value');
  if (t) return t.data ?? `a constant of element type ${t.elem}`;
  const f = attrs.float('value_float');
  if (attrs.has('value_float') && f !== undefined) return new TensorData([f], [], 'f32');
  const fs = attrs.floats('value_floats');
  if (fs) return new TensorData(fs, [fs.length], 'f32');
  const i = attrs.int('value_int');
  if (i !== undefined) return new TensorData([i], [], 'i64');
  const is = attrs.ints('value_ints');
  if (is) return new TensorData(is, [is.length], 'i64');
  if (attrs.has('value_string') || attrs.has('value_strings')) return 'string constants';
  return 'a Constant without a value';
}

function splitSizes(ctx: OpContext, n: number, outputs: number): number[] {
  const given = ctx.opset >= 13 ? ctx.ints(1) : ctx.attrs.ints('split')?.slice();
  if (given && given.length > 0) return given;
  const parts = ctx.attrs.int('num_outputs') ?? outputs;
  const size = Math.ceil(n / parts);
  return Array.from({ length: parts }, (_, i) => Math.max(0, Math.min(size, n - i * size)));
}

function depthToSpace(x: AnyTensor, b: number, crd: boolean): AnyTensor {
  const [n, c, h, w] = x.dims() as [number, number, number, number];
  const oc = c / (b * b);
  const t = crd
    ? x.reshape([n, oc, b, b, h, w]).permute([0, 1, 4, 2, 5, 3])
    : x.reshape([n, b, b, oc, h, w]).permute([0, 3, 4, 1, 5, 2]);
  return t.reshape([n, oc, h * b, w * b]);
}

function padSpec(ctx: OpContext, rank: number): { pads: number[]; axes: number[] } {
  const pads = ctx.opset >= 11 ? (ctx.ints(1) ?? []) : ctx.attrs.ints('pads', []).slice();
  const axes =
    ctx.opset >= 18 && ctx.node.inputs[3]
      ? ctx.ints(3)!.map((a) => axisOf(ctx, a, rank))
      : Array.from({ length: rank }, (_, i) => i);
  if (pads.length !== 2 * axes.length)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (Pad) has ${pads.length} pads for ${axes.length} axes; expected ${2 * axes.length}`,
    );
  return { pads, axes };
}

function pad(ctx: OpContext, x: AnyTensor): AnyTensor {
  const rank = x.rank();
  const { pads, axes } = padSpec(ctx, rank);
  const before = new Array<number>(rank).fill(0);
  const after = new Array<number>(rank).fill(0);
  axes.forEach((a, i) => {
    before[a] = pads[i]!;
    after[a] = pads[i + axes.length]!;
  });
  // Negative pads crop.
  let t = x;
  if (before.some((p) => p < 0) || after.some((p) => p < 0)) {
    const dims = t.dims();
    t = t.slice(dims.map((d, i) => [Math.max(0, -before[i]!), d - Math.max(0, -after[i]!)] as [number, number]));
  }
  const pairs = before.map((b, i) => [Math.max(0, b), Math.max(0, after[i]!)] as [number, number]);
  if (pairs.every(([a, b]) => a === 0 && b === 0)) return t;
  const mode = ctx.opset >= 2 ? ctx.attrs.string('mode', 'constant') : 'constant';
  if (mode === 'constant') {
    const value = ctx.opset >= 11 ? (ctx.floats(2)?.[0] ?? 0) : ctx.attrs.float('value', 0);
    return t.pad(pairs, value);
  }
  if (mode === 'reflect' || mode === 'edge') return t.pad(pairs, mode);
  if (mode === 'wrap') {
    pairs.forEach(([b, a], d) => {
      if (b === 0 && a === 0) return;
      const n = t.dims()[d]!;
      const pieces: AnyTensor[] = [];
      if (b > 0) pieces.push(t.sliceDim(d, [n - b, n]));
      pieces.push(t);
      if (a > 0) pieces.push(t.sliceDim(d, [0, a]));
      t = Tensor.cat(pieces, d);
    });
    return t;
  }
  throw new BurnError(OP, `node '${ctx.node.name}' (Pad) has mode '${mode}'; expected constant, reflect, edge or wrap`);
}

function inferShapeOf(ctx: InferContext): ValueType[] {
  const s = inShape(ctx, 0);
  if (!s) return [tensorType('i64', [undefined])];
  const rank = s.length;
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
  const start = clamp(ctx.attrs.int('start', 0));
  const end = clamp(ctx.attrs.int('end', rank));
  return [tensorType('i64', [Math.max(0, end - start)])];
}

/** Shape ops: shape queries, reshapes, axis moves, concatenation and splitting, constants, casts, padding. */
export const shapeOps: OpFamily = {
  Shape: {
    run: (ctx, inputs) => {
      const dims = tensorAt(ctx, inputs, 0).dims();
      const rank = dims.length;
      const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
      const start = clamp(ctx.attrs.int('start', 0));
      const end = clamp(ctx.attrs.int('end', rank));
      return [i64Tensor(dims.slice(start, Math.max(start, end)), ctx.device)];
    },
    infer: inferShapeOf,
  },
  Size: {
    run: (ctx, inputs) => [i64Tensor([tensorAt(ctx, inputs, 0).numel()], ctx.device, [])],
    infer: () => [tensorType('i64', [])],
  },
  Reshape: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const shape = ctx.opset >= 5 ? ctx.ints(1)! : ctx.attrs.ints('shape', []).slice();
      return [x.reshape(reshapeTarget(ctx, x.dims(), shape, ctx.attrs.int('allowzero', 0) === 1))];
    },
    hostInputs: [1],
    infer: (ctx) => {
      const target = ctx.dims(1);
      return [
        sameElem(
          ctx,
          0,
          target ? reshapeDims(inShape(ctx, 0), target, ctx.attrs.int('allowzero', 0) === 1) : undefined,
        ),
      ];
    },
  },
  Flatten: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const dims = x.dims();
      const axis = ctx.attrs.int('axis', 1);
      const a = axis === dims.length ? axis : axisOf(ctx, axis, dims.length);
      return [x.reshape([dims.slice(0, a).reduce((p, d) => p * d, 1), dims.slice(a).reduce((p, d) => p * d, 1)])];
    },
    infer: (ctx) => {
      const s = inShape(ctx, 0);
      if (!s) return [sameElem(ctx, 0, [undefined, undefined])];
      const axis = ctx.attrs.int('axis', 1);
      const a = axis < 0 ? axis + s.length : axis;
      const prod = (ds: readonly Dim[]) =>
        ds.every((d) => typeof d === 'number')
          ? (ds as number[]).reduce((p, d) => p * d, 1)
          : ds.length === 1
            ? ds[0]
            : undefined;
      return [sameElem(ctx, 0, [prod(s.slice(0, a)), prod(s.slice(a))])];
    },
  },
  Squeeze: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const dims = x.dims();
      const given = ctx.opset >= 13 ? ctx.ints(1) : ctx.attrs.ints('axes')?.slice();
      const axes = given ? given.map((a) => axisOf(ctx, a, dims.length)) : dims.flatMap((d, i) => (d === 1 ? [i] : []));
      for (const a of axes)
        if (dims[a] !== 1)
          throw new BurnError(
            OP,
            `node '${ctx.node.name}' (Squeeze) squeezes axis ${a} of shape ${fmt(dims)}; expected size 1`,
          );
      return [x.reshape(dims.filter((_, i) => !axes.includes(i)))];
    },
    hostInputs: [1],
    infer: (ctx) => {
      const s = inShape(ctx, 0);
      const given =
        ctx.opset >= 13 ? (ctx.node.inputs[1] ? ctx.constant(1)?.toArray() : undefined) : ctx.attrs.ints('axes');
      if (!s || (ctx.opset >= 13 && ctx.node.inputs[1] && !given)) return [sameElem(ctx, 0, undefined)];
      const axes = given
        ? Array.from(given, (a) => (a < 0 ? a + s.length : a))
        : s.flatMap((d, i) => (d === 1 ? [i] : []));
      if (!given && s.some((d) => typeof d !== 'number')) return [sameElem(ctx, 0, undefined)];
      return [
        sameElem(
          ctx,
          0,
          s.filter((_, i) => !axes.includes(i)),
        ),
      ];
    },
  },
  Unsqueeze: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const dims = x.dims();
      const given = ctx.opset >= 13 ? ctx.ints(1)! : ctx.attrs.ints('axes', []).slice();
      const rank = dims.length + given.length;
      const axes = given.map((a) => axisOf(ctx, a, rank));
      if (new Set(axes).size !== axes.length)
        throw new BurnError(OP, `node '${ctx.node.name}' (Unsqueeze) repeats an axis in ${fmt(given)}`);
      const out: number[] = [];
      let j = 0;
      for (let i = 0; i < rank; i++) out.push(axes.includes(i) ? 1 : dims[j++]!);
      return [x.reshape(out)];
    },
    hostInputs: [1],
    infer: (ctx) => {
      const s = inShape(ctx, 0);
      const given = ctx.opset >= 13 ? ctx.constant(1)?.toArray() : ctx.attrs.ints('axes');
      if (!s || !given) return [sameElem(ctx, 0, undefined)];
      const rank = s.length + given.length;
      const axes = Array.from(given, (a) => (a < 0 ? a + rank : a));
      const out: Dim[] = [];
      let j = 0;
      for (let i = 0; i < rank; i++) out.push(axes.includes(i) ? 1 : s[j++]);
      return [sameElem(ctx, 0, out)];
    },
  },
  Transpose: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const rank = x.rank();
      const perm = ctx.attrs.ints('perm') ?? Array.from({ length: rank }, (_, i) => rank - 1 - i);
      return [rank < 2 ? x : x.permute(perm)];
    },
    infer: (ctx) => {
      const s = inShape(ctx, 0);
      if (!s) return [sameElem(ctx, 0, undefined)];
      const perm = ctx.attrs.ints('perm') ?? s.map((_, i) => s.length - 1 - i);
      return [
        sameElem(
          ctx,
          0,
          perm.map((p) => s[p]),
        ),
      ];
    },
  },
  Concat: {
    run: (ctx, inputs) => {
      const ts = inputs.map((_, i) => tensorAt(ctx, inputs, i));
      const rank = ts[0]!.rank();
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), rank);
      // Empty inputs (a zero-size dim along the axis) add nothing.
      const parts = ts.filter((t) => t.numel() > 0 || t.dims()[axis] !== 0);
      return [parts.length === 0 ? ts[0]! : Tensor.cat(parts.length ? parts : ts, axis)];
    },
    infer: (ctx) => {
      const shapes = ctx.inputs.map((_, i) => inShape(ctx, i));
      if (shapes.some((s) => !s)) return [sameElem(ctx, 0, undefined)];
      const ss = shapes as (readonly Dim[])[];
      const rank = ss[0]!.length;
      const axis = ctx.attrs.int('axis', 0) < 0 ? ctx.attrs.int('axis', 0) + rank : ctx.attrs.int('axis', 0);
      const out = ss[0]!.map((d, i) => {
        if (i !== axis) return ss.find((s) => typeof s[i] === 'number')?.[i] ?? d;
        return ss.every((s) => typeof s[i] === 'number') ? ss.reduce((a, s) => a + (s[i] as number), 0) : undefined;
      });
      return [sameElem(ctx, 0, out)];
    },
  },
  Split: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), x.rank());
      const sizes = splitSizes(ctx, x.dims()[axis]!, ctx.node.outputs.length);
      // One output per size, empty ones included (splitWithSizes checks the sizes and drops empty pieces, as Burn).
      const pieces = x.splitWithSizes(sizes, axis);
      let k = 0;
      return sizes.map((s) => (s === 0 ? x.sliceDim(axis, [0, 0]) : pieces[k++]!) as AnyTensor);
    },
    hostInputs: [1],
    infer: (ctx) => ctx.node.outputs.map(() => sameElem(ctx, 0, undefined)),
  },
  Expand: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const shape = broadcastShape(ctx, x.dims(), ctx.ints(1)!);
      return [broadcastTo(x, shape)];
    },
    hostInputs: [1],
    infer: (ctx) => {
      const target = ctx.dims(1);
      return [sameElem(ctx, 0, target ? broadcastDims([inShape(ctx, 0), target]) : undefined)];
    },
  },
  Tile: {
    run: (ctx, inputs) => [tensorAt(ctx, inputs, 0).repeat(ctx.ints(1)!)],
    hostInputs: [1],
  },
  Constant: {
    run: (ctx) => {
      const v = constantValue(ctx.attrs);
      if (typeof v === 'string')
        throw new BurnError(OP, `node '${ctx.node.name}' (Constant) holds ${v}, which burn-ts tensors cannot`);
      return [fromHost(v, ctx.device)];
    },
    check: (_node, attrs) => {
      const v = constantValue(attrs);
      return typeof v === 'string' ? `${v} are not supported` : undefined;
    },
    infer: (ctx) => {
      const v = constantValue(ctx.attrs);
      return [typeof v === 'string' ? undefined : tensorType(v.dtype, v.shape)];
    },
  },
  ConstantOfShape: {
    run: (ctx) => {
      const shape = ctx.ints(0)!;
      const t = ctx.attrs.tensor('value');
      const dtype: DType = t?.data?.dtype ?? 'f32';
      const value = t?.data ? Number(t.data.toArray()[0] ?? 0) : 0;
      return [filled(shape, value, dtype, ctx.device)];
    },
    hostInputs: [0],
    check: (_node, attrs) => {
      const t = attrs.tensor('value');
      return t && !t.data ? `value of element type ${t.elem} is not supported` : undefined;
    },
    infer: (ctx) => [tensorType(ctx.attrs.tensor('value')?.elem ?? 'f32', ctx.dims(0)?.slice())],
  },
  Cast: {
    run: (ctx, inputs) => [castTo(tensorAt(ctx, inputs, 0), castTarget(ctx.attrs) as DType)],
    check: (_node, attrs) =>
      isSupportedElem(castTarget(attrs)) ? undefined : `casting to ${castTarget(attrs)} is not supported`,
    infer: (ctx) => [tensorType(castTarget(ctx.attrs), inShape(ctx, 0))],
  },
  CastLike: {
    run: (ctx, inputs) => [castTo(tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1).dtype())],
    infer: (ctx) => [
      {
        kind: 'tensor',
        elem: ctx.inputs[1]?.kind === 'tensor' ? ctx.inputs[1].elem : 'undefined',
        shape: inShape(ctx, 0),
      },
    ],
  },
  Range: {
    run: (ctx) => {
      const dtype = ctx.host(0)!.dtype;
      const [start, limit, delta] = [ctx.floats(0)![0]!, ctx.floats(1)![0]!, ctx.floats(2)![0]!];
      if (delta === 0) throw new BurnError(OP, `node '${ctx.node.name}' (Range) has delta 0`);
      const n = Math.max(Math.ceil((limit - start) / delta), 0);
      const values = Array.from({ length: n }, (_, i) => start + i * delta);
      return [fromHost(new TensorData(values, [n], dtype), ctx.device)];
    },
    hostInputs: [0, 1, 2],
    infer: (ctx) => [sameElem(ctx, 0, [undefined])],
  },
  EyeLike: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const [r, c] = x.dims() as [number, number];
      const k = ctx.attrs.int('k', 0);
      const code = ctx.attrs.int('dtype');
      const dtype = (code !== undefined ? elemTypeOfCode(code) : x.dtype()) as DType;
      const values = new Array<number>(r * c).fill(0);
      for (let i = 0; i < r; i++) if (i + k >= 0 && i + k < c) values[i * c + i + k] = 1;
      return [fromHost(new TensorData(values, [r, c], dtype), ctx.device)];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
  DepthToSpace: {
    run: (ctx, inputs) => [
      depthToSpace(tensorAt(ctx, inputs, 0), ctx.attrs.int('blocksize', 1), ctx.attrs.string('mode', 'DCR') === 'CRD'),
    ],
  },
  SpaceToDepth: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const b = ctx.attrs.int('blocksize', 1);
      const [n, c, h, w] = x.dims() as [number, number, number, number];
      return [
        x
          .reshape([n, c, h / b, b, w / b, b])
          .permute([0, 3, 5, 1, 2, 4])
          .reshape([n, c * b * b, h / b, w / b]),
      ];
    },
  },
  Trilu: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const k = ctx.ints(1)?.[0] ?? 0;
      const upper = ctx.attrs.int('upper', 1) === 1;
      if (x.numel() === 0) return [x];
      const isBool = x.dtype() === 'bool';
      const n = asN(isBool ? castTo(x, 'u8') : x);
      const out = (upper ? n.triu(k) : n.tril(k)) as AnyTensor;
      return [isBool ? castTo(out, 'bool') : out];
    },
    hostInputs: [1],
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
  Pad: {
    run: (ctx, inputs) => [pad(ctx, tensorAt(ctx, inputs, 0))],
    hostInputs: [1, 2, 3],
  },
};

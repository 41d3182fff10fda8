import { TensorData } from '../../core/data.js';
import { literal, num, type EmitContext, type Emitter } from './context.js';

/**
 * Emitters of shape computations and layout operators. Shape arithmetic (`Shape → Gather →
 * Unsqueeze → Concat → Reshape`) runs on JS numbers in the generated code: a static dim is a
 * literal, a symbolic input dim its local (`batch`), anything else `x.dims()[k]` — so
 * `x.reshape([batch, seq * 4, 8])` is what remains of a shape subgraph.
 */

/** Wraps an expression in parentheses unless it is a name, a number, or a member/call chain. */
export function paren(e: string): string {
  return /^-?[0-9.]+$/.test(e) || /^[A-Za-z_$][\w$]*(\.[\w$]+|\(\)|\[\d+\])*$/.test(e) ? e : `(${e})`;
}

const isLit = (e: string) => /^-?\d+$/.test(e);

/** `a op b` on host numbers, folded when both are literals. */
function arith(op: string, a: string, b: string): string {
  if (isLit(a) && isLit(b)) {
    const x = Number(a);
    const y = Number(b);
    switch (op) {
      case '+':
        return String(x + y);
      case '-':
        return String(x - y);
      case '*':
        return String(x * y);
      case '/':
        return String(Math.trunc(x / y));
      case '%':
        return String(x % y);
      case 'max':
        return String(Math.max(x, y));
      case 'min':
        return String(Math.min(x, y));
    }
  }
  if (op === '*' && (a === '1' || b === '1')) return a === '1' ? b : a;
  if (op === '+' && (a === '0' || b === '0')) return a === '0' ? b : a;
  if (op === '-' && b === '0') return a;
  if (op === '/' && b === '1') return a;
  if (op === '/') return `Math.trunc(${a} / ${paren(b)})`;
  if (op === 'max' || op === 'min') return `Math.${op}(${a}, ${b})`;
  return `${paren(a)} ${op} ${paren(b)}`;
}

/** Elementwise host arithmetic with scalar broadcasting. */
function hostBinary(op: string): Emitter {
  return (ctx) => {
    const a = ctx.host(0)!;
    const b = ctx.host(1)!;
    const n = Math.max(a.length, b.length);
    const elems = Array.from({ length: n }, (_, i) =>
      arith(op, a[a.length === 1 ? 0 : i]!, b[b.length === 1 ? 0 : i]!),
    );
    return [{ host: elems, scalar: ctx.out(0).rank === 0 }];
  };
}

/** Integer values of a constant or host-literal input (axes, starts, pads), or undefined when computed at run time. */
export function ints(ctx: EmitContext, i: number): number[] | undefined {
  if (!ctx.has(i)) return undefined;
  const h = ctx.host(i);
  if (!h || !h.every(isLit)) return undefined;
  return h.map(Number);
}

function requireInts(ctx: EmitContext, i: number, what: string): number[] {
  const v = ints(ctx, i);
  if (!v) return ctx.fail(`has ${what} computed at run time`);
  return v;
}

/** The host-mode emitters: their inputs are shape values or integer constants, their output a short integer vector. */
export const hostEmitters: Readonly<Record<string, Emitter>> = {
  Shape: (ctx) => {
    const rank = ctx.info(0).rank;
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
    const start = clamp(ctx.attrs.int('start', 0));
    const end = clamp(ctx.attrs.int('end', rank));
    return [{ host: Array.from({ length: Math.max(0, end - start) }, (_, k) => ctx.dim(0, start + k)), scalar: false }];
  },
  Size: (ctx) => [
    {
      host: [Array.from({ length: ctx.info(0).rank }, (_, d) => ctx.dim(0, d)).reduce((a, b) => arith('*', a, b), '1')],
      scalar: true,
    },
  ],
  Identity: (ctx) => [{ same: ctx.value(0)! }],
  Cast: (ctx) => [{ same: ctx.value(0)! }],
  Gather: (ctx) => {
    const data = ctx.host(0)!;
    const idx = requireInts(ctx, 1, 'indices');
    const picked = idx.map((i) => data[i < 0 ? i + data.length : i]!);
    return [{ host: picked, scalar: ctx.out(0).rank === 0 }];
  },
  Unsqueeze: (ctx) => [{ host: ctx.host(0)!, scalar: false }],
  Squeeze: (ctx) => [{ host: ctx.host(0)!, scalar: ctx.out(0).rank === 0 }],
  Reshape: (ctx) => [{ host: ctx.host(0)!, scalar: ctx.out(0).rank === 0 }],
  Flatten: (ctx) => [{ host: ctx.host(0)!, scalar: false }],
  Concat: (ctx) => [{ host: ctx.node.inputs.flatMap((_, i) => ctx.host(i)!), scalar: false }],
  Slice: (ctx) => {
    const data = ctx.host(0)!;
    const starts = ctx.opset >= 10 ? requireInts(ctx, 1, 'starts') : [...ctx.attrs.ints('starts', [])];
    const ends = ctx.opset >= 10 ? requireInts(ctx, 2, 'ends') : [...ctx.attrs.ints('ends', [])];
    const steps = ctx.opset >= 10 && ctx.has(4) ? requireInts(ctx, 4, 'steps') : [1];
    if (steps[0] !== 1) return ctx.fail('slices a shape with a step');
    const n = data.length;
    const norm = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
    return [{ host: data.slice(norm(starts[0]!), norm(ends[0]!)), scalar: false }];
  },
  Add: hostBinary('+'),
  Sub: hostBinary('-'),
  Mul: hostBinary('*'),
  Div: hostBinary('/'),
  Mod: hostBinary('%'),
  Max: hostBinary('max'),
  Min: hostBinary('min'),
  Neg: (ctx) => [
    { host: ctx.host(0)!.map((e) => (isLit(e) ? String(-Number(e)) : `-${paren(e)}`)), scalar: ctx.out(0).rank === 0 },
  ],
};

/** The resolved, non-negative axes of an axes attribute or input (opset 13+). */
function axesOf(ctx: EmitContext, rank: number, fromInput: boolean): number[] | undefined {
  const raw = fromInput ? (ctx.has(1) ? requireInts(ctx, 1, 'axes') : undefined) : ctx.attrs.ints('axes')?.slice();
  return raw?.map((a) => (a < 0 ? a + rank : a)).sort((a, b) => a - b);
}

/** A slice bound as source: INT64-sized bounds mean "to the end". */
function bound(e: string, end: boolean): string {
  if (isLit(e) && Math.abs(Number(e)) >= 2 ** 31 - 1) return end ? 'null' : Number(e) > 0 ? 'null' : '0';
  return e;
}

const slice: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  let starts: readonly string[];
  let ends: readonly string[];
  let axes: number[];
  let steps: number[];
  if (ctx.opset < 10) {
    starts = ctx.attrs.ints('starts', []).map(String);
    ends = ctx.attrs.ints('ends', []).map(String);
    axes = ctx.attrs.ints('axes')?.slice() ?? starts.map((_, i) => i);
    steps = starts.map(() => 1);
  } else {
    const s = ctx.host(1);
    const e = ctx.host(2);
    if (!s || !e) return ctx.fail('has starts or ends computed from tensor values');
    starts = s;
    ends = e;
    axes = ctx.has(3) ? requireInts(ctx, 3, 'axes') : starts.map((_, i) => i);
    steps = ctx.has(4) ? requireInts(ctx, 4, 'steps') : starts.map(() => 1);
  }
  const args: string[] = new Array<string>(rank).fill('null');
  axes.forEach((raw, k) => {
    const a = raw < 0 ? raw + rank : raw;
    const step = steps[k]!;
    if (step > 0) {
      const b = bound(starts[k]!, false);
      const en = bound(ends[k]!, true);
      args[a] = `[${b === 'null' ? '0' : b}, ${en}${step !== 1 ? `, ${step}` : ''}]`;
    } else {
      // ONNX walks from start down to end (exclusive); Burn's negative step walks [lo, hi) backwards.
      if (!isLit(starts[k]!) || !isLit(ends[k]!)) return ctx.fail('slices backwards with bounds computed at run time');
      const d = ctx.info(0).dims[a];
      if (typeof d !== 'number') return ctx.fail('slices backwards over a dim whose size varies');
      const clampS = (v: number) => Math.min(Math.max(v < 0 ? v + d : v, -1), d - 1);
      const hi = clampS(Number(starts[k])) + 1;
      const lo =
        Math.max(
          Number(ends[k]) < 0 && Math.abs(Number(ends[k])) < 2 ** 31
            ? Number(ends[k]) + d
            : Number(ends[k]) <= -(2 ** 31) + 1
              ? -1
              : Number(ends[k]),
          -1,
        ) + 1;
      args[a] = `[${lo}, ${hi}, ${step}]`;
    }
  });
  const x = ctx.tensor(0);
  const used = args.map((a, i) => [a, i] as const).filter(([a]) => a !== 'null');
  if (used.length === 1) return [`${x}.sliceDim(${used[0]![1]}, ${used[0]![0]})`];
  while (args.length > 0 && args[args.length - 1] === 'null') args.pop();
  return [`${x}.slice([${args.join(', ')}])`];
};

const reshape: Emitter = (ctx) => {
  const shape = ctx.host(1);
  if (!shape) return ctx.fail('has a target shape computed from tensor values');
  if (ctx.attrs.int('allowzero', 0) === 1 && shape.includes('0'))
    return ctx.fail('reshapes to an empty dim (allowzero)');
  return [`${ctx.tensor(0)}.reshape([${shape.join(', ')}])`];
};

const flatten: Emitter = (ctx) => {
  const r = ctx.info(0).rank;
  const raw = ctx.attrs.int('axis', 1);
  const axis = raw < 0 ? raw + r : raw;
  const x = ctx.tensor(0);
  if (axis === 0) return [`${x}.reshape([1, -1])`];
  if (axis === r) return [`${x}.reshape([-1, 1])`];
  if (r === 2 && axis === 1) return [x];
  if (axis === 1) return [`${x}.flatten(1, ${r - 1})`];
  const first = `${x}.flatten(0, ${axis - 1})`;
  return [r - axis === 1 ? first : `${first}.flatten(1, ${r - axis})`];
};

const transpose: Emitter = (ctx) => {
  const r = ctx.info(0).rank;
  const perm = ctx.attrs.ints('perm')?.slice() ?? Array.from({ length: r }, (_, i) => r - 1 - i);
  const moved = perm.flatMap((p, i) => (p !== i ? [i] : []));
  const x = ctx.tensor(0);
  if (moved.length === 0) return [x];
  if (moved.length === 2 && perm[moved[0]!] === moved[1] && perm[moved[1]!] === moved[0])
    return [`${x}.swapDims(${moved[0]}, ${moved[1]})`];
  return [`${x}.permute([${perm.join(', ')}])`];
};

const squeeze: Emitter = (ctx) => {
  const info = ctx.info(0);
  const axes = axesOf(ctx, info.rank, ctx.opset >= 13) ?? info.dims.flatMap((d, i) => (d === 1 ? [i] : []));
  const x = ctx.tensor(0);
  if (axes.length === 0) return [x];
  return [axes.length === 1 ? `${x}.squeezeDim(${axes[0]})` : `${x}.squeezeDims([${axes.join(', ')}])`];
};

const unsqueeze: Emitter = (ctx) => {
  const outRank = ctx.out(0).rank;
  const axes = axesOf(ctx, outRank, ctx.opset >= 13);
  if (!axes) return ctx.fail('has no axes');
  const x = ctx.tensor(0);
  return [axes.length === 1 ? `${x}.unsqueezeDim(${axes[0]})` : `${x}.unsqueezeDims([${axes.join(', ')}])`];
};

const concat: Emitter = (ctx) => {
  const rank = ctx.out(0).rank;
  const raw = ctx.attrs.int('axis', 0);
  const axis = raw < 0 ? raw + rank : raw;
  ctx.use('burn-ts', 'Tensor');
  const parts = ctx.node.inputs.map((_, i) => ctx.tensor(i));
  return [`Tensor.cat([${parts.join(', ')}], ${axis})`];
};

const split: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const raw = ctx.attrs.int('axis', 0);
  const axis = raw < 0 ? raw + rank : raw;
  const n = ctx.node.outputs.length;
  let sizes: string[] | undefined;
  if (ctx.opset >= 13 && ctx.has(1)) sizes = ctx.host(1)?.slice();
  else if (ctx.opset < 13) sizes = ctx.attrs.ints('split')?.map(String);
  if (ctx.opset >= 13 && ctx.has(1) && !sizes) return ctx.fail('has split sizes computed from tensor values');
  const x = ctx.tensor(0, false);
  if (!sizes) {
    const dim = ctx.dim(0, axis);
    const parts = ctx.attrs.int('num_outputs') ?? n;
    if (isLit(dim)) {
      const each = Math.ceil(Number(dim) / parts);
      sizes = Array.from({ length: parts }, (_, k) => String(Math.max(0, Math.min(each, Number(dim) - k * each))));
    } else {
      const part = ctx.local('part');
      ctx.stmt(`const ${part} = Math.ceil(${dim} / ${parts});`);
      return Array.from(
        { length: n },
        (_, k) => `${x}.sliceDim(${axis}, [${arith('*', String(k), part)}, ${arith('*', String(k + 1), part)}])`,
      );
    }
  }
  let offset = '0';
  return sizes.map((s) => {
    const end = arith('+', offset, s);
    const e = `${x}.sliceDim(${axis}, [${offset}, ${end}])`;
    offset = end;
    return e;
  });
};

const gather: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const raw = ctx.attrs.int('axis', 0);
  const axis = raw < 0 ? raw + rank : raw;
  const idx = ctx.value(1);
  const k = ctx.scalar(1);
  if (k !== undefined && ctx.info(1).rank === 0)
    return [`${ctx.tensor(0)}.sliceDim(${axis}, ${num(k)}).squeezeDim(${axis})`];
  if (idx?.kind === 'host' && idx.scalar)
    return [`${ctx.tensor(0)}.sliceDim(${axis}, ${idx.elems[0]}).squeezeDim(${axis})`];
  return [`${ctx.tensor(0)}.take<${ctx.out(0).rank}>(${axis}, ${indices(ctx, 1, axis)})`];
};

/** Index input `i` into dim `axis` of input 0; negative constant indices count from the end (ONNX), so they are resolved here. */
function indices(ctx: EmitContext, i: number, axis: number): string {
  const c = ctx.constant(i);
  const n = ctx.info(0).dims[axis];
  if (!c || typeof n !== 'number' || !Array.from(c.toArray()).some((v) => v < 0)) return ctx.tensor(i);
  const vals = Array.from(c.toArray(), (v) => (v < 0 ? v + n : v));
  if (c.numElements() <= 8 && c.shape.length <= 1) {
    ctx.use('burn-ts', 'Tensor');
    const t = `Tensor.fromInts([${vals.join(', ')}], { device: ${ctx.device()}, dtype: '${c.dtype}' })`;
    return c.shape.length === 0 ? `${t}.reshape([])` : t;
  }
  return ctx.param(`${ctx.hint} indices`, {
    data: new TensorData(vals, c.shape, c.dtype),
    trainable: false,
    source: ctx.node.inputs[i]!,
  });
}

const gatherElements: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const raw = ctx.attrs.int('axis', 0);
  const axis = raw < 0 ? raw + rank : raw;
  return [`${ctx.tensor(0)}.gather(${axis}, ${indices(ctx, 1, axis)})`];
};

const scatterElements: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const raw = ctx.attrs.int('axis', 0);
  const axis = raw < 0 ? raw + rank : raw;
  const reduction = ctx.attrs.string('reduction', 'none');
  const op = reduction === 'none' ? 'assign' : reduction;
  if (!['assign', 'add', 'mul', 'min', 'max'].includes(op)) return ctx.fail(`has reduction '${reduction}'`);
  return [`${ctx.tensor(0)}.scatter(${axis}, ${indices(ctx, 1, axis)}, ${ctx.tensor(2)}, '${op}')`];
};

/** DepthToSpace / SpaceToDepth as a reshape, a permutation and a reshape. */
function blocks(toSpace: boolean): Emitter {
  return (ctx) => {
    const b = ctx.attrs.int('blocksize', 1);
    const [n, c, h, w] = [0, 1, 2, 3].map((d) => ctx.dim(0, d)) as [string, string, string, string];
    const x = ctx.tensor(0);
    if (toSpace) {
      const crd = ctx.attrs.string('mode', 'DCR') === 'CRD';
      const oc = arith('/', c, String(b * b));
      const first = crd ? `[${n}, ${oc}, ${b}, ${b}, ${h}, ${w}]` : `[${n}, ${b}, ${b}, ${oc}, ${h}, ${w}]`;
      const perm = crd ? '[0, 1, 4, 2, 5, 3]' : '[0, 3, 4, 1, 5, 2]';
      return [
        `${x}.reshape(${first}).permute(${perm}).reshape([${n}, ${oc}, ${arith('*', h, String(b))}, ${arith('*', w, String(b))}])`,
      ];
    }
    const oh = arith('/', h, String(b));
    const ow = arith('/', w, String(b));
    return [
      `${x}.reshape([${n}, ${c}, ${oh}, ${b}, ${ow}, ${b}]).permute([0, 3, 5, 1, 2, 4]).reshape([${n}, ${arith('*', c, String(b * b))}, ${oh}, ${ow}])`,
    ];
  };
}

const expand: Emitter = (ctx) => {
  const shape = ctx.host(1);
  if (!shape) return ctx.fail('has a target shape computed from tensor values');
  const x = ctx.info(0);
  const rank = Math.max(shape.length, x.rank);
  const target = [...new Array<string>(rank - shape.length).fill('-1'), ...shape];
  const off = rank - x.rank;
  // ONNX broadcasts both ways: a 1 in the shape keeps the input's size (-1 in Burn's expand).
  const dims = target.map((e, i) => (e === '1' && i >= off && x.dims[i - off] !== 1 ? '-1' : e));
  if (dims.every((d, i) => d === '-1' && i >= off) && off === 0) return [ctx.tensor(0)];
  return [`${ctx.tensor(0)}.expand([${dims.join(', ')}])`];
};

const constantOfShape: Emitter = (ctx) => {
  const shape = ctx.host(0);
  if (!shape) return ctx.fail('has a shape computed from tensor values');
  const t = ctx.attrs.tensor('value');
  const data: TensorData | undefined = t?.data;
  const value = data ? Number(data.toArray()[0]) : 0;
  const dtype = data?.dtype ?? 'f32';
  ctx.use('burn-ts', 'Tensor');
  const v = dtype === 'bool' ? String(value !== 0) : num(value);
  const e = `Tensor.full([${shape.join(', ')}], ${v}, { ${ctx.device() === 'device' ? 'device' : `device: ${ctx.device()}`}${dtype === 'f32' ? '' : `, dtype: '${dtype}'`} })`;
  return [value === 0 ? { zeros: e } : e];
};

const range: Emitter = (ctx) => {
  const [s, l, d] = [0, 1, 2].map(
    (i) => ctx.host(i)?.[0] ?? (ctx.scalar(i) !== undefined ? num(ctx.scalar(i)!) : undefined),
  );
  if (s === undefined || l === undefined || d === undefined) return ctx.fail('has bounds computed from tensor values');
  const out = ctx.out(0);
  if (out.dtype.startsWith('f') && [s, l, d].some((e) => !/^-?\d+$/.test(e) && !/^[A-Za-z_$]/.test(e)))
    return ctx.fail('is a range of non-integer floats');
  ctx.use('burn-ts', 'Tensor');
  const dtype = out.dtype.startsWith('f') ? 'i64' : out.dtype;
  const base =
    d === '1'
      ? `Tensor.arange(${s}, ${l}, { device: ${ctx.device()}, dtype: '${dtype}' })`
      : `Tensor.arangeStep(${s}, ${l}, ${d}, { device: ${ctx.device()}, dtype: '${dtype}' })`;
  return [out.dtype.startsWith('f') ? `${base}.float(${out.dtype === 'f32' ? '' : `'${out.dtype}'`})` : base];
};

const pad: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const pads = ctx.opset >= 11 ? requireInts(ctx, 1, 'pads') : [...ctx.attrs.ints('pads', [])];
  const axes =
    ctx.opset >= 18 && ctx.has(3)
      ? requireInts(ctx, 3, 'axes').map((a) => (a < 0 ? a + rank : a))
      : Array.from({ length: rank }, (_, i) => i);
  const mode = ctx.attrs.string('mode', 'constant');
  const value = ctx.opset >= 11 ? (ctx.has(2) ? ctx.scalar(2) : 0) : ctx.attrs.float('value', 0);
  if (value === undefined) return ctx.fail('has a fill value computed at run time');
  if (pads.some((p) => p < 0)) return ctx.fail('has negative pads (cropping)');
  const pairs = Array.from({ length: rank }, () => [0, 0] as [number, number]);
  axes.forEach((a, k) => {
    pairs[a] = [pads[k]!, pads[k + axes.length]!];
  });
  const m =
    mode === 'constant'
      ? num(value)
      : mode === 'reflect'
        ? "'reflect'"
        : mode === 'edge'
          ? "'edge'"
          : ctx.fail(`has mode '${mode}'`);
  return [`${ctx.tensor(0)}.pad(${literal(pairs)}, ${m})`];
};

const tile: Emitter = (ctx) => {
  const reps = ctx.host(1);
  if (!reps) return ctx.fail('has repeats computed from tensor values');
  return [`${ctx.tensor(0)}.repeat([${reps.join(', ')}])`];
};

const trilu: Emitter = (ctx) => {
  const k = ctx.has(1) ? ctx.scalar(1) : 0;
  if (k === undefined) return ctx.fail('has a diagonal computed at run time');
  return [`${ctx.tensor(0)}.${ctx.attrs.int('upper', 1) ? 'triu' : 'tril'}(${k})`];
};

/** The shape and layout emitters in tensor mode, by ONNX op type. */
export const shapeEmitters: Readonly<Record<string, Emitter>> = {
  Reshape: reshape,
  Flatten: flatten,
  Transpose: transpose,
  Squeeze: squeeze,
  Unsqueeze: unsqueeze,
  Concat: concat,
  Split: split,
  Slice: slice,
  Gather: gather,
  GatherElements: gatherElements,
  ScatterElements: scatterElements,
  DepthToSpace: blocks(true),
  SpaceToDepth: blocks(false),
  Expand: expand,
  ConstantOfShape: constantOfShape,
  Range: range,
  Pad: pad,
  Tile: tile,
  Trilu: trilu,
};

import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { AnyTensor, FloatT, OpContext, OpFamily, Value } from './types.js';
import { asB, asF, i64Tensor, optTensorAt, tensorAt } from './util.js';

const OP = 'onnx';
type Act = (x: FloatT) => FloatT;

/** The activation functions the ONNX recurrent ops may name, with their alpha/beta. */
function activation(ctx: OpContext, name: string, alpha: number | undefined, beta: number | undefined): Act {
  switch (name.toLowerCase()) {
    case 'sigmoid':
      return (x) => x.sigmoid();
    case 'tanh':
      return (x) => x.tanh();
    case 'relu':
      return (x) => x.relu();
    case 'leakyrelu':
      return (x) => x.maskWhere(x.lower(0), x.mul(alpha ?? 0.01));
    case 'hardsigmoid':
      return (x) =>
        x
          .mul(alpha ?? 0.2)
          .add(beta ?? 0.5)
          .clamp(0, 1);
    case 'affine':
      return (x) => x.mul(alpha ?? 1).add(beta ?? 0);
    case 'scaledtanh':
      return (x) =>
        x
          .mul(beta ?? 1)
          .tanh()
          .mul(alpha ?? 1);
    case 'thresholdedrelu':
      return (x) => x.maskFill(x.lowerEqual(alpha ?? 1), 0);
    case 'elu':
      return (x) =>
        x.maskWhere(
          x.lower(0),
          x
            .exp()
            .sub(1)
            .mul(alpha ?? 1),
        );
    case 'softsign':
      return (x) => x.div(x.abs().add(1));
    case 'softplus':
      return (x) => x.exp().add(1).log();
    default:
      throw new BurnError(
        OP,
        `node '${ctx.node.name}' (${ctx.node.opType}) uses activation '${name}', which is not supported`,
      );
  }
}

/** The per-direction activation triples (or pairs, or singles) of a recurrent node. */
function activations(ctx: OpContext, defaults: readonly string[], dirs: number): Act[][] {
  const names = ctx.attrs.strings('activations') ?? [];
  const alphas = ctx.attrs.floats('activation_alpha') ?? [];
  const betas = ctx.attrs.floats('activation_beta') ?? [];
  const n = defaults.length;
  return Array.from({ length: dirs }, (_, d) =>
    defaults.map((def, i) => {
      const j = d * n + i;
      return activation(
        ctx,
        names[j] ?? def,
        names[j] !== undefined ? alphas[j] : undefined,
        names[j] !== undefined ? betas[j] : undefined,
      );
    }),
  );
}

interface RnnInputs {
  x: FloatT; // [seq, batch, input]
  w: FloatT; // [dirs, gates*h, input]
  r: FloatT; // [dirs, gates*h, h]
  b: FloatT | undefined; // [dirs, 2*gates*h]
  lens: number[] | undefined;
  h0: FloatT | undefined; // [dirs, batch, h]
  c0: FloatT | undefined;
  p: FloatT | undefined;
  hidden: number;
  dirs: number;
  layout: number;
}

function readInputs(ctx: OpContext, inputs: readonly (Value | undefined)[]): RnnInputs {
  const layout = ctx.attrs.int('layout', 0);
  let x = asF(tensorAt(ctx, inputs, 0));
  if (layout === 1) x = x.swapDims(0, 1);
  const w = asF(tensorAt(ctx, inputs, 1));
  const direction = ctx.attrs.string('direction', 'forward');
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const hidden = ctx.attrs.int('hidden_size') ?? asF(tensorAt(ctx, inputs, 2)).dims()[2]!;
  const state = (i: number): FloatT | undefined => {
    const t = optTensorAt(ctx, inputs, i);
    if (!t) return undefined;
    return layout === 1 ? asF(t).swapDims(0, 1) : asF(t);
  };
  return {
    x,
    w,
    r: asF(tensorAt(ctx, inputs, 2)),
    b: optTensorAt(ctx, inputs, 3) && asF(optTensorAt(ctx, inputs, 3)!),
    lens: optTensorAt(ctx, inputs, 4) ? ctx.ints(4) : undefined,
    h0: state(5),
    c0: ctx.node.opType === 'LSTM' ? state(6) : undefined,
    p: ctx.node.opType === 'LSTM' ? optTensorAt(ctx, inputs, 7) && asF(optTensorAt(ctx, inputs, 7)!) : undefined,
    hidden,
    dirs,
    layout,
  };
}

/** Reverses each batch entry's first `len` steps (the time-reversed input of a reverse direction). */
function reverseTime(x: FloatT, lens: readonly number[] | undefined): FloatT {
  const [seq, batch] = x.dims() as [number, number];
  if (!lens) return x.flip([0]);
  const idx: number[] = [];
  for (let t = 0; t < seq; t++) for (let b = 0; b < batch; b++) idx.push(t < lens[b]! ? lens[b]! - 1 - t : t);
  const table = i64Tensor(idx, x.device(), [seq, batch, 1]).expand(x.dims());
  return x.gather(0, table as Tensor<number, 'int'>);
}

/** One recurrent step: from the step's input projection and the previous states, the new states. */
type Cell = (xProj: FloatT, h: FloatT, c: FloatT | undefined) => [FloatT, FloatT | undefined];

function runDirection(
  cell: Cell,
  xProj: FloatT,
  h0: FloatT,
  c0: FloatT | undefined,
  lens: readonly number[] | undefined,
): { ys: FloatT[]; h: FloatT; c: FloatT | undefined } {
  const seq = xProj.dims()[0]!;
  const batch = h0.dims()[0]!;
  let h = h0;
  let c = c0;
  const ys: FloatT[] = [];
  for (let t = 0; t < seq; t++) {
    const xt = xProj.slice([[t, t + 1]]).squeezeDim(0);
    let [hn, cn] = cell(xt, h, c);
    if (lens && lens.some((l) => t >= l)) {
      // Finished sequences keep their state and output zeros.
      const alive = asB(
        Tensor.fromBools(
          Array.from({ length: batch }, (_, b) => [t < lens[b]!]),
          h.device(),
        ) as unknown as AnyTensor,
      ).expand(hn.dims());
      const dead = alive.boolNot();
      hn = hn.maskWhere(dead, h);
      if (cn && c) cn = cn.maskWhere(dead, c);
      ys.push(hn.maskFill(dead, 0));
    } else ys.push(hn);
    h = hn;
    c = cn;
  }
  return { ys, h, c };
}

function recurrent(
  ctx: OpContext,
  inputs: readonly (Value | undefined)[],
  gates: number,
  defaults: readonly string[],
  makeCell: (d: number, r: FloatT, rb: FloatT | undefined, acts: Act[]) => Cell,
): AnyTensor[] {
  const ri = readInputs(ctx, inputs);
  const { x, w, r, b, lens, hidden, dirs, layout } = ri;
  const [seq, batch, input] = x.dims() as [number, number, number];
  const acts = activations(ctx, defaults, dirs);
  const dev = x.device();
  const outs: FloatT[][] = [];
  const hs: FloatT[] = [];
  const cs: FloatT[] = [];
  const direction = ctx.attrs.string('direction', 'forward');
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    const src = reverse ? reverseTime(x, lens) : x;
    const wd = w.slice([[d, d + 1]]).squeezeDim(0); // [gates*h, input]
    let xProj = src
      .reshape([seq * batch, input])
      .matmul(wd.transpose())
      .reshape([seq, batch, gates * hidden]);
    let rb: FloatT | undefined;
    if (b) {
      const bd = b.slice([[d, d + 1]]).squeezeDim(0);
      xProj = xProj.add(bd.slice([[0, gates * hidden]]).reshape([1, 1, gates * hidden]));
      rb = bd.slice([[gates * hidden, 2 * gates * hidden]]).reshape([1, gates * hidden]);
    }
    const h0 = ri.h0
      ? ri.h0.slice([[d, d + 1]]).squeezeDim(0)
      : (Tensor.zeros([batch, hidden], { device: dev, dtype: x.dtype() }) as FloatT);
    const c0 =
      ctx.node.opType === 'LSTM'
        ? ri.c0
          ? ri.c0.slice([[d, d + 1]]).squeezeDim(0)
          : (Tensor.zeros([batch, hidden], { device: dev, dtype: x.dtype() }) as FloatT)
        : undefined;
    const cell = makeCell(d, r.slice([[d, d + 1]]).squeezeDim(0), rb, acts[d]!);
    const res = runDirection(cell, xProj, h0, c0, lens);
    let ys = res.ys;
    if (reverse) {
      const stacked = Tensor.stack(ys, 0) as FloatT;
      const back = reverseTime(stacked, lens);
      ys = Array.from({ length: seq }, (_, t) => back.slice([[t, t + 1]]).squeezeDim(0));
    }
    outs.push(ys);
    hs.push(res.h);
    if (res.c) cs.push(res.c);
  }
  // Y: [seq, dirs, batch, hidden]
  let y =
    seq === 0
      ? (Tensor.zeros([0, dirs, batch, hidden], { device: dev, dtype: x.dtype() }) as FloatT)
      : (Tensor.stack(
          outs.map((ys) => Tensor.stack(ys, 0) as FloatT),
          1,
        ) as FloatT);
  let yh = Tensor.stack(hs, 0) as FloatT;
  let yc = cs.length ? (Tensor.stack(cs, 0) as FloatT) : undefined;
  if (layout === 1) {
    y = y.permute([2, 0, 1, 3]);
    yh = yh.swapDims(0, 1);
    yc = yc?.swapDims(0, 1);
  }
  const result: AnyTensor[] = [y as AnyTensor, yh as AnyTensor];
  if (yc) result.push(yc as AnyTensor);
  return result;
}

function clipFn(ctx: OpContext): (t: FloatT) => FloatT {
  const clip = ctx.attrs.float('clip');
  return clip === undefined ? (t) => t : (t) => t.clamp(-clip, clip);
}

function lstm(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor[] {
  const clip = clipFn(ctx);
  const coupled = ctx.attrs.int('input_forget', 0) === 1;
  const p = optTensorAt(ctx, inputs, 7);
  return recurrent(ctx, inputs, 4, ['Sigmoid', 'Tanh', 'Tanh'], (d, r, rb, [f, g, h]) => {
    const rt = r.transpose();
    const hidden = r.dims()[1]!;
    const peep = p
      ? asF(p)
          .slice([[d, d + 1]])
          .reshape([3 * hidden])
      : undefined;
    const pi = peep?.slice([[0, hidden]]);
    const po = peep?.slice([[hidden, 2 * hidden]]);
    const pf = peep?.slice([[2 * hidden, 3 * hidden]]);
    return (xp, hPrev, cPrev) => {
      let z = xp.add(hPrev.matmul(rt));
      if (rb) z = z.add(rb);
      const [zi, zo, zf, zc] = z.chunk(4, 1) as [FloatT, FloatT, FloatT, FloatT];
      const c0 = cPrev!;
      const i = f!(clip(pi ? zi.add(c0.mul(pi.reshape([1, hidden]))) : zi));
      const fg = coupled ? i.neg().add(1) : f!(clip(pf ? zf.add(c0.mul(pf.reshape([1, hidden]))) : zf));
      const cand = g!(clip(zc));
      const c = fg.mul(c0).add(i.mul(cand));
      const o = f!(clip(po ? zo.add(c.mul(po.reshape([1, hidden]))) : zo));
      return [o.mul(h!(c)), c];
    };
  });
}

function gru(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor[] {
  const clip = clipFn(ctx);
  const linearBeforeReset = ctx.attrs.int('linear_before_reset', 0) === 1;
  return recurrent(ctx, inputs, 3, ['Sigmoid', 'Tanh'], (_d, r, rb, [f, g]) => {
    const hidden = r.dims()[1]!;
    const rzr = r.slice([[0, 2 * hidden]]).transpose();
    const rh = r.slice([[2 * hidden, 3 * hidden]]).transpose();
    const rbzr = rb?.slice([null, [0, 2 * hidden]]);
    const rbh = rb?.slice([null, [2 * hidden, 3 * hidden]]);
    return (xp, hPrev) => {
      const [xz, xr, xh] = xp.chunk(3, 1) as [FloatT, FloatT, FloatT];
      let hzr = hPrev.matmul(rzr);
      if (rbzr) hzr = hzr.add(rbzr);
      const [hz, hr] = hzr.chunk(2, 1) as [FloatT, FloatT];
      const z = f!(clip(xz.add(hz)));
      const rg = f!(clip(xr.add(hr)));
      let cand: FloatT;
      if (linearBeforeReset) {
        let hh = hPrev.matmul(rh);
        if (rbh) hh = hh.add(rbh);
        cand = g!(clip(xh.add(rg.mul(hh))));
      } else {
        let hh = rg.mul(hPrev).matmul(rh);
        if (rbh) hh = hh.add(rbh);
        cand = g!(clip(xh.add(hh)));
      }
      return [z.neg().add(1).mul(cand).add(z.mul(hPrev)), undefined];
    };
  });
}

function simpleRnn(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor[] {
  const clip = clipFn(ctx);
  return recurrent(ctx, inputs, 1, ['Tanh'], (_d, r, rb, [f]) => {
    const rt = r.transpose();
    return (xp, hPrev) => {
      let z = xp.add(hPrev.matmul(rt));
      if (rb) z = z.add(rb);
      return [f!(clip(z)), undefined];
    };
  });
}

/** Recurrent layers: LSTM (peepholes, coupled gates), GRU (both reset placements), RNN; any direction and layout, variable lengths. */
export const rnnOps: OpFamily = {
  LSTM: { run: lstm, hostInputs: [4] },
  GRU: { run: gru, hostInputs: [4] },
  RNN: { run: simpleRnn, hostInputs: [4] },
};

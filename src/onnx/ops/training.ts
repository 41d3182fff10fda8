import type { AnyTensor, FloatT, OpContext, OpFamily, Value } from './types.js';
import { asF, tensorAt } from './util.js';

/** Splits the variadic inputs after R and T into `groups` equal lists (X…, G…, then states). */
function groups(ctx: OpContext, inputs: readonly (Value | undefined)[], n: number): FloatT[][] {
  const rest = inputs.slice(2).map((_, i) => asF(tensorAt(ctx, inputs, i + 2)));
  const k = rest.length / n;
  return Array.from({ length: n }, (_, g) => rest.slice(g * k, (g + 1) * k));
}

function scalars(ctx: OpContext): [number, number] {
  return [ctx.floats(0)![0]!, ctx.ints(1)![0]!];
}

/** The ONNX training-preview optimizers (ai.onnx.preview.training): Adagrad, Momentum, Adam update rules. */
export const trainingOps: OpFamily = {
  Adagrad: {
    run: (ctx, inputs) => {
      const [r, t] = scalars(ctx);
      const [xs, gs, hs] = groups(ctx, inputs, 3) as [FloatT[], FloatT[], FloatT[]];
      const decay = ctx.attrs.float('decay_factor', 0);
      const eps = ctx.attrs.float('epsilon', 0);
      const norm = ctx.attrs.float('norm_coefficient', 0);
      const rate = r / (1 + t * decay);
      const out = xs.map((x, i) => {
        const g = x.mul(norm).add(gs[i]!);
        const h = hs[i]!.add(g.mul(g));
        return [x.sub(g.div(h.sqrt().add(eps)).mul(rate)), h] as const;
      });
      return [...out.map(([x]) => x as AnyTensor), ...out.map(([, h]) => h as AnyTensor)];
    },
    hostInputs: [0, 1],
  },
  Momentum: {
    run: (ctx, inputs) => {
      const [r, t] = scalars(ctx);
      const [xs, gs, vs] = groups(ctx, inputs, 3) as [FloatT[], FloatT[], FloatT[]];
      const alpha = ctx.attrs.float('alpha', 0);
      const beta = ctx.attrs.float('beta', 0);
      const norm = ctx.attrs.float('norm_coefficient', 0);
      const nesterov = ctx.attrs.string('mode', 'standard') === 'nesterov';
      const b = t > 0 ? beta : 1;
      const out = xs.map((x, i) => {
        const g = x.mul(norm).add(gs[i]!);
        const v = vs[i]!.mul(alpha).add(g.mul(b));
        const step = nesterov ? g.add(v.mul(alpha)) : v;
        return [x.sub(step.mul(r)), v] as const;
      });
      return [...out.map(([x]) => x as AnyTensor), ...out.map(([, v]) => v as AnyTensor)];
    },
    hostInputs: [0, 1],
  },
  Adam: {
    run: (ctx, inputs) => {
      const [r, t] = scalars(ctx);
      const [xs, gs, vs, hs] = groups(ctx, inputs, 4) as [FloatT[], FloatT[], FloatT[], FloatT[]];
      const alpha = ctx.attrs.float('alpha', 0.9);
      const beta = ctx.attrs.float('beta', 0.999);
      const eps = ctx.attrs.float('epsilon', 1e-6);
      const norm = ctx.attrs.float('norm_coefficient', 0);
      const post = ctx.attrs.float('norm_coefficient_post', 0);
      const rate = t > 0 ? (r * Math.sqrt(1 - beta ** t)) / (1 - alpha ** t) : r;
      const out = xs.map((x, i) => {
        const g = x.mul(norm).add(gs[i]!);
        const v = vs[i]!.mul(alpha).add(g.mul(1 - alpha));
        const h = hs[i]!.mul(beta).add(g.mul(g).mul(1 - beta));
        const xn = x.sub(v.div(h.sqrt().add(eps)).mul(rate)).mul(1 - post);
        return [xn, v, h] as const;
      });
      return [
        ...out.map(([x]) => x as AnyTensor),
        ...out.map(([, v]) => v as AnyTensor),
        ...out.map(([, , h]) => h as AnyTensor),
      ];
    },
    hostInputs: [0, 1],
  },
};

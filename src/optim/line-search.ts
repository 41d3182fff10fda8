import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';

type Flat = Tensor<1, Float>;

/**
 * Minimum of the cubic interpolating `(x1, f1, g1)` and `(x2, f2, g2)` (values and derivatives),
 * clamped to `bounds` (default: the interval between the points); the midpoint when the cubic has
 * no real minimum. PyTorch's and Burn's `cubic_interpolate`.
 */
export function cubicInterpolate(
  x1: number,
  f1: number,
  g1: number,
  x2: number,
  f2: number,
  g2: number,
  bounds?: [number, number],
): number {
  const [lo, hi] = bounds ?? (x1 <= x2 ? [x1, x2] : [x2, x1]);
  const d1 = g1 + g2 - (3 * (f1 - f2)) / (x1 - x2);
  const d2Square = d1 * d1 - g1 * g2;
  if (d2Square >= 0) {
    const d2 = Math.sqrt(d2Square);
    const minPos =
      x1 <= x2
        ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return Math.min(Math.max(minPos, lo), hi);
  }
  return (lo + hi) / 2;
}

/** A point of the line search: step, loss, gradient, directional derivative. */
interface Sample {
  t: number;
  f: number;
  g: Flat;
  gtd: number;
}

/** Evaluates the loss and flat gradient at `x + t·d`. */
export type LineObjective = (x: Flat, t: number, d: Flat) => Promise<{ loss: number; grad: Flat }>;

/** The outcome of {@link strongWolfe}. */
export interface LineSearchResult {
  readonly loss: number;
  readonly grad: Flat;
  readonly t: number;
  readonly evals: number;
}

async function dot(a: Flat, b: Flat): Promise<number> {
  return a.dot(b).intoScalar();
}

/**
 * Line search for a step satisfying the strong Wolfe conditions (bracketing, then zoom with cubic
 * interpolation), as Burn's and PyTorch's `_strong_wolfe`: sufficient decrease
 * `f(x + t·d) ≤ f + c1·t·gtd` and curvature `|∇f(x + t·d)·d| ≤ −c2·gtd`; at most `maxLs` evaluations
 * after the first.
 */
export async function strongWolfe(
  objective: LineObjective,
  x: Flat,
  t0: number,
  d: Flat,
  f: number,
  g: Flat,
  gtd: number,
  options: { c1: number; c2: number; toleranceChange: number; maxLs: number },
): Promise<LineSearchResult> {
  const { c1, c2, toleranceChange, maxLs } = options;
  let t = t0;
  const dNorm = await d.abs().max().intoScalar();
  let { loss: fNew, grad: gNew } = await objective(x, t, d);
  let evals = 1;
  let gtdNew = await dot(gNew, d);
  let prev: Sample = { t: 0, f, g, gtd };
  let lsIter = 0;
  let bracket: [Sample, Sample] | undefined;
  let done = false;

  while (lsIter < maxLs) {
    if (fNew > f + c1 * t * gtd || (lsIter > 1 && fNew >= prev.f)) {
      bracket = [prev, { t, f: fNew, g: gNew, gtd: gtdNew }];
      break;
    }
    if (Math.abs(gtdNew) <= -c2 * gtd) {
      return { loss: fNew, grad: gNew, t, evals };
    }
    if (gtdNew >= 0) {
      bracket = [prev, { t, f: fNew, g: gNew, gtd: gtdNew }];
      break;
    }
    const minStep = t + 0.01 * (t - prev.t);
    const maxStep = t * 10;
    const next = cubicInterpolate(prev.t, prev.f, prev.gtd, t, fNew, gtdNew, [minStep, maxStep]);
    prev = { t, f: fNew, g: gNew, gtd: gtdNew };
    t = next;
    ({ loss: fNew, grad: gNew } = await objective(x, t, d));
    evals++;
    gtdNew = await dot(gNew, d);
    lsIter++;
  }
  const b: [Sample, Sample] = bracket ?? [
    { t: 0, f, g, gtd },
    { t, f: fNew, g: gNew, gtd: gtdNew },
  ];

  // Zoom: shrink the bracket until a point satisfies both conditions.
  let insufficientProgress = false;
  let [low, high] = b[0].f <= b[1].f ? [0, 1] : [1, 0];
  while (!done && lsIter < maxLs) {
    if (Math.abs(b[1].t - b[0].t) * dNorm < toleranceChange) break;
    t = cubicInterpolate(b[0].t, b[0].f, b[0].gtd, b[1].t, b[1].f, b[1].gtd);
    const bMin = Math.min(b[0].t, b[1].t);
    const bMax = Math.max(b[0].t, b[1].t);
    const eps = 0.1 * (bMax - bMin);
    if (Math.min(bMax - t, t - bMin) < eps) {
      // Interpolation close to the boundary.
      if (insufficientProgress || t >= bMax || t <= bMin) {
        t = Math.abs(t - bMax) < Math.abs(t - bMin) ? bMax - eps : bMin + eps;
        insufficientProgress = false;
      } else {
        insufficientProgress = true;
      }
    } else {
      insufficientProgress = false;
    }
    ({ loss: fNew, grad: gNew } = await objective(x, t, d));
    evals++;
    gtdNew = await dot(gNew, d);
    lsIter++;
    const sample: Sample = { t, f: fNew, g: gNew, gtd: gtdNew };
    if (fNew > f + c1 * t * gtd || fNew >= b[low]!.f) {
      b[high] = sample;
    } else {
      if (Math.abs(gtdNew) <= -c2 * gtd) {
        done = true;
      } else if (gtdNew * (b[high]!.t - b[low]!.t) >= 0) {
        b[high] = b[low]!;
      }
      b[low] = sample;
    }
    [low, high] = b[0].f <= b[1].f ? [0, 1] : [1, 0];
  }
  const best = b[low]!;
  return { loss: best.f, grad: best.g, t: best.t, evals };
}

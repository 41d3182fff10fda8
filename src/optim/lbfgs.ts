import { z } from 'zod';
import { Config } from '../config/config.js';
import { Device } from '../device/device.js';
import type { Module } from '../module/module.js';
import { TensorData } from '../core/data.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float, Kind } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';
import type { LearningRate, OptimizerRecord } from './base.js';
import type { GradientsParams } from './grads.js';
import { strongWolfe } from './line-search.js';
import { intAtLeast, nonNegative } from './schema.js';
import { asTensorData, flattenState, materializeState, readTensors, unflattenState, type StateData } from './state.js';

type Flat = Tensor<1, Float>;

/** The line search of {@link Lbfgs} (Burn's `LineSearchFn`): none (fixed step) or strong Wolfe. */
export type LineSearchFn = 'none' | 'strongWolfe';

/** The line-search modes. */
export const LineSearchFn = {
  /** A fixed step `lr` (after the first iteration). */
  None: 'none' as LineSearchFn,
  /** A step satisfying the strong Wolfe conditions (c1 1e-4, c2 0.9). */
  StrongWolfe: 'strongWolfe' as LineSearchFn,
} as const;

/** Configuration of {@link Lbfgs} (Burn's `LBFGSConfig`, PyTorch's defaults). */
export class LbfgsConfig extends Config.define({
  /** Iterations per `step`. */
  maxIter: intAtLeast(1).default(20),
  /** Number of `(s, y)` pairs kept. */
  historySize: intAtLeast(1).default(100),
  /** Stop when the largest gradient component is at most this. */
  toleranceGrad: nonNegative().default(1e-7),
  /** Stop when the step or the loss change is below this. */
  toleranceChange: nonNegative().default(1e-9),
  /** Function evaluations per `step` (default `floor(maxIter·5/4)`). */
  maxEval: intAtLeast(1).optional(),
  /** Line search. */
  lineSearchFn: z.enum(['none', 'strongWolfe']).default('none'),
}) {
  /** The nesting schema typed as this class (`optimizer: LbfgsConfig.schema` in another config). */
  static override readonly schema = LbfgsConfig.nested();

  /** The optimizer. */
  init<M extends Module = Module>(): Lbfgs<M> {
    return new Lbfgs<M>(this);
  }
}

/** What an L-BFGS closure returns: the loss at the module it was given and the gradients there. */
export interface LbfgsClosureResult {
  readonly loss: number | Tensor<1, Float>;
  readonly grads: GradientsParams;
}

/** Recomputes the loss and its gradients for `module` (called several times per step). */
export type LbfgsClosure<M extends Module> = (module: M) => LbfgsClosureResult | Promise<LbfgsClosureResult>;

/** The global state of {@link Lbfgs} (Burn's `LBFGSState`). */
export type LbfgsState = {
  readonly historyS: readonly Flat[];
  readonly historyY: readonly Flat[];
  /** The last search direction. */
  readonly d: Flat | undefined;
  /** The last step length. */
  readonly t: number | undefined;
  readonly prevFlatGrad: Flat | undefined;
  readonly prevLoss: number | undefined;
  /** Iterations over all steps. */
  readonly gIter: number;
};

const EMPTY: LbfgsState = {
  historyS: [],
  historyY: [],
  d: undefined,
  t: 1,
  prevFlatGrad: undefined,
  prevLoss: undefined,
  gIter: 0,
};

/** The trainable parameters in visit order, with their place in the flat vector. */
interface Layout {
  readonly entries: Map<string, { readonly id: string; readonly offset: number; readonly dims: number[] }>;
  readonly size: number;
  readonly device: Device;
}

/**
 * L-BFGS (Burn's `LBFGS`, ported from PyTorch's `torch.optim.LBFGS`): a quasi-Newton method over
 * all trainable parameters flattened into one vector, with a closure that re-evaluates the loss
 * and its gradients. One `step` runs up to `maxIter` iterations. Unlike the other optimizers it
 * keeps one global state, not one per parameter. Memory-hungry: `2·historySize` vectors of the
 * model's size.
 */
export class Lbfgs<M extends Module = Module> {
  private readonly maxIter: number;
  private readonly historySize: number;
  private readonly toleranceGrad: number;
  private readonly toleranceChange: number;
  private readonly maxEval: number;
  private readonly lineSearch: LineSearchFn;
  private state: LbfgsState = EMPTY;

  constructor(config: LbfgsConfig = new LbfgsConfig()) {
    this.maxIter = config.maxIter;
    this.historySize = config.historySize;
    this.toleranceGrad = config.toleranceGrad;
    this.toleranceChange = config.toleranceChange;
    this.maxEval = config.maxEval ?? Math.floor((config.maxIter * 5) / 4);
    this.lineSearch = config.lineSearchFn;
  }

  private layout(module: M): Layout {
    const entries = new Map<string, { id: string; offset: number; dims: number[] }>();
    let size = 0;
    let device: Device | undefined;
    module.visit((p, path) => {
      if (!p.requireGrad) return;
      const dims = p.dims();
      entries.set(path, { id: p.id, offset: size, dims });
      size += dims.reduce((a, b) => a * b, 1);
      device ??= p.device().inner();
    });
    if (device === undefined) throw new BurnError('Lbfgs.step', 'the module has no trainable parameter');
    return { entries, size, device };
  }

  private flatParams(module: M): Flat {
    const parts: Flat[] = [];
    module.visit((p) => {
      if (p.requireGrad) parts.push((p.val() as Tensor<number, Float>).inner().reshape([-1]));
    });
    return Tensor.cat(parts, 0);
  }

  private flatGrads(layout: Layout, grads: GradientsParams): Flat {
    const parts: Flat[] = [];
    for (const [path, e] of layout.entries) {
      const g = grads.get(e.id);
      if (g !== undefined && g.dims().join() !== e.dims.join()) {
        throw new BurnError(
          'Lbfgs.step',
          `the gradient of '${path}' has shape ${fmt(g.dims())}; the parameter has shape ${fmt(e.dims)}`,
        );
      }
      parts.push(
        g === undefined
          ? (Tensor.zeros([e.dims.reduce((a, b) => a * b, 1)], layout.device) as Flat)
          : g.toDevice(layout.device).reshape([-1]),
      );
    }
    return Tensor.cat(parts, 0);
  }

  private withParams(module: M, layout: Layout, flat: Flat): M {
    return module.map((p, path) => {
      const e = layout.entries.get(path);
      if (e === undefined) return p;
      const n = e.dims.reduce((a, b) => a * b, 1);
      const inner = flat.slice([[e.offset, e.offset + n]]).reshape(e.dims) as Tensor<number, Float>;
      const device = p.device();
      return p.withTensor((device.isAutodiff() ? Tensor.fromInner(inner, device) : inner) as Tensor<number, Kind>);
    });
  }

  private async evaluate(closure: LbfgsClosure<M>, module: M, layout: Layout): Promise<{ loss: number; grad: Flat }> {
    const out = await closure(module);
    if (out === null || typeof out !== 'object' || out.grads === undefined) {
      throw new BurnError('Lbfgs.step', 'the closure must return { loss, grads }');
    }
    const loss = typeof out.loss === 'number' ? out.loss : await out.loss.intoScalar();
    return { loss, grad: this.flatGrads(layout, out.grads) };
  }

  /**
   * Runs up to `maxIter` L-BFGS iterations from `module`; `closure(module)` must return the loss
   * at that module and its gradients (`GradientsParams.fromGrads(loss.backward(), module)`).
   * Resolves to the updated module and the last loss evaluated.
   */
  async step(lr: LearningRate, module: M, closure: LbfgsClosure<M>): Promise<{ module: M; loss: number }> {
    if (typeof lr !== 'number' || !Number.isFinite(lr) || lr < 0) {
      throw new BurnError('Lbfgs.step', `the learning rate must be a finite number >= 0, got ${String(lr)}`);
    }
    const layout = this.layout(module);
    let { loss, grad: flatGrad } = await this.evaluate(closure, module, layout);
    let evals = 1;
    let x = this.flatParams(module);
    const s = this.moveState(layout.device);
    let historyS = [...s.historyS];
    let historyY = [...s.historyY];
    let gIter = s.gIter;
    const maxAbs = async (v: Flat): Promise<number> => v.abs().max().intoScalar();
    if ((await maxAbs(flatGrad)) <= this.toleranceGrad) return { module, loss };

    let d = s.d ?? flatGrad.neg();
    let t = s.t ?? lr;
    let prevFlatGrad = s.prevFlatGrad;
    for (let nIter = 1; nIter <= this.maxIter; nIter++) {
      gIter++;
      if (gIter === 1) {
        d = flatGrad.neg();
        historyS = [];
        historyY = [];
      } else {
        if (prevFlatGrad !== undefined) {
          const y = flatGrad.sub(prevFlatGrad);
          const sVec = d.mul(t);
          const ys = await y.dot(sVec).intoScalar();
          if (ys > 1e-10) {
            if (historyS.length >= this.historySize) {
              historyS.shift();
              historyY.shift();
            }
            historyS.push(sVec);
            historyY.push(y);
          }
        }
        // Two-loop recursion: d = −H·g with the implicit inverse Hessian of the history.
        let q = flatGrad.neg();
        const n = historyS.length;
        if (n > 0) {
          const alphas: Flat[] = new Array<Flat>(n);
          const rhos: Flat[] = new Array<Flat>(n);
          for (let i = n - 1; i >= 0; i--) {
            rhos[i] = historyY[i]!.dot(historyS[i]!).recip();
            alphas[i] = rhos[i]!.mul(historyS[i]!.dot(q));
            q = q.sub(historyY[i]!.mul(alphas[i]!));
          }
          const lastS = historyS[n - 1]!;
          const lastY = historyY[n - 1]!;
          let r = q.mul(lastY.dot(lastS).div(lastY.dot(lastY)));
          for (let i = 0; i < n; i++) {
            const beta = rhos[i]!.mul(historyY[i]!.dot(r));
            r = r.add(historyS[i]!.mul(alphas[i]!.sub(beta)));
          }
          d = r;
        } else {
          d = q;
        }
      }
      prevFlatGrad = flatGrad;
      const prevLoss = loss;
      t = gIter === 1 ? Math.min(1, 1 / (await flatGrad.abs().sum().intoScalar())) * lr : lr;
      const gtd = await flatGrad.dot(d).intoScalar();
      if (gtd > -this.toleranceChange) break;

      let lsEvals: number;
      if (this.lineSearch === 'strongWolfe') {
        const result = await strongWolfe(
          async (x0, step, dir) =>
            this.evaluate(closure, this.withParams(module, layout, x0.add(dir.mul(step))), layout),
          x,
          t,
          d,
          loss,
          flatGrad,
          gtd,
          { c1: 1e-4, c2: 0.9, toleranceChange: this.toleranceChange, maxLs: this.maxEval - evals },
        );
        ({ loss, grad: flatGrad, t } = result);
        lsEvals = result.evals;
        x = x.add(d.mul(t));
        module = this.withParams(module, layout, x);
      } else {
        x = x.add(d.mul(t));
        module = this.withParams(module, layout, x);
        ({ loss, grad: flatGrad } = await this.evaluate(closure, module, layout));
        lsEvals = 1;
      }
      evals += lsEvals;
      if (evals >= this.maxEval) break;
      if ((await maxAbs(flatGrad)) <= this.toleranceGrad) break;
      if ((await maxAbs(d.mul(t))) <= this.toleranceChange) break;
      if (Math.abs(loss - prevLoss) < this.toleranceChange) break;
    }
    this.state = { historyS, historyY, d, t, prevFlatGrad, prevLoss: loss, gIter };
    return { module, loss };
  }

  /** The state with its tensors on `device` (after a record was loaded elsewhere). */
  private moveState(device: Device): LbfgsState {
    const s = this.state;
    const move = (v: Flat | undefined) => (v === undefined || v.device().equals(device) ? v : v.toDevice(device));
    return {
      ...s,
      historyS: s.historyS.map((v) => move(v)!),
      historyY: s.historyY.map((v) => move(v)!),
      d: move(s.d),
      prevFlatGrad: move(s.prevFlatGrad),
    };
  }

  /** The state as a record (entries named `historyS.0`, `t`, `gIter`, … without parameter ids). */
  async toRecord(): Promise<OptimizerRecord> {
    const tensors: [string, Tensor<number, Float>][] = [];
    const scalars: [string, number][] = [];
    flattenState(this.state, '', tensors, scalars);
    return { tensors: await readTensors(tensors), scalars: Object.fromEntries(scalars), paths: {} };
  }

  /** Replaces the state with `record` (tensors are moved to the parameters' device at the next step). */
  loadRecord(record: OptimizerRecord): this {
    const entries: [string, TensorData | number][] = [];
    for (const [name, v] of Object.entries(record.tensors ?? {})) {
      const data = asTensorData(v);
      if (data === undefined) throw new BurnError('Lbfgs.loadRecord', `record tensor '${name}' is not TensorData`);
      entries.push([name, data]);
    }
    for (const [name, v] of Object.entries(record.scalars ?? {})) {
      if (typeof v !== 'number')
        throw new BurnError('Lbfgs.loadRecord', `record scalar '${name}' is not a number (${String(v)})`);
      entries.push([name, v]);
    }
    const data = unflattenState(entries) as { readonly [field: string]: StateData };
    if (typeof data['gIter'] !== 'number')
      throw new BurnError(
        'Lbfgs.loadRecord',
        `the record has no 'gIter' scalar (entries: ${entries.map(([n]) => n).join(', ') || 'none'})`,
      );
    // The record is materialized on the default device; `step` moves it to the parameters' device.
    const s = materializeState<Partial<LbfgsState>>(data, Device.default());
    this.state = {
      historyS: s.historyS ?? [],
      historyY: s.historyY ?? [],
      d: s.d,
      t: s.t,
      prevFlatGrad: s.prevFlatGrad,
      prevLoss: s.prevLoss,
      gIter: s.gIter ?? 0,
    };
    return this;
  }
}

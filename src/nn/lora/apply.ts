import type { Module } from '../../module/module.js';
import type { ParamId } from '../../module/param.js';
import { isFloatDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { checkOptions } from '../../core/options.js';
import { Linear } from '../linear.js';
import { LoraAdapter } from './adapter.js';
import { LoraLinear } from './lora-linear.js';
import { findModules, replaceModules } from './rewrite.js';
import { selectTargets, type LoraTarget } from './targets.js';

/** Options of {@link applyLora} (Burn's `Lora`). */
export interface LoraOptions {
  /** Rank `r` of each update: a positive integer, at most `min(dInput, dOutput)` of every adapted layer. */
  readonly rank: number;
  /** Scaling numerator: updates are multiplied by `alpha / rank` (Burn's example uses `2 · rank`). */
  readonly alpha: number;
  /** Dropout probability on the adapters' input, in [0, 1) (default 0; active on autodiff devices only). */
  readonly dropout?: number;
  /** The Linear layers to adapt (default: every Linear layer); see {@link LoraTarget}. */
  readonly targets?: LoraTarget | readonly LoraTarget[];
}

const OP = 'applyLora';

function checkLoraOptions(options: LoraOptions): void {
  if (options === undefined) throw new BurnError(OP, 'options { rank, alpha, dropout?, targets? } are required');
  checkOptions(options, ['rank', 'alpha', 'dropout', 'targets'], OP);
  const { rank, alpha, dropout = 0 } = options;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 1)
    throw new BurnError(OP, `rank must be a positive integer, got ${String(rank)}`);
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0)
    throw new BurnError(OP, `alpha must be a positive finite number, got ${String(alpha)}`);
  if (typeof dropout !== 'number' || !(dropout >= 0 && dropout < 1))
    throw new BurnError(OP, `dropout must be a probability in [0, 1), got ${String(dropout)}`);
}

/**
 * LoRA fine-tuning (Burn's `module.apply_lora(Lora::new(rank, alpha))`): returns a copy of
 * `module` in which every targeted {@link Linear} is a {@link LoraLinear} computing
 * `y = x·W + b + (alpha / rank)·x·a·b` (`a` `[dInput, rank]` Kaiming-uniform, `b` `[rank, dOutput]`
 * zeros, so the result equals `module` at first), and every other parameter is frozen
 * (`requireGrad` false: no gradients, optimizers leave it as is). Only the adapters train; call
 * `.unfreeze(path)` on the result to train more (a new classification head, say).
 *
 * The result is an ordinary module: it moves between devices, goes to and from autodiff
 * (`valid()`, `train()`), and saves and loads (records hold `<layer>.lora.a` and `<layer>.lora.b`
 * beside the base weights). {@link mergeLora} folds the adapters back into plain Linear layers.
 *
 * Throws a BurnError for a bad rank (not a positive integer, or above `min(dInput, dOutput)` of a
 * targeted layer), alpha or dropout, a target selecting no Linear layer, or a targeted layer that
 * already has an adapter.
 */
export function applyLora<M extends Module>(module: M, options: LoraOptions): M {
  checkLoraOptions(options);
  const { rank, alpha, dropout = 0 } = options;
  const layers = findModules(module, '', (m): m is Linear => m instanceof Linear);
  const selected = new Map(selectTargets(layers, options.targets, OP));
  const adapterParams = new Set<ParamId>();
  const adapted = replaceModules(module, '', (layer, path) => {
    if (!(layer instanceof Linear) || !selected.has(path)) return undefined;
    const where = path === '' ? 'the module' : `'${path}'`;
    if (layer instanceof LoraLinear)
      throw new BurnError(OP, `${where} already has a LoRA adapter; merge it first (mergeLora)`);
    const [dInput, dOutput] =
      layer.layout === 'col'
        ? [layer.weight.dims()[1]!, layer.weight.dims()[0]!]
        : [layer.weight.dims()[0]!, layer.weight.dims()[1]!];
    if (rank > Math.min(dInput, dOutput)) {
      throw new BurnError(
        OP,
        `rank ${rank} exceeds min(dInput, dOutput) = ${Math.min(dInput, dOutput)} of ${where} (dInput ${dInput}, dOutput ${dOutput})`,
      );
    }
    const weight = layer.weight.val();
    const dtype = weight.dtype();
    if (!isFloatDType(dtype)) throw new BurnError(OP, `${where} has a ${dtype} weight; LoRA needs a float weight`);
    const adapter = new LoraAdapter({ dInput, dOutput, rank, alpha, dropout, device: weight.device(), dtype });
    adapterParams.add(adapter.a.id).add(adapter.b.id);
    return LoraLinear.wrap(layer, adapter);
  }) as M;
  return adapted.map((p) => (adapterParams.has(p.id) ? p : p.setRequireGrad(false)));
}

import type { Module } from '../../module/module.js';
import { LoraLinear } from './lora-linear.js';
import { replaceModules } from './rewrite.js';

/**
 * Folds every LoRA adapter of `module` into its layer (Burn's `materialize`): each
 * {@link LoraLinear} becomes a plain `Linear` whose weight is `W + (alpha / rank)·a·b`, so the
 * result computes the same function without the adapters' cost and saves as the base
 * architecture does (no `lora.*` entries). Parameters keep their ids and requireGrad flags
 * (frozen after `applyLora`; `.unfreeze()` to train on). A module without adapters is returned
 * as is.
 */
export function mergeLora<M extends Module>(module: M): M {
  return replaceModules(module, '', (layer) => (layer instanceof LoraLinear ? layer.merge() : undefined)) as M;
}

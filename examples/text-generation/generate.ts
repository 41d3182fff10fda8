// Text generation: the model's logits for the next token, turned into a choice by temperature and
// top-k sampling with a seeded generator, so a seed always gives the same text. burn-ts has no
// sampling helper (Burn's example decodes greedily), so the choice is made here over the logits
// read back from the device: one row of vocabulary size per step.
import type { Device } from 'burn-ts';
import { tokenTensor, type TextGenerationModel } from './model.ts';

/** Sampling settings. */
export interface SamplingOptions {
  /** Divides the logits: below 1 sharper, above 1 flatter; 0 picks the most likely token (greedy). */
  readonly temperature: number;
  /** Only the `topK` most likely tokens can be drawn (0: all). */
  readonly topK: number;
  /** Seed of the generator. */
  readonly seed: number;
  /** Token ids never drawn (the unknown token). */
  readonly exclude?: readonly number[];
}

/** A seeded generator of uniform numbers in [0, 1) (mulberry32: tiny, fast, and the same everywhere). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One token drawn from `logits` by temperature and top-k, with `random` in [0, 1). */
export function sampleToken(logits: Float32Array, options: SamplingOptions, random: () => number): number {
  const excluded = new Set(options.exclude ?? []);
  // Candidates by decreasing logit, ties by increasing id, so the order never depends on the sort.
  const order = Array.from(logits.keys()).filter((i) => !excluded.has(i));
  order.sort((a, b) => logits[b]! - logits[a]! || a - b);
  if (order.length === 0) throw new Error('sampleToken: every token is excluded');
  if (options.temperature === 0) return order[0]!;
  const candidates = options.topK > 0 ? order.slice(0, options.topK) : order;
  const top = logits[candidates[0]!]!;
  const weights = candidates.map((i) => Math.exp((logits[i]! - top) / options.temperature));
  let u = random() * weights.reduce((s, w) => s + w, 0);
  for (let i = 0; i < candidates.length; i++) {
    u -= weights[i]!;
    if (u < 0) return candidates[i]!;
  }
  return candidates.at(-1)!;
}

/**
 * `count` new tokens after `prompt`, one per step, through the transformer's autoregressive cache.
 * When the context outgrows the model's window, the older half is dropped and the cache restarts
 * (the learned positions shift, so cached keys and values no longer apply).
 */
export async function generateTokens(
  model: TextGenerationModel,
  prompt: readonly number[],
  count: number,
  options: SamplingOptions,
  device: Device,
): Promise<number[]> {
  if (prompt.length === 0) throw new Error('generate: the prompt has no tokens');
  if (!(options.temperature >= 0) || !Number.isInteger(options.topK) || options.topK < 0) {
    throw new Error(
      `generate: temperature ${options.temperature} and topK ${options.topK}; expected temperature ≥ 0 and an integer topK ≥ 0`,
    );
  }
  const random = seededRandom(options.seed);
  const ids = [...prompt];
  let start = Math.max(0, ids.length - model.maxSeqLength);
  let cache = model.transformer.newAutoregressiveCache();
  const generated: number[] = [];
  for (let step = 0; step < count; step++) {
    if (ids.length - start > model.maxSeqLength) {
      start = ids.length - Math.floor(model.maxSeqLength / 2);
      cache = model.transformer.newAutoregressiveCache();
    }
    const context = Int32Array.from(ids.slice(start));
    const logits = model.forwardCached(tokenTensor(context, 1, context.length, device), cache);
    const next = sampleToken((await logits.toData()).toArray() as Float32Array, options, random);
    ids.push(next);
    generated.push(next);
  }
  return generated;
}

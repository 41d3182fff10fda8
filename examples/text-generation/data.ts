// The corpus: license texts that every Debian system has (/usr/share/common-licenses, from the
// base-files package, which is Essential and always installed), tokenized once and split into a
// training part (the first 90% of the tokens) and a validation part (the rest, unseen text).
import { existsSync, readFileSync } from 'node:fs';
import type { Device, Int, Tensor } from 'burn-ts';
import { tokenTensor } from './model.ts';

/** The license texts read by default, in this order. */
export const DEFAULT_CORPUS = ['GPL-3', 'GPL-2', 'LGPL-2.1'].map((name) => `/usr/share/common-licenses/${name}`);

/** The texts of `paths`, joined by a blank line; a missing file is an error that says where it comes from. */
export function readCorpus(paths: readonly string[]): string {
  return paths
    .map((path) => {
      if (!existsSync(path)) {
        throw new Error(
          `text-generation: the corpus file ${path} does not exist. The default corpus is Debian's license texts in ` +
            '/usr/share/common-licenses (package base-files: apt-get install --reinstall base-files), or pass --corpus FILE[,FILE…]',
        );
      }
      return readFileSync(path, 'utf8');
    })
    .join('\n\n');
}

/** A batch: inputs and their next tokens, both `[batch, seq]`. */
export interface TextBatch {
  readonly inputs: Tensor<2, Int>;
  readonly targets: Tensor<2, Int>;
}

/** A batch of windows of `seq + 1` tokens starting at `starts`: inputs are the first `seq`, targets the last `seq`. */
export function windowBatch(
  tokens: readonly number[],
  starts: readonly number[],
  seq: number,
  device: Device,
): TextBatch {
  const inputs = new Int32Array(starts.length * seq);
  const targets = new Int32Array(starts.length * seq);
  starts.forEach((start, row) => {
    for (let i = 0; i < seq; i++) {
      inputs[row * seq + i] = tokens[start + i]!;
      targets[row * seq + i] = tokens[start + i + 1]!;
    }
  });
  return {
    inputs: tokenTensor(inputs, starts.length, seq, device),
    targets: tokenTensor(targets, starts.length, seq, device),
  };
}

/** Random window starts (training: every offset is a sample, drawn by the seeded `rng`). */
export function randomStarts(tokenCount: number, seq: number, batchSize: number, rng: () => number): number[] {
  const last = tokenCount - seq - 1;
  if (last < 0) throw new Error(`text-generation: ${tokenCount} training tokens; a window needs ${seq + 1}`);
  return Array.from({ length: batchSize }, () => Math.floor(rng() * (last + 1)));
}

/** Non-overlapping window starts covering the tokens (validation: each token is predicted once). */
export function tilingStarts(tokenCount: number, seq: number): number[] {
  const starts: number[] = [];
  for (let start = 0; start + seq + 1 <= tokenCount; start += seq) starts.push(start);
  if (starts.length === 0)
    throw new Error(`text-generation: ${tokenCount} validation tokens; a window needs ${seq + 1}`);
  return starts;
}

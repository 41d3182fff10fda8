// Burn's sequence dataset: each number is the sum of the previous two plus Gaussian noise; the
// model reads the first 11 values of a sequence and predicts the 12th.
import { Device, Tensor } from 'burn-ts';
import { InMemDataset, SeededRng, type Batcher } from 'burn-ts/data';

export const NUM_SEQUENCES = 1000;
export const SEQ_LENGTH = 10;
export const NOISE_LEVEL = 0.1;
export const RANDOM_SEED = 5;

/** A sequence (two random starts and `SEQ_LENGTH - 1` sums) and its next value. */
export interface SequenceItem {
  sequence: number[];
  target: number;
}

/** `count` sequences, seeded: the training and validation sets use different seeds. */
export function sequenceDataset(count: number, seed: number): InMemDataset<SequenceItem> {
  const rng = new SeededRng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
  return new InMemDataset(
    Array.from({ length: count }, () => {
      const seq = [rng.nextFloat(), rng.nextFloat()];
      for (let i = 0; i < SEQ_LENGTH; i++) seq.push(seq.at(-2)! + seq.at(-1)! + NOISE_LEVEL * normal());
      return { sequence: seq.slice(0, -1), target: seq.at(-1)! };
    }),
  );
}

/** Sequences `[batch, seq, 1]` and targets `[batch, 1]`. */
export interface SequenceBatch {
  sequences: Tensor<3>;
  targets: Tensor<2>;
}

export class SequenceBatcher implements Batcher<SequenceItem, SequenceBatch> {
  batch(items: SequenceItem[], device: Device): SequenceBatch {
    const length = items[0]!.sequence.length;
    const sequences = Tensor.fromFloats(Float32Array.from(items.flatMap((item) => item.sequence)), device).reshape([
      items.length,
      length,
      1,
    ]);
    const targets = Tensor.fromFloats(
      Float32Array.from(items, (item) => item.target),
      device,
    ).reshape([items.length, 1]);
    return { sequences, targets };
  }
}

import type { Device } from '../../device/device.js';
import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import type { Bool, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/**
 * An autoregressive (causal) attention mask `[batchSize, seqLength, seqLength]` (Burn's
 * `generate_autoregressive_mask`): `true` above the diagonal, so position `i` cannot attend to
 * positions after it.
 */
export function generateAutoregressiveMask(batchSize: number, seqLength: number, device?: Device): Tensor<3, Bool> {
  for (const [name, v] of [
    ['batchSize', batchSize],
    ['seqLength', seqLength],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0))
      throw new BurnError('generateAutoregressiveMask', `${name} ${v}; expected a positive integer`);
  }
  return Tensor.trilMask([seqLength, seqLength], 0, device).expand([batchSize, seqLength, seqLength]);
}

/**
 * How {@link generatePaddingMask} sizes the sequences (Burn's `SeqLengthOption`): the longest
 * sequence (`noMax`), the longest but at most `value` (`max`), or exactly `value` (`fixed`).
 */
export type SeqLengthOption =
  | { readonly kind: 'noMax' }
  | { readonly kind: 'max'; readonly value: number }
  | { readonly kind: 'fixed'; readonly value: number };

/** Constructors of {@link SeqLengthOption}. */
export const SeqLengthOption = {
  /** No maximum: the longest sequence. */
  NoMax: { kind: 'noMax' } as SeqLengthOption,
  /** The longest sequence, truncated to `value`. */
  Max: (value: number): SeqLengthOption => ({ kind: 'max', value }),
  /** Exactly `value`: padded or truncated. */
  Fixed: (value: number): SeqLengthOption => ({ kind: 'fixed', value }),
} as const;

/** The result of {@link generatePaddingMask} (Burn's `GeneratePaddingMask`). */
export interface GeneratePaddingMask {
  /** The padded tokens `[batch, seq]`. */
  readonly tensor: Tensor<2, Int>;
  /** `true` where the token is the pad token `[batch, seq]`. */
  readonly mask: Tensor<2, Bool>;
}

/**
 * Pads a batch of token sequences with `padToken` and returns them with their padding mask
 * (Burn's `generate_padding_mask`). `seqLength`: a number means at most that many tokens
 * (`SeqLengthOption.Max`), `undefined` the longest sequence; or a {@link SeqLengthOption}.
 */
export function generatePaddingMask(
  padToken: number,
  tokensList: readonly (readonly number[])[],
  seqLength: number | SeqLengthOption | undefined,
  device?: Device,
): GeneratePaddingMask {
  const op = 'generatePaddingMask';
  if (!Number.isInteger(padToken)) throw new BurnError(op, `padToken ${padToken}; expected an integer`);
  const option: SeqLengthOption =
    seqLength === undefined
      ? SeqLengthOption.NoMax
      : typeof seqLength === 'number'
        ? SeqLengthOption.Max(seqLength)
        : seqLength;
  if (option.kind !== 'noMax' && !(Number.isInteger(option.value) && option.value > 0)) {
    throw new BurnError(op, `sequence length ${option.value}; expected a positive integer`);
  }
  const longest = () => (tokensList.length === 0 ? 1 : Math.max(...tokensList.map((t) => t.length)));
  const size =
    option.kind === 'noMax' ? longest() : option.kind === 'max' ? Math.min(longest(), option.value) : option.value;
  const batch = tokensList.length;
  const values = new Int32Array(batch * size).fill(padToken);
  tokensList.forEach((tokens, b) => {
    for (let i = 0; i < Math.min(tokens.length, size); i++) {
      const t = tokens[i]!;
      if (!Number.isInteger(t)) throw new BurnError(op, `token ${t} at [${b}][${i}]; expected integers`);
      values[b * size + i] = t;
    }
  });
  const tensor = Tensor.fromData<2, Int>(new TensorData(values, [batch, size], 'i32'), device);
  return { tensor, mask: tensor.equal(padToken) };
}

import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { sameShape } from '../../core/shape.js';
import { Tensor } from '../../tensor/tensor.js';

// The sequence plumbing shared by the recurrent layers (Rnn, Lstm, Gru and their bidirectional forms).

/** @internal Checks a recurrent input `[batch, seq, dInput]` (or `[seq, batch, dInput]`); returns it batch-first. */
export function batchFirstInput(
  layer: string,
  input: Tensor<3, Float>,
  dInput: number,
  batchFirst: boolean,
): Tensor<3, Float> {
  const dims = input.dims();
  if (dims.length !== 3 || dims[2] !== dInput) {
    const layout = batchFirst ? '[batch, seq, ' : '[seq, batch, ';
    throw new BurnError(layer, `input of shape ${fmt(dims)}; expected ${layout}${dInput}] (dInput ${dInput})`);
  }
  if (dims[batchFirst ? 1 : 0] === 0 || dims[batchFirst ? 0 : 1] === 0) {
    throw new BurnError(
      layer,
      `input of shape ${fmt(dims)} has no time steps or no batch; expected at least one of each`,
    );
  }
  return batchFirst ? input : input.swapDims(0, 1);
}

/** @internal Checks an initial state's shape. */
export function checkState(
  layer: string,
  what: string,
  state: Tensor<number, Float>,
  expected: readonly number[],
): void {
  if (!sameShape(state.dims(), expected)) {
    throw new BurnError(layer, `initial ${what} of shape ${fmt(state.dims())}; expected ${fmt(expected)}`);
  }
}

/**
 * @internal Runs `step(t, projectedInputs)` over the time steps of batch-first `[batch, seq, ·]`
 * inputs (forward or reversed) and stacks the returned hidden states at their time index:
 * `[batch, seq, dHidden]`. Each input is sliced to `[batch, ·]` at time `t`.
 */
export function scanTime(seq: number, reverse: boolean, step: (t: number) => Tensor<2, Float>): Tensor<3, Float> {
  const outputs = new Array<Tensor<2, Float>>(seq);
  for (let i = 0; i < seq; i++) {
    const t = reverse ? seq - 1 - i : i;
    outputs[t] = step(t);
  }
  return Tensor.stack(outputs, 1) as Tensor<3, Float>;
}

/** @internal `x[:, t, :]` of a `[batch, seq, d]` tensor as `[batch, d]`. */
export function atTime(x: Tensor<3, Float>, t: number): Tensor<2, Float> {
  return x.slice([null, t]).squeezeDim(1);
}

/** @internal A batch-first `[batch, seq, ·]` output in the layer's layout (`[seq, batch, ·]` when not batch-first). */
export function fromBatchFirst(output: Tensor<3, Float>, batchFirst: boolean): Tensor<3, Float> {
  return batchFirst ? output : output.swapDims(0, 1);
}

/** @internal The initial hidden state `[batch, dHidden]` of a run over batch-first `input`: `state` (checked) or zeros. */
export function initialHidden(
  layer: string,
  state: Tensor<2, Float> | undefined,
  input: Tensor<3, Float>,
  dHidden: number,
): Tensor<2, Float> {
  const batch = input.dims()[0]!;
  if (state) {
    checkState(layer, 'hidden state', state, [batch, dHidden]);
    return state;
  }
  return Tensor.zeros([batch, dHidden], input.device()) as Tensor<2, Float>;
}

/** @internal Direction `k` (0 forward, 1 backward) of a bidirectional state `[2, batch, dHidden]`, as `[batch, dHidden]`. */
export function direction(state: Tensor<3, Float>, k: 0 | 1): Tensor<2, Float> {
  return state.slice([k]).squeezeDim(0);
}

/** @internal The recurrence of a unidirectional layer over batch-first input, forward or reversed; returns the outputs and the final state. */
export interface Recurrence<S> {
  /** Runs the sequence from the initial `state` (zeros when absent). */
  run(input: Tensor<3, Float>, state: S | undefined, reverse: boolean): [Tensor<3, Float>, S];
}

/**
 * @internal Runs the two directions of a bidirectional layer over batch-first `input`, `forward`
 * from `state(0)` and `reverse` backwards from `state(1)`: returns their outputs concatenated on
 * the feature dim (`[..., 2·dHidden]`, in the layer's layout) and each direction's final state.
 */
export function runBidirectional<S>(
  forward: Recurrence<S>,
  reverse: Recurrence<S>,
  input: Tensor<3, Float>,
  state: (k: 0 | 1) => S | undefined,
  batchFirst: boolean,
): [Tensor<3, Float>, S, S] {
  const [outF, lastF] = forward.run(input, state(0), false);
  const [outR, lastR] = reverse.run(input, state(1), true);
  return [fromBatchFirst(Tensor.cat([outF, outR], 2), batchFirst), lastF, lastR];
}

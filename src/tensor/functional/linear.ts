import { BurnError, enterUserOp, fmt, leaveUserOp, renameError } from '../../core/errors.js';
import { checkNumel } from '../../core/shape.js';
import type { Float, Int } from '../kind.js';
import type { Tensor } from '../tensor.js';
import { expectFloatOn, expectRank, expectVector } from './check.js';

/**
 * Linear transformation `y = x · weight + bias` (Burn's `linear`). Unlike PyTorch, the weight is
 * `[dIn, dOut]` and is not transposed.
 *
 * @param x input `[..., dIn]` (rank >= 1)
 * @param weight `[dIn, dOut]`
 * @param bias optional `[dOut]`
 * @returns `[..., dOut]`
 */
export function linear<D extends number>(
  x: Tensor<D, Float>,
  weight: Tensor<2, Float>,
  bias?: Tensor<1, Float>,
): Tensor<D, Float> {
  const op = 'linear';
  x.expectFloat(op);
  expectFloatOn(x, weight, 'weight', op);
  expectRank(weight, 2, 'weight', op, '[dIn, dOut]');
  const shape = x.primitive.shape;
  const [dIn, dOut] = weight.primitive.shape as [number, number];
  if (shape.length < 1 || shape[shape.length - 1] !== dIn) {
    throw new BurnError(
      op,
      `input of shape ${fmt(shape)} and weight of shape [${dIn}, ${dOut}]; expected the input's last dim to be ${dIn}`,
    );
  }
  expectVector(x, bias, dOut, 'bias', op);
  const b = x.backend;
  const rows = shape.slice(0, -1).reduce((a, s) => a * s, 1);
  let y = b.matmul(b.reshape(x.primitive, [rows, dIn]), x.castLike(weight.primitive));
  if (bias !== undefined) y = b.binary('add', y, b.reshape(x.castLike(bias.primitive), [1, dOut]));
  return x.wrap<D, Float>(b.reshape(y, [...shape.slice(0, -1), dOut]));
}

/**
 * Looks up rows of an embedding table (Burn's `embedding`).
 *
 * @param weights the table `[numEmbeddings, dim]`
 * @param indices `[batch, seqLength]` Int indices into the table
 * @returns `[batch, seqLength, dim]`
 */
export function embedding(weights: Tensor<2, Float>, indices: Tensor<2, Int>): Tensor<3, Float> {
  const op = 'embedding';
  weights.expectFloat(op);
  expectRank(weights, 2, 'weights', op, '[numEmbeddings, dim]');
  weights.checkIndices(indices, op, 2);
  const [count, dim] = weights.primitive.shape as [number, number];
  const [batch, seq] = indices.primitive.shape as [number, number];
  checkNumel([batch, seq, dim], op);
  const b = weights.backend;
  const outer = enterUserOp(op);
  try {
    const picked = b.select(weights.primitive, 0, b.reshape(indices.primitive, [batch * seq]));
    return weights.wrap<3, Float>(b.reshape(picked, [batch, seq, dim]));
  } catch (e) {
    throw renameError(e, op, `indices into ${count} embeddings`);
  } finally {
    leaveUserOp(outer);
  }
}

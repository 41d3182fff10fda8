// Bad shapes and options of the functional ops throw a BurnError naming the op, the offending
// values and what was expected.
import { describe, it } from 'node:test';
import { functional, Tensor, type Bool, type Int } from '../../src/index.js';
import { throwsBurn } from './helpers.js';

const z = <const S extends readonly number[]>(shape: S) => Tensor.zeros(shape);

describe('functional errors', () => {
  it('linear and embedding', () => {
    throwsBurn(
      () => functional.linear(z([2, 3]), z([4, 5])),
      'linear',
      'input of shape [2, 3]',
      "expected the input's last dim to be 4",
    );
    throwsBurn(() => functional.linear(z([2, 4]), z([4, 5]), z([4])), 'linear', 'bias of shape [4]', 'expected [5]');
    throwsBurn(
      () => functional.linear(z([2, 4]), z([4, 5, 1]) as never),
      'linear',
      'weight of shape [4, 5, 1] has rank 3',
      'expected rank 2 [dIn, dOut]',
    );
    throwsBurn(
      () => functional.linear(Tensor.zeros([2, 4], { dtype: 'i32' }) as never, z([4, 5])),
      'linear',
      'needs a Float tensor, got i32',
    );
    throwsBurn(
      () => functional.embedding(z([5, 3]), z([2, 2]) as never),
      'embedding',
      'indices must be an Int tensor, got f32',
    );
    const idx = Tensor.fromInts([[0, 7]]) as Tensor<2, Int>;
    throwsBurn(
      () => functional.embedding(z([5, 3]), idx).toDataSync(),
      'embedding',
      'index 7 is out of bounds for dim 0 of size 5',
    );
  });

  it('convolutions', () => {
    throwsBurn(
      () => functional.conv2d(z([1, 3, 5]) as never, z([2, 3, 3, 3])),
      'conv2d',
      'input of shape [1, 3, 5] has rank 3',
      'expected rank 4 [N, C_in, H, W]',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 4, 5, 5]), z([2, 3, 3, 3])),
      'conv2d',
      'weight [2, 3, 3, 3] with groups 1',
      'weight.shape[1] == C_in / groups',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 4, 5, 5]), z([3, 2, 3, 3]), undefined, { groups: 2 }),
      'conv2d',
      'C_out (3) divisible by groups',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 3, 5, 5]), z([2, 3, 3, 3]), undefined, { stride: 0 }),
      'conv2d',
      'stride 0',
      'positive integers',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 3, 5, 5]), z([2, 3, 3, 3]), undefined, { padding: [1, -1] }),
      'conv2d',
      'padding [1, -1]',
      'non-negative integers',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 3, 5, 5]), z([2, 3, 3, 3]), undefined, { dilation: [1, 1, 1] }),
      'conv2d',
      'dilation [1, 1, 1] has 3 entries',
      'expected 2',
    );
    throwsBurn(
      () => functional.conv1d(z([1, 3, 2]), z([2, 3, 3])),
      'conv1d',
      'spatial dim 0 of size 2',
      'smaller than the dilated kernel 3',
    );
    throwsBurn(
      () => functional.conv3d(z([1, 2, 3, 3, 3]), z([4, 2, 1, 1, 1]), z([3])),
      'conv3d',
      'bias of shape [3]',
      'expected [4]',
    );
    throwsBurn(
      () => functional.conv2d(z([1, 3, 5, 5]), z([2, 3, 3, 3]), undefined, { groups: 0 }),
      'conv2d',
      'groups 0',
      'positive integer',
    );
  });

  it('transposed convolutions', () => {
    throwsBurn(
      () => functional.convTranspose2d(z([1, 3, 4, 4]), z([2, 3, 3, 3])),
      'convTranspose2d',
      'expected weight.shape[0] == C_in (3)',
    );
    throwsBurn(
      () => functional.convTranspose1d(z([1, 2, 4]), z([2, 2, 3]), undefined, { stride: 2, paddingOut: -1 }),
      'convTranspose1d',
      'paddingOut',
    );
    throwsBurn(
      () => functional.convTranspose1d(z([1, 2, 1]), z([2, 2, 1]), undefined, { padding: 1 }),
      'convTranspose1d',
      'output size -1',
      'positive size',
    );
    throwsBurn(
      () => functional.convTranspose1d(z([1, 3, 4]), z([3, 2, 3]), undefined, { groups: 2 }),
      'convTranspose1d',
      'C_in divisible by groups',
    );
    throwsBurn(
      () => functional.convTranspose3d(z([1, 2, 2, 2, 2]), z([2, 2, 2, 2]) as never),
      'convTranspose3d',
      'weight of shape [2, 2, 2, 2] has rank 4',
      '[C_in, C_out / groups, kd, kh, kw]',
    );
  });

  it('deformable convolution', () => {
    const x = z([1, 4, 5, 5]),
      w = z([2, 4, 3, 3]);
    throwsBurn(
      () => functional.deformConv2d(x, z([1, 9, 3, 3]), w, undefined, undefined),
      'deformConv2d',
      'offset of shape [1, 9, 3, 3]',
      'expected [1, 18, 3, 3]',
    );
    throwsBurn(
      () => functional.deformConv2d(x, z([1, 18, 3, 3]), w, z([1, 9, 2, 3]), undefined),
      'deformConv2d',
      'mask of shape [1, 9, 2, 3]',
      'expected [1, 9, 3, 3]',
    );
    throwsBurn(
      () => functional.deformConv2d(x, z([1, 18, 3, 3]), w, undefined, undefined, { offsetGroups: 3 }),
      'deformConv2d',
      'C_in 4 is not divisible by offsetGroups 3',
    );
    throwsBurn(
      () => functional.deformConv2d(x, z([1, 18, 3, 3]), w, undefined, undefined, { weightGroups: 2 }),
      'deformConv2d',
      'weightGroups 2',
    );
  });

  it('unfold and fold', () => {
    throwsBurn(
      () => functional.unfold4d(z([1, 1, 2, 2]), 3),
      'unfold4d',
      'spatial dim 0 of size 2',
      'dilated kernel 3',
    );
    throwsBurn(() => functional.fold4d(z([1, 8, 5]), [3, 3], 2), 'fold4d', 'has 5 blocks', 'expected 2 × 2 = 4');
    throwsBurn(() => functional.fold4d(z([1, 7, 4]), [3, 3], 2), 'fold4d', 'dim 1 divisible by kh · kw = 4');
  });

  it('pooling', () => {
    throwsBurn(
      () => functional.maxPool2d(z([1, 1, 5, 5]), 3, { padding: 2 }),
      'maxPool2d',
      'padding 2',
      'at most half the kernel size (1)',
    );
    throwsBurn(
      () => functional.maxPool1d(z([1, 1, 2]), 3),
      'maxPool1d',
      'spatial dim 0 of size 2',
      'smaller than the window 3',
    );
    throwsBurn(() => functional.maxPool1d(z([1, 2]) as never, 2), 'maxPool1d', 'expected rank 3 [N, C, L]');
    throwsBurn(
      () => functional.maxPool2dWithIndices(z([1, 1, 4, 4]), [2, 2, 2]),
      'maxPool2dWithIndices',
      'kernelSize [2, 2, 2] has 3 entries',
    );
    throwsBurn(() => functional.avgPool2d(z([1, 1, 4, 4]), 2, { stride: [1, 0] }), 'avgPool2d', 'stride [1, 0]');
    throwsBurn(() => functional.avgPool1d(z([1, 1, 4]), 2, { padding: 2 }), 'avgPool1d', 'padding 2', 'at most half');
    throwsBurn(
      () => functional.adaptiveAvgPool2d(z([1, 1, 4, 4]), [2, 0]),
      'adaptiveAvgPool2d',
      'outputSize [2, 0]',
      'positive integers',
    );
    throwsBurn(
      () => functional.adaptiveAvgPool3d(z([1, 1, 4, 4]) as never, 2),
      'adaptiveAvgPool3d',
      'expected rank 5 [N, C, D, H, W]',
    );
  });

  it('interpolate and grid sampling', () => {
    throwsBurn(
      () => functional.interpolate(z([1, 1, 4, 4]), [2, 2], { mode: 'linear' as never }),
      'interpolate',
      "mode 'linear'",
      "'bilinear'",
    );
    throwsBurn(() => functional.interpolate(z([1, 1, 4, 4]), [0, 2]), 'interpolate', 'outputSize [0, 2]');
    throwsBurn(() => functional.interpolate(z([1, 4, 4]) as never, 2), 'interpolate', 'expected rank 4 [N, C, H, W]');
    throwsBurn(
      () => z([1, 1, 4, 4]).gridSample2d(z([1, 2, 2, 2]), { mode: 'bicubic' }),
      'gridSample2d',
      "mode 'bicubic' is not supported",
      "'bilinear' or 'nearest'",
    );
  });

  it('attention', () => {
    const q = z([1, 2, 3, 4]),
      k = z([1, 2, 5, 4]),
      v = z([1, 2, 5, 3]);
    throwsBurn(
      () => functional.attention(q, z([1, 2, 5, 3]), v),
      'attention',
      'key [1, 2, 5, 3]',
      'expected [B, H, L, E], [B, H, S, E]',
    );
    throwsBurn(() => functional.attention(q, k, z([1, 2, 4, 3])), 'attention', 'value [1, 2, 4, 3]');
    const badMask: Tensor<4, Bool> = Tensor.full([1, 2, 3, 4], true, { dtype: 'bool' });
    throwsBurn(
      () => functional.attention(q, k, v, { mask: badMask }),
      'attention',
      'mask of shape [1, 2, 3, 4]',
      'broadcastable to the scores [1, 2, 3, 5]',
    );
    throwsBurn(
      () => functional.attention(q, k, v, { mask: z([1, 2, 3, 5]) as never }),
      'attention',
      'mask must be a Bool tensor, got f32',
    );
    throwsBurn(
      () => functional.attention(q, k, v, { bias: z([2, 2, 3, 5]) }),
      'attention',
      'bias of shape [2, 2, 3, 5]',
    );
    throwsBurn(() => functional.attention(q, k, v, { softcap: 0 }), 'attention', 'softcap 0', 'positive');
    throwsBurn(() => functional.attention(q, k, v, { scale: NaN }), 'attention', 'scale NaN', 'finite');
  });

  it('normalization', () => {
    throwsBurn(() => functional.batchNorm(z([4]), z([4]), z([4])), 'batchNorm', 'input of shape [4]', 'rank >= 2');
    throwsBurn(
      () => functional.batchNorm(z([2, 3, 4]), z([4]), z([3])),
      'batchNorm',
      'runningMean of shape [4]',
      'expected [3]',
    );
    throwsBurn(
      () => functional.batchNorm(z([2, 3]), z([3]), z([3]), { weight: z([2]) }),
      'batchNorm',
      'weight of shape [2]',
    );
    throwsBurn(
      () => functional.batchNormWithStats(z([2, 3]), z([3]), z([3]), { momentum: 2 }),
      'batchNormWithStats',
      'momentum 2',
      '[0, 1]',
    );
    throwsBurn(
      () => functional.layerNorm(z([2, 3, 4]), [3]),
      'layerNorm',
      'normalizedShape [3] for an input of shape [2, 3, 4]',
      'trailing dims',
    );
    throwsBurn(
      () => functional.layerNorm(z([2, 3, 4]), [4], { bias: z([3]) }),
      'layerNorm',
      'bias of shape [3]',
      'expected [4]',
    );
    throwsBurn(() => functional.layerNorm(z([2, 4]), [4], { epsilon: -1 }), 'layerNorm', 'epsilon -1');
  });
});

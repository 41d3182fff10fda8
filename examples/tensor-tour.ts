// A tour of the burn-ts tensor API: run with `npm run example` (after `npm install`).
import { Device, Distribution, Tensor, activation, functional, linalg } from 'burn-ts';

const device = Device.default();
device.seed(42);

// Creation: the rank is in the type (Tensor<2>), inferred from the literal.
const x = Tensor.fromFloats(
  [
    [1, 2, 3],
    [4, 5, 6],
  ],
  device,
);
const w = Tensor.random([3, 4], Distribution.Normal(0, 0.5), device);
const labels = Tensor.fromInts([2, 0], device);

// Ops never mutate; broadcasting works as in NumPy/PyTorch.
const logits = x.matmul(w).add(Tensor.fromFloats([[0.1, 0.2, 0.3, 0.4]], device));
const probs = logits.softmax(1);
console.log(`probabilities:\n${probs}`);

// Reductions keep Burn's conventions: sum() is a 1-element tensor, *Dim forms keep the dim.
console.log(
  'row sums',
  await probs
    .sumDim(1)
    .toData()
    .then((d) => Array.from(d.toArray())),
);
console.log(
  'argmax',
  Array.from((await probs.argmax(1).toData()).toArray()),
  'labels',
  Array.from((await labels.toData()).toArray()),
);

// Slicing with ranges, steps and negative indices; indexing with Int tensors.
console.log(`last column, reversed rows:\n${x.slice([[0, 2, -1], -1])}`);
console.log(`gather:\n${x.gather(1, Tensor.fromInts([[2], [0]], device))}`);

// Namespaces: activation, functional (module ops), linalg.
console.log(`gelu:\n${activation.gelu(x)}`);
const image = Tensor.random([1, 1, 6, 6], Distribution.Default, device);
const kernel = Tensor.ones([2, 1, 3, 3], device).div(9);
console.log('conv2d ->', functional.conv2d(image, kernel, undefined, { padding: 1 }).dims());
console.log(
  'det',
  await linalg
    .det(
      Tensor.fromFloats(
        [
          [2, 1],
          [1, 3],
        ],
        device,
      ),
    )
    .intoScalar(),
);

// Every dtype: f32 (default), f64, f16, bf16, i64…u8, bool.
console.log(`half precision:\n${x.cast('f16').mul(1.001)}`);

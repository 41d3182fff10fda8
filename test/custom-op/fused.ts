// The fused matmul + add + ReLU of examples/custom-op, defined against src/ (the example imports
// the built package): `relu(a·b + c)`, `c` a bias over the last dim, with a CPU function, a WGSL
// kernel and its backward.
import { BurnError, defineCustomOp, Tensor, type CustomOpInputInfo } from '../../src/index.js';

/** `[..., m, k] · [..., k, n] + [n]`: equal batch dims, the bias broadcast over the rows. */
export function fusedShape(
  a: readonly number[],
  b: readonly number[],
  c: readonly number[],
  op = 'fusedMatmulAddRelu',
): number[] {
  const r = a.length;
  const ok =
    r >= 2 &&
    b.length === r &&
    a[r - 1] === b[r - 2] &&
    a.slice(0, -2).every((s, i) => s === b[i]) &&
    c.length === 1 &&
    c[0] === b[r - 1];
  if (!ok)
    throw new BurnError(
      op,
      `shapes [${a.join(', ')}], [${b.join(', ')}], [${c.join(', ')}]; expected [..., m, k], [..., k, n] (equal batch dims) and [n]`,
    );
  return [...a.slice(0, -1), b[r - 1]!];
}

export const WGSL = `
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let m = param(0u);
  let k = param(1u);
  let n = param(2u);
  let row = gid.y;
  let col = gid.x;
  if (row >= m || col >= n) { return; }
  let z = gid.z;
  var sum = 0.0;
  for (var p = 0u; p < k; p = p + 1u) {
    sum = sum + lhs[(z * m + row) * k + p] * rhs[(z * k + p) * n + col];
  }
  let i = (z * m + row) * n + col;
  output[i] = max(sum + bias[col], 0.0);
}`;

/** The sizes of a call: batch, m, k, n. */
function sizes(a: readonly number[], b: readonly number[]): [number, number, number, number] {
  const r = a.length;
  const batch = a.slice(0, -2).reduce((x, y) => x * y, 1);
  return [batch, a[r - 2]!, a[r - 1]!, b[r - 1]!];
}

/** The op's output function: the shape of `relu(a·b + c)`, or a BurnError. */
export const fusedOutput = ([a, b, c]: readonly CustomOpInputInfo[]): { shape: number[] } => ({
  shape: fusedShape(a!.shape, b!.shape, c!.shape),
});

export const fused = defineCustomOp({
  name: 'fusedMatmulAddRelu',
  inputs: ['lhs', 'rhs', 'bias'],
  output: fusedOutput,
  cpu: ([a, b, c], out) => {
    const [batch, m, k, n] = sizes(a!.shape, b!.shape);
    const A = a!.data,
      B = b!.data,
      C = c!.data,
      O = out.data;
    for (let z = 0; z < batch; z++) {
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += A[(z * m + i) * k + p]! * B[(z * k + p) * n + j]!;
          const at = (z * m + i) * n + j;
          O[at] = Math.max(sum + C[j]!, 0);
        }
      }
    }
  },
  webgpu: {
    wgsl: WGSL,
    params: ({ inputs }) => sizes(inputs[0]!.shape, inputs[1]!.shape).slice(1),
    workgroups: ({ inputs }) => {
      const [batch, m, , n] = sizes(inputs[0]!.shape, inputs[1]!.shape);
      return [Math.ceil(n / 16), Math.ceil(m / 16), batch];
    },
  },
  backward: (grad, { inputs: [a, b, c], output, needs }) => {
    // The ReLU passes the gradient where the output is positive; then matmul's rule, and the
    // bias's: the sum over every row.
    const g = grad.maskFill(output.lowerEqual(0), 0);
    const n = c.dims()[0]!;
    return [
      needs[0] ? g.matmul(b.transpose()) : undefined,
      needs[1] ? a.transpose().matmul(g) : undefined,
      needs[2] ? g.reshape([-1, n]).sum(0).reshape([n]) : undefined,
    ];
  },
});

/** The same op as ordinary tensor ops. */
export function composite(a: Tensor, b: Tensor, c: Tensor): Tensor {
  return a.matmul(b).add(c).relu();
}

// The custom op of Burn's custom-wgpu-kernel example: `relu(lhs · rhs + bias)` in one pass, with a
// forward per backend (a CPU function, a WGSL kernel) and its backward rule written with tensor ops.
import { BurnError, defineCustomOp, type CustomOpInputInfo, type Tensor } from 'burn-ts';

/** The batch size and matrix sizes `[batch, m, k, n]` of `[..., m, k] · [..., k, n]`. */
function sizes(lhs: readonly number[], rhs: readonly number[]): [number, number, number, number] {
  const r = lhs.length;
  return [lhs.slice(0, -2).reduce((x, y) => x * y, 1), lhs[r - 2]!, lhs[r - 1]!, rhs[r - 1]!];
}

/**
 * The output shape: `lhs` `[..., m, k]`, `rhs` `[..., k, n]` with the same batch dims, `bias` `[n]`
 * (added to every row). Anything else is refused here, before any kernel runs.
 */
function output([lhs, rhs, bias]: readonly CustomOpInputInfo[]): { shape: number[] } {
  const a = lhs!.shape,
    b = rhs!.shape,
    c = bias!.shape,
    r = a.length;
  const ok =
    r >= 2 &&
    b.length === r &&
    a[r - 1] === b[r - 2] &&
    a.slice(0, -2).every((s, i) => s === b[i]) &&
    c.length === 1 &&
    c[0] === b[r - 1];
  if (!ok)
    throw new BurnError(
      'fusedMatmulAddRelu',
      `shapes [${a.join(', ')}], [${b.join(', ')}], [${c.join(', ')}]; expected [..., m, k], [..., k, n] (equal batch dims) and [n]`,
    );
  return { shape: [...a.slice(0, -1), b[r - 1]!] };
}

/**
 * The WGSL kernel: one thread per output element, 16×16 per workgroup, the batch on z. The backend
 * declares the bindings in front of it — `lhs`, `rhs`, `bias` (read), `output` (read_write), all
 * contiguous — and `param(i)`, which reads the words `params` returns.
 */
const WGSL = /* wgsl */ `
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
  output[(z * m + row) * n + col] = max(sum + bias[col], 0.0);
}`;

/** `relu(lhs · rhs + bias)` as one op. */
export const fusedMatmulAddRelu = defineCustomOp({
  name: 'fusedMatmulAddRelu',
  inputs: ['lhs', 'rhs', 'bias'],
  output,
  // Every CPU engine (js, wasm, native) runs this function on dense row-major arrays.
  cpu: ([lhs, rhs, bias], out) => {
    const [batch, m, k, n] = sizes(lhs!.shape, rhs!.shape);
    const A = lhs!.data,
      B = rhs!.data,
      C = bias!.data,
      O = out.data;
    for (let z = 0; z < batch; z++) {
      for (let i = 0; i < m; i++) {
        const row = (z * m + i) * k;
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += A[row + p]! * B[(z * k + p) * n + j]!;
          O[(z * m + i) * n + j] = Math.max(sum + C[j]!, 0);
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
  // Burn's backward: ReLU's gradient from the output, then matmul's, then the bias's (the sum
  // over every row). It runs on the device without autodiff, with ordinary tensor ops.
  backward: (grad, { inputs: [lhs, rhs, bias], output, needs }) => {
    const g = grad.maskFill(output.lowerEqual(0), 0);
    const n = bias.dims()[0]!;
    return [
      needs[0] ? g.matmul(rhs.transpose()) : undefined,
      needs[1] ? lhs.transpose().matmul(g) : undefined,
      needs[2] ? g.reshape([-1, n]).sum(0).reshape([n]) : undefined,
    ];
  },
});

/** The same computation as three ordinary ops: what the custom op is checked against. */
export function composite(lhs: Tensor, rhs: Tensor, bias: Tensor): Tensor {
  return lhs.matmul(rhs).add(bias).relu();
}

import type { CustomKernelInfo, WebGpuCustomForward } from '../../../backend/custom.js';
import type { DType } from '../../../core/dtype.js';
import { BurnError, fmt } from '../../../core/errors.js';
import type { GPUBuffer } from '../gpu-types.js';
import type { GpuRuntime } from '../runtime.js';
import { ctype } from '../wgsl/types.js';

/**
 * A user-defined op's WGSL forward (`defineCustomOp`): the user writes the shader body, this file
 * declares its bindings (inputs, `output`, the `param(i)` words) in front of it, so the binding
 * layout stays the backend's business and the kernel names its inputs as the op does.
 */

/** One input of the kernel: a contiguous buffer starting at element 0. */
export interface CustomInput {
  readonly buffer: GPUBuffer;
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** Encodes one dispatch of the user's kernel writing `output` (a fresh buffer of `outDtype`'s compute type). */
export function runCustom(
  rt: GpuRuntime,
  name: string,
  inputNames: readonly string[],
  forward: WebGpuCustomForward,
  inputs: readonly CustomInput[],
  output: GPUBuffer,
  info: CustomKernelInfo,
  outDtype: DType,
): void {
  const op = `customOp(${name})`;
  const words = (forward.params?.(info) ?? []).map((w, i) => {
    if (!Number.isInteger(w) || w < -(2 ** 31) || w >= 2 ** 32)
      throw new BurnError(op, `param ${i} is ${w}; expected an integer in [-2^31, 2^32) (a u32 word)`);
    return w >>> 0;
  });
  const groups = forward.workgroups(info);
  if (
    groups.length < 1 ||
    groups.length > 3 ||
    groups.some((g) => g !== undefined && !(Number.isInteger(g) && g >= 0 && g <= 65535))
  ) {
    throw new BurnError(op, `workgroups ${fmt(groups.map((g) => g ?? 1))}; expected 1 to 3 integers in [0, 65535]`);
  }
  const body = typeof forward.wgsl === 'string' ? forward.wgsl : forward.wgsl(info);
  const n = inputs.length;
  const decls = [
    ...inputs.map(
      (t, i) => `@group(0) @binding(${i}) var<storage, read> ${inputNames[i]}: array<${ctype(t.dtype, op)}>;`,
    ),
    `@group(0) @binding(${n}) var<storage, read_write> output: array<${ctype(outDtype, op)}>;`,
    `struct CustomParams { v: array<vec4<u32>, ${Math.max(1, Math.ceil(words.length / 4))}> }`,
    `@group(0) @binding(${n + 1}) var<uniform> custom_params: CustomParams;`,
    'fn param(i: u32) -> u32 { return custom_params.v[i / 4u][i % 4u]; }',
  ];
  // Every binding is used by the entry point, so the pipeline's automatic layout has them all
  // whichever the kernel reads (an unused one would make the bind group invalid).
  const uses = [...inputNames, 'output', 'custom_params'].map((v) => `_ = &${v};`).join(' ');
  const code = `${decls.join('\n')}\n${withUses(body, uses, op)}`;
  rt.dispatch(code, [...inputs.map((t) => t.buffer), output], words, [groups[0], groups[1] ?? 1, groups[2] ?? 1]);
}

/** `body` with `uses` as the first statements of `fn main`. */
function withUses(body: string, uses: string, op: string): string {
  const m = /\bfn\s+main\s*\(/.exec(body);
  if (!m) throw new BurnError(op, 'the WGSL has no `fn main(...)`; expected a compute entry point named main');
  let depth = 1,
    i = m.index + m[0].length;
  for (; i < body.length && depth > 0; i++) {
    if (body[i] === '(') depth++;
    else if (body[i] === ')') depth--;
  }
  const open = body.indexOf('{', i);
  if (depth > 0 || open < 0)
    throw new BurnError(op, 'the WGSL `fn main(...)` has no body; expected a compute entry point named main');
  return `${body.slice(0, open + 1)}\n  ${uses}${body.slice(open + 1)}`;
}

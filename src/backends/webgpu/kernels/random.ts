import type { RandomKey } from '../../../backend/rng.js';
import { dtypeSize, isFloatDType, type DType } from '../../../core/dtype.js';
import type { Distribution } from '../../../core/distribution.js';
import type { GPUBuffer } from '../gpu-types.js';
import type { GpuRuntime } from '../runtime.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { castExpr, ctype, storeExpr, storeHelpers } from '../wgsl/types.js';

/**
 * Random tensors generated on the GPU with Philox4x32-10 and exactly the stream layout of
 * src/backend/rng.ts: element `i` of a uniform draw is word `i % 4` of block `i / 4` (counter
 * `[block, stream, 0, 0]`), a normal draw uses words `2(i % 2)` and `2(i % 2) + 1` of block `i / 2`
 * through Box–Muller. Uniform floats (24-bit words) are bit-identical to the CPU; derived values
 * are computed in f32 (the CPU rounds its double result), so they agree to float precision.
 */
const PHILOX = `fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let aL = a & 0xffffu; let aH = a >> 16u; let bL = b & 0xffffu; let bH = b >> 16u;
  let ll = aL * bL;
  let m1 = aH * bL + (ll >> 16u);
  let m2 = aL * bH + (m1 & 0xffffu);
  return vec2<u32>(aH * bH + (m1 >> 16u) + (m2 >> 16u), a * b);
}
fn philox(counter: u32, stream: u32, key0: u32, key1: u32) -> vec4<u32> {
  var c = vec4<u32>(counter, stream, 0u, 0u);
  var k0 = key0;
  var k1 = key1;
  for (var r = 0u; r < 10u; r = r + 1u) {
    let p0 = mulhilo(0xd2511f53u, c.x);
    let p1 = mulhilo(0xcd9e8d57u, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k0, p1.y, p0.x ^ c.w ^ k1, p0.y);
    k0 = k0 + 0x9e3779b9u;
    k1 = k1 + 0xbb67ae85u;
  }
  return c;
}
fn unit(w: u32) -> f32 { return f32(w >> 8u) * 5.960464477539063e-8; }`;

/** Fills contiguous `dst` (`n` elements of `dtype`) with draws of `dist` under `key`. */
export function runRandom(
  rt: GpuRuntime,
  dst: GPUBuffer,
  n: number,
  dist: Distribution,
  dtype: DType,
  key: RandomKey,
): void {
  if (n === 0) return;
  const t = ctype(dtype, 'random');
  const float = isFloatDType(dtype);
  const p = new Params();
  const N = p.u(n),
    k0 = p.u(key.key0),
    k1 = p.u(key.key1),
    stream = p.u(key.stream);
  const helpers: string[] = [...storeHelpers(dtype)];
  const lines = [LINEAR_MAIN, `  if (i >= ${N}) { return; }`];
  let value: string;
  let from: DType = 'f32';
  if (dist.kind === 'normal') {
    const mean = p.f(dist.mean),
      std = p.f(dist.std);
    lines.push(`  let w = philox(i >> 1u, ${stream}, ${k0}, ${k1});`, '  let h = (i & 1u) * 2u;');
    lines.push('  let u1 = 1.0 - unit(w[h]);', '  let u2 = unit(w[h + 1u]);');
    lines.push(`  let v = ${mean} + ${std} * sqrt(-2.0 * f_log(u1)) * f_cos(6.283185307179586 * u2);`);
    helpers.push('f_log', 'f_cos');
    value = 'v';
  } else {
    lines.push(`  let w = philox(i >> 2u, ${stream}, ${k0}, ${k1})[i & 3u];`, '  let u = unit(w);');
    switch (dist.kind) {
      case 'default':
        if (float) value = 'u';
        else if (dtype === 'bool') {
          value = '(w & 1u)';
          from = 'bool';
        } else {
          // As the CPU (wordAsInt in src/backend/rng.ts): the word's low bits read as the dtype.
          const bits = dtypeSize(dtype) * 8;
          const shift = 32 - bits;
          value =
            t === 'i32'
              ? shift === 0
                ? 'bitcast<i32>(w)'
                : `(bitcast<i32>(w << ${shift}u) >> ${shift}u)`
              : shift === 0
                ? 'w'
                : `(w & ${2 ** bits - 1}u)`;
          from = t === 'i32' ? 'i32' : 'u32';
        }
        break;
      case 'uniform': {
        const lo = p.f(dist.low),
          hi = p.f(dist.high);
        lines.push(`  let v = ${lo} + (${hi} - ${lo}) * u;`);
        value = float ? 'v' : 'floor(v)';
        break;
      }
      case 'bernoulli': {
        const prob = p.f(dist.prob);
        value = `select(0.0, 1.0, u < ${prob})`;
        break;
      }
    }
  }
  const c = castExpr(from, dtype, value);
  helpers.push(...c.helpers);
  lines.push(`  dst[i] = ${storeExpr(dtype, c.expr)};`, '}');
  const code = shader(helpers, [PHILOX, storageDecls([['dst', t, true]]), p.decl(1), ...lines]);
  rt.dispatch(code, [dst], p.words, linearGroups(n));
}

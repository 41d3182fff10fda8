import type { DType } from '../../../core/dtype.js';
import type { GPUBuffer } from '../gpu-types.js';
import type { GpuRuntime } from '../runtime.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { ctype, storeExpr, storeHelpers, type CType } from '../wgsl/types.js';

/**
 * Stable sort of `lines` contiguous rows of `n` elements (bitonic network over rows padded to a
 * power of two). Keys are compared as (value, original index) — NaN the largest value, padding
 * after everything — a strict total order, so the network's result is the stable sort. Writes the
 * sorted values (rows of `n`) to `values` and the source indices (i32) to `indices`.
 */
export function runSort(
  rt: GpuRuntime,
  src: GPUBuffer,
  srcOffset: number,
  dtype: DType,
  lines: number,
  n: number,
  descending: boolean,
  values: GPUBuffer,
  indices: GPUBuffer,
  scratchKeys: GPUBuffer,
  scratchIdx: GPUBuffer,
): void {
  if (lines === 0 || n === 0) return;
  const t = ctype(dtype, 'sort');
  let pow = 1;
  while (pow < n) pow *= 2;
  // Init: keys/idx rows of `pow`, padding marked with index 0xffffffff.
  {
    const p = new Params();
    const total = p.u(lines * pow),
      N = p.u(n),
      P = p.u(pow),
      off = p.i(srcOffset);
    const body = [
      LINEAR_MAIN,
      `  if (i >= ${total}) { return; }`,
      `  let row = i / ${P};`,
      `  let j = i % ${P};`,
      `  if (j < ${N}) { keys[i] = src[${off} + i32(row * ${N} + j)]; ix[i] = j; } else { ix[i] = 0xffffffffu; }`,
      '}',
    ];
    const code = shader(
      [],
      [
        storageDecls([
          ['keys', t, true],
          ['ix', 'u32', true],
          ['src', t, false],
        ]),
        p.decl(3),
        ...body,
      ],
    );
    rt.dispatch(code, [scratchKeys, scratchIdx, src], p.words, linearGroups(lines * pow));
  }
  const before = beforeFn(t, descending);
  const half = (lines * pow) / 2;
  const stepCode = (p: Params) => {
    const H = p.u(half),
      P = p.u(pow),
      K = p.u(0),
      J = p.u(0);
    const body = [
      LINEAR_MAIN,
      `  if (i >= ${H}) { return; }`,
      `  let q = i % (${P} / 2u);`,
      `  let rowBase = (i / (${P} / 2u)) * ${P};`,
      `  let low = q % ${J};`,
      `  let a = rowBase + (q - low) * 2u + low;`,
      `  let b = a + ${J};`,
      `  let up = ((a - rowBase) & ${K}) == 0u;`,
      '  let ka = keys[a]; let kb = keys[b]; let ia = ix[a]; let ib = ix[b];',
      '  let swap = select(before(ka, ia, kb, ib), before(kb, ib, ka, ia), up);',
      '  if (swap) { keys[a] = kb; keys[b] = ka; ix[a] = ib; ix[b] = ia; }',
      '}',
    ];
    return shader(t === 'f32' ? ['is_nan'] : [], [
      before,
      storageDecls([
        ['keys', t, true],
        ['ix', 'u32', true],
      ]),
      p.decl(2),
      ...body,
    ]);
  };
  const proto = new Params();
  const code = stepCode(proto);
  for (let k = 2; k <= pow; k *= 2) {
    for (let j = k / 2; j >= 1; j /= 2) {
      const words = [...proto.words];
      words[2] = k;
      words[3] = j;
      rt.dispatch(code, [scratchKeys, scratchIdx], words, linearGroups(half));
    }
  }
  // Write back the first n of every row.
  {
    const p = new Params();
    const total = p.u(lines * n),
      N = p.u(n),
      P = p.u(pow);
    const body = [
      LINEAR_MAIN,
      `  if (i >= ${total}) { return; }`,
      `  let src = (i / ${N}) * ${P} + i % ${N};`,
      `  let v = keys[src];`,
      `  vals[i] = ${storeExpr(dtype, 'v')};`,
      '  idx[i] = i32(ix[src]);',
      '}',
    ];
    const code2 = shader(storeHelpers(dtype), [
      storageDecls([
        ['vals', t, true],
        ['idx', 'i32', true],
        ['keys', t, false],
        ['ix', 'u32', false],
      ]),
      p.decl(4),
      ...body,
    ]);
    rt.dispatch(code2, [values, indices, scratchKeys, scratchIdx], p.words, linearGroups(lines * n));
  }
}

/** WGSL `before(ka, ia, kb, ib)`: true when (ka, ia) sorts strictly before (kb, ib). */
function beforeFn(t: CType, descending: boolean): string {
  const lt = descending ? (a: string, b: string) => `${b} < ${a}` : (a: string, b: string) => `${a} < ${b}`;
  const nanCase =
    t === 'f32'
      ? `  let na = is_nan(ka); let nb = is_nan(kb);
  if (na != nb) { return ${descending ? 'na' : 'nb'}; }
  if (na) { return ia < ib; }`
      : '';
  return `fn before(ka: ${t}, ia: u32, kb: ${t}, ib: u32) -> bool {
  if (ia == 0xffffffffu) { return false; }
  if (ib == 0xffffffffu) { return true; }
${nanCase}
  if (${lt('ka', 'kb')}) { return true; }
  if (${lt('kb', 'ka')}) { return false; }
  return ia < ib;
}`;
}

// Why `hypot` is a primitive op: the scaled composite (abs, max, min, equal, maskFill, div, square,
// add, sqrt, mul, isInf ×2, or, maskFill) against the one-pass kernel, on 2^20 f32 values per CPU
// engine: median of 9 runs each, and the largest relative error against the correctly rounded value.
// Run: node --import tsx bench/decisions/hypot.ts
import { Device, Distribution, Tensor, type Float } from '../../src/index.js';
function composite(a: Tensor<1, Float>, b: Tensor<1, Float>): Tensor<1, Float> {
  const x = a.abs(),
    y = b.abs();
  const big = x.maxPair(y);
  const ratio = x.minPair(y).div(big.maskFill(big.equal(0), 1));
  return big.mul(ratio.square().add(1).sqrt()).maskFill(x.isInf().boolOr(y.isInf()), Infinity);
}
for (const engine of ['js', 'wasm', 'native'] as const) {
  const d = Device.cpu({ engine });
  const n = 1 << 20;
  const a = Tensor.random([n], Distribution.Normal(0, 1), d) as Tensor<1, Float>;
  const b = Tensor.random([n], Distribution.Normal(0, 1), d) as Tensor<1, Float>;
  const time = (f: () => Tensor<1, Float>) => {
    const ts: number[] = [];
    for (let r = 0; r < 9; r++) {
      const t0 = performance.now();
      Tensor.scope(() => {
        f().toDataSync();
      });
      ts.push(performance.now() - t0);
    }
    ts.sort((p, q) => p - q);
    return ts[4]!;
  };
  const tc = time(() => composite(a, b)),
    tp = time(() => a.hypot(b));
  const ref = a.toDataSync().toArray() as ArrayLike<number>,
    rb = b.toDataSync().toArray() as ArrayLike<number>;
  const err = (t: Tensor<1, Float>) => {
    const v = t.toDataSync().toArray() as ArrayLike<number>;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const e = Math.abs(v[i]! - Math.fround(Math.hypot(ref[i]!, rb[i]!))) / Math.fround(Math.hypot(ref[i]!, rb[i]!));
      if (e > m) m = e;
    }
    return m;
  };
  console.log(
    `${engine}: composite ${tc.toFixed(2)} ms, primitive ${tp.toFixed(2)} ms, ${(tc / tp).toFixed(1)}x; max rel err vs correctly rounded: composite ${err(composite(a, b)).toExponential(1)}, primitive ${err(a.hypot(b)).toExponential(1)}`,
  );
}

import { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import type { DType } from '../../core/dtype.js';
import { storageFromNumbers } from '../../core/element.js';
import { numel } from '../../core/shape.js';
import type { Backend, TensorPrimitive } from '../backend.js';
import { generateRandom, type RandomKey } from '../rng.js';

/**
 * Random values generated on the host with the shared Philox stream, then uploaded. Draws outside
 * an integer dtype (a wide normal) saturate as a cast does: they are converted, not created.
 */
export function random<P extends TensorPrimitive>(
  b: Backend<P>,
  shape: readonly number[],
  dist: Distribution,
  dtype: DType,
  key: RandomKey,
): P {
  return b.fromData(
    new TensorData(storageFromNumbers(generateRandom(numel(shape), dist, dtype, key), dtype), shape, dtype),
  );
}

/** `start, start + step, …` below `end`, built on the host. */
export function arange<P extends TensorPrimitive>(
  b: Backend<P>,
  start: number,
  end: number,
  step: number,
  dtype: DType,
): P {
  const n = Math.max(0, Math.ceil((end - start) / step));
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = start + i * step;
  return b.fromData(new TensorData(values, [n], dtype));
}

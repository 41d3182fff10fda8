import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import type { AnyTensor, OpContext, OpFamily, Value } from './types.js';
import { fromHost, tensorAt } from './util.js';

/**
 * TfIdfVectorizer over integer tokens, on the host: counts the pool's n-grams (lengths
 * `min_gram_length`…`max_gram_length`, with up to `max_skip_count` tokens skipped between the
 * items of an n-gram; unigrams counted once per position) per row, then TF, IDF or TF-IDF.
 */
function tfidf(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor {
  const a = ctx.attrs;
  const x = tensorAt(ctx, inputs, 0);
  const pool = a.ints('pool_int64s');
  if (!pool)
    throw new BurnError(
      'onnx',
      `node '${ctx.node.name}' (TfIdfVectorizer) has no pool_int64s (string pools are not supported)`,
    );
  const counts = a.ints('ngram_counts', []);
  const indexes = a.ints('ngram_indexes', []);
  const weights = a.floats('weights');
  const minN = a.int('min_gram_length', 1);
  const maxN = a.int('max_gram_length', 1);
  const maxSkip = a.int('max_skip_count', 0);
  const mode = a.string('mode', 'TF');
  // Pool n-grams by key, with their output column and weight.
  const table = new Map<string, [number, number]>();
  let k = 0;
  counts.forEach((start, i) => {
    const n = i + 1;
    const end = i + 1 < counts.length ? counts[i + 1]! : pool.length;
    for (let p = start; p < end; p += n, k++)
      table.set(pool.slice(p, p + n).join(','), [indexes[k]!, weights?.[k] ?? 1]);
  });
  const width = Math.max(-1, ...indexes) + 1;
  const dims = x.dims();
  const rows = dims.length === 2 ? dims[0]! : 1;
  const cols = dims[dims.length - 1]!;
  const tokens = ctx.host(0)!.toArray();
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const row = tokens.subarray(r * cols, (r + 1) * cols);
    const tf = new Float64Array(width);
    for (let start = 0; start < cols; start++) {
      for (let skip = 0; skip <= maxSkip; skip++) {
        for (let n = Math.max(minN, 1); n <= maxN; n++) {
          if (n === 1 && skip > 0) continue;
          const last = start + (n - 1) * (skip + 1);
          if (last >= cols) break;
          const key = Array.from({ length: n }, (_, j) => row[start + j * (skip + 1)]).join(',');
          const hit = table.get(key);
          if (hit) tf[hit[0]]!++;
        }
      }
    }
    for (const [, [col, w]] of table) {
      const v = tf[col]!;
      out[r * width + col] = mode === 'TF' ? v : mode === 'IDF' ? (v > 0 ? w : 0) : v * w;
    }
  }
  return fromHost(new TensorData(out, dims.length === 2 ? [rows, width] : [width], 'f32'), ctx.device);
}

/** Text ops over integer token ids. */
export const textOps: OpFamily = {
  TfIdfVectorizer: {
    run: (ctx, inputs) => [tfidf(ctx, inputs)],
    check: (_node, attrs) => (attrs.ints('pool_int64s') ? undefined : 'string pools (pool_strings) are not supported'),
    readsValues: true,
  },
};

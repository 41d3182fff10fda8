import { BurnError } from '../core/errors.js';

/**
 * Limits that bound what a hostile or corrupt file can make a loader do (memory, time, stack
 * depth). Every loader takes them through its options (`readPytorch(source, { limits })`,
 * `readBurnpack(source, op, limits)`) or a builder (`recorder.withLimits(…)`,
 * `store.withLimits(…)`); a file past a limit is refused with a BurnError naming the file, the
 * value, the limit and the option to raise. Unset fields take {@link DEFAULT_LOAD_LIMITS}.
 *
 * What a file can never do, whatever the limits: run code (the unpickler only builds data and an
 * allow-list of PyTorch reconstructors), read outside itself (every offset and size is checked
 * against the container and the storage), or crash the process (no raw RangeError escapes).
 */
export interface LoadLimits {
  /**
   * Largest decompressed size, in bytes, of a gzip'd record (`.mpk.gz`, `.bin.gz`) or of a
   * deflated zip entry of a `.pt` file. Decompression streams and stops once past it, so a small
   * file that inflates without end allocates at most this much. Default 1 GiB.
   */
  readonly maxDecompressedBytes?: number;
  /**
   * Deepest nesting of containers a reader follows: dicts of a `.pt` state dict (and tuples used
   * as dict keys), the record tree of MessagePack and JSON records, burnpack's CBOR metadata.
   * Real files nest a few levels per module depth. Default 128 (Burn's burnpack reader's limit).
   */
  readonly maxNestingDepth?: number;
  /**
   * Largest copy, in bytes, of a `.pt` view whose strides read storage elements more than once
   * (`unfold`, `as_strided`), beyond the size of its storage. Stride-0 (expanded) dimensions are
   * kept as views and never copied, and a view that fits in its storage is always read, so only
   * overlapping views pay: without a bound, a few hundred bytes could ask for gigabytes.
   * Default 64 MiB.
   */
  readonly maxStridedCopyBytes?: number;
}

/** The defaults of {@link LoadLimits}. */
export const DEFAULT_LOAD_LIMITS: Readonly<Required<LoadLimits>> = Object.freeze({
  maxDecompressedBytes: 1 << 30,
  maxNestingDepth: 128,
  maxStridedCopyBytes: 64 << 20,
});

/** `limits` with every field set (defaults for the unset ones), each checked to be a positive integer. */
export function resolveLimits(limits: LoadLimits | undefined, op: string): Required<LoadLimits> {
  const out = { ...DEFAULT_LOAD_LIMITS, ...stripUndefined(limits ?? {}) };
  for (const [k, v] of Object.entries(out)) {
    if (!(Number.isSafeInteger(v) && v > 0))
      throw new BurnError(op, `limit ${k} is ${String(v)}; expected a positive integer`);
  }
  return out;
}

function stripUndefined(limits: LoadLimits): LoadLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) as LoadLimits;
}

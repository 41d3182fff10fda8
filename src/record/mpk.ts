import { decode, encode } from '@msgpack/msgpack';
import { Gunzip, gunzipSync, gzipSync } from 'fflate';
import { DEFAULT_LOAD_LIMITS } from './limits.js';
import { fromNamedRecord, burnMetadata, toNamedRecord } from './named.js';
import { applyPrecision, FullPrecisionSettings, HalfPrecisionSettings, Recorder, type PrecisionSettings, type TensorRecord } from './recorder.js';
import { BURN_TS_VERSION } from './version.js';

/** The largest ratio deflate reaches (about 1032:1): a gzip trailer declaring more is lying. */
const MAX_DEFLATE_RATIO = 1032;

/**
 * Decompresses gzip, naming the source when the data is not gzip or is truncated, and stopping
 * once the output passes `maxBytes` (`LoadLimits.maxDecompressedBytes`): in one pass into a
 * buffer of the trailer's size when that size is plausible and within the limit, else streaming
 * (the input pushed in slices, the output checked after each), so a bomb allocates at most about
 * `maxBytes`.
 */
export function gunzip(bytes: Uint8Array, source: string, fail: (m: string) => never, maxBytes: number = DEFAULT_LOAD_LIMITS.maxDecompressedBytes): Uint8Array {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) fail(`not gzip data: the first bytes are ${[...bytes.subarray(0, 2)].map((b) => b.toString(16).padStart(2, '0')).join(' ') || '(none)'}, expected 1f 8b`);
  const n = bytes.length;
  const declared = (bytes[n - 4]! | (bytes[n - 3]! << 8) | (bytes[n - 2]! << 16) | (bytes[n - 1]! << 24)) >>> 0;
  if (declared > 0 && declared <= maxBytes && declared <= n * MAX_DEFLATE_RATIO) {
    // Fast path, one pass: into a buffer of the declared size plus one byte, which fflate never
    // grows (its writes past the end are dropped), so a trailer that understates the size shows
    // as an output of declared + 1 bytes and the bounded streaming path below takes over.
    let whole: Uint8Array | undefined;
    try {
      whole = gunzipSync(bytes, { out: new Uint8Array(declared + 1) });
    } catch {
      // Corrupt data: the streaming path reports it.
    }
    if (whole !== undefined && whole.length === declared) return whole;
  }
  // Streaming: the output buffer starts at a plausible size and grows up to the limit.
  let out = new Uint8Array(Math.max(1024, Math.min(declared, maxBytes, n * MAX_DEFLATE_RATIO)));
  let filled = 0;
  let over = false;
  const stream = new Gunzip((chunk) => {
    if (filled + chunk.length > maxBytes) {
      over = true;
      throw new Error('over the limit');
    }
    if (filled + chunk.length > out.length) {
      const grown = new Uint8Array(Math.min(maxBytes, Math.max(filled + chunk.length, out.length * 2)));
      grown.set(out.subarray(0, filled));
      out = grown;
    }
    out.set(chunk, filled);
    filled += chunk.length;
  });
  try {
    // fflate inflates a whole push before calling back: slices bound what one push can inflate.
    const SLICE = 64 << 10;
    for (let i = 0; i < n; i += SLICE) stream.push(bytes.subarray(i, i + SLICE), i + SLICE >= n);
  } catch (e) {
    if (over) {
      return fail(`the ${n}-byte gzip data decompresses past the maxDecompressedBytes limit of ${maxBytes} bytes (a decompression bomb?); expected at most ${maxBytes} bytes: raise the limit with withLimits({ maxDecompressedBytes }) to read it`);
    }
    return fail(`corrupt or truncated gzip data (${n} bytes): ${(e as Error).message}`);
  }
  return out.subarray(0, filled);
}

/**
 * Named MessagePack (Burn's `NamedMpkFileRecorder`, `.mpk`): Burn's record structure with field
 * names, tensors as raw bytes, in the precision of `settings` (default full: f32 / i32).
 */
export class NamedMpkFileRecorder extends Recorder {
  readonly extension: string = 'mpk';
  protected readonly op: string = 'NamedMpkFileRecorder';
  protected readonly format: string = 'NamedMpkFileRecorder';

  constructor(readonly settings: PrecisionSettings = FullPrecisionSettings) {
    super();
  }

  override toBytes(record: TensorRecord): Uint8Array {
    const item = toNamedRecord(applyPrecision(record, this.settings), burnMetadata(this.format, this.settings, BURN_TS_VERSION), (b) => b);
    return encode(item, { ignoreUndefined: true });
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    const fail = (m: string): never => {
      throw this.corrupt(source, m);
    };
    let root: unknown;
    try {
      root = decode(bytes);
    } catch (e) {
      return fail(`invalid MessagePack (${bytes.length} bytes; truncated or not a ${this.extension} file?): ${(e as Error).message}`);
    }
    return fromNamedRecord(root, fail, this.limits().maxNestingDepth);
  }
}

/** Named MessagePack compressed with gzip (Burn's `NamedMpkGzFileRecorder`, `.mpk.gz`). */
export class NamedMpkGzFileRecorder extends NamedMpkFileRecorder {
  override readonly extension: string = 'mpk.gz';
  protected override readonly op: string = 'NamedMpkGzFileRecorder';
  protected override readonly format: string = 'NamedMpkGzFileRecorder';

  override toBytes(record: TensorRecord): Uint8Array {
    return gzipSync(super.toBytes(record));
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    return super.fromBytes(gunzip(bytes, source, (m) => { throw this.corrupt(source, m); }, this.limits().maxDecompressedBytes), source);
  }
}

/** Half precision named MessagePack (Burn's `CompactRecorder` = `NamedMpkFileRecorder<HalfPrecisionSettings>`). */
export class CompactRecorder extends NamedMpkFileRecorder {
  constructor() {
    super(HalfPrecisionSettings);
  }
}

/** Named MessagePack to and from bytes, no file system (Burn's `NamedMpkBytesRecorder`). */
export class NamedMpkBytesRecorder extends NamedMpkFileRecorder {
  protected override readonly op: string = 'NamedMpkBytesRecorder';
}

import { decode, encode } from '@msgpack/msgpack';
import { Gunzip, gzipSync } from 'fflate';
import { DEFAULT_LOAD_LIMITS } from './limits.js';
import { fromNamedRecord, burnMetadata, toNamedRecord } from './named.js';
import {
  applyPrecision,
  FullPrecisionSettings,
  HalfPrecisionSettings,
  Recorder,
  type PrecisionSettings,
  type TensorRecord,
} from './recorder.js';
import { BURN_TS_VERSION } from './version.js';

/** The largest ratio deflate reaches (about 1032:1): a gzip trailer declaring more is lying. */
const MAX_DEFLATE_RATIO = 1032;

/** Node's zlib (native, checks the CRC and size trailer, stops at `maxOutputLength`), reached without a static import so browsers need no shim. */
const nodeZlib = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.(
  'node:zlib',
) as { gunzipSync?: (data: Uint8Array, options: { maxOutputLength: number }) => Uint8Array } | undefined;

/**
 * Decompresses gzip, naming the source when the data is not gzip or is corrupt, and stopping
 * once the output passes `maxBytes` (`LoadLimits.maxDecompressedBytes`), so a decompression bomb
 * allocates at most about `maxBytes` and decodes no further: through Node's zlib where there is
 * one, else by streaming with fflate (the input pushed in slices, the output checked after each).
 */
export function gunzip(
  bytes: Uint8Array,
  source: string,
  fail: (m: string) => never,
  maxBytes: number = DEFAULT_LOAD_LIMITS.maxDecompressedBytes,
): Uint8Array {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
    fail(
      `not gzip data: the first bytes are ${[...bytes.subarray(0, 2)].map((b) => b.toString(16).padStart(2, '0')).join(' ') || '(none)'}, expected 1f 8b`,
    );
  const n = bytes.length;
  const overLimit = (): never =>
    fail(
      `the ${n}-byte gzip data decompresses past the maxDecompressedBytes limit of ${maxBytes} bytes (a decompression bomb?); expected at most ${maxBytes} bytes: raise the limit with withLimits({ maxDecompressedBytes }) to read it`,
    );
  if (nodeZlib?.gunzipSync !== undefined) {
    try {
      const out = nodeZlib.gunzipSync(bytes, { maxOutputLength: maxBytes });
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return overLimit();
      return fail(`corrupt or truncated gzip data (${n} bytes): ${(e as Error).message}`);
    }
  }
  return gunzipStreaming(bytes, fail, maxBytes, overLimit);
}

/** @internal {@link gunzip} without Node's zlib (browsers): fflate, streaming, stopped past `maxBytes` by `overLimit`. */
export function gunzipStreaming(
  bytes: Uint8Array,
  fail: (m: string) => never,
  maxBytes: number,
  overLimit: () => never,
): Uint8Array {
  const n = bytes.length;
  // The trailer's size (mod 2^32) sizes the output when plausible; the buffer grows otherwise.
  const declared = (bytes[n - 4]! | (bytes[n - 3]! << 8) | (bytes[n - 2]! << 16) | (bytes[n - 1]! << 24)) >>> 0;
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
    // fflate inflates a whole push before calling back, and deflate expands up to ~1032x: slices
    // of about maxBytes/1024 (1 to 64 KiB) stop a bomb within about max(maxBytes, 1 MiB) more.
    const slice = Math.min(64 << 10, Math.max(1 << 10, Math.ceil(maxBytes / 1024)));
    for (let i = 0; i < n; i += slice) stream.push(bytes.subarray(i, i + slice), i + slice >= n);
  } catch (e) {
    if (over) return overLimit();
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
    const item = toNamedRecord(
      applyPrecision(record, this.settings),
      burnMetadata(this.format, this.settings, BURN_TS_VERSION),
      (b) => b,
    );
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
      return fail(
        `invalid MessagePack (${bytes.length} bytes; truncated or not a ${this.extension} file?): ${(e as Error).message}`,
      );
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
    return super.fromBytes(
      gunzip(
        bytes,
        source,
        (m) => {
          throw this.corrupt(source, m);
        },
        this.limits().maxDecompressedBytes,
      ),
      source,
    );
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

import { decode, encode } from '@msgpack/msgpack';
import { gunzipSync, gzipSync } from 'fflate';
import { fromNamedRecord, burnMetadata, toNamedRecord } from './named.js';
import { applyPrecision, FullPrecisionSettings, HalfPrecisionSettings, Recorder, type PrecisionSettings, type TensorRecord } from './recorder.js';
import { BURN_TS_VERSION } from './version.js';

/** Decompresses gzip, naming the source when the data is not gzip or is truncated. */
export function gunzip(bytes: Uint8Array, source: string, fail: (m: string) => never): Uint8Array {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) fail(`not gzip data: the first bytes are ${[...bytes.subarray(0, 2)].map((b) => b.toString(16).padStart(2, '0')).join(' ') || '(none)'}, expected 1f 8b`);
  try {
    return gunzipSync(bytes);
  } catch (e) {
    return fail(`corrupt or truncated gzip data (${bytes.length} bytes): ${(e as Error).message}`);
  }
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
    return fromNamedRecord(root, fail);
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
    return super.fromBytes(gunzip(bytes, source, (m) => { throw this.corrupt(source, m); }), source);
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

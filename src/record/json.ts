import { burnMetadata, fromNamedRecord, toNamedRecord } from './named.js';
import {
  applyPrecision,
  FullPrecisionSettings,
  Recorder,
  type PrecisionSettings,
  type TensorRecord,
} from './recorder.js';
import { BURN_TS_VERSION } from './version.js';

/**
 * Pretty-printed JSON (Burn's `PrettyJsonFileRecorder`, `.json`), human readable: Burn's record
 * structure with each tensor's bytes as an array of numbers, 2-space indentation as serde_json.
 */
export class PrettyJsonFileRecorder extends Recorder {
  readonly extension = 'json';
  protected readonly op = 'PrettyJsonFileRecorder';

  constructor(readonly settings: PrecisionSettings = FullPrecisionSettings) {
    super();
  }

  override toBytes(record: TensorRecord): Uint8Array {
    const item = toNamedRecord(
      applyPrecision(record, this.settings),
      burnMetadata('PrettyJsonFileRecorder', this.settings, BURN_TS_VERSION),
      (b) => Array.from(b),
    );
    return new TextEncoder().encode(JSON.stringify(item, null, 2));
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    const fail = (m: string): never => {
      throw this.corrupt(source, m);
    };
    let root: unknown;
    try {
      root = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (e) {
      return fail(`invalid JSON (${bytes.length} bytes; truncated?): ${(e as Error).message}`);
    }
    return fromNamedRecord(root, fail, this.limits().maxNestingDepth);
  }
}

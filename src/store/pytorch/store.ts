import { fileExists, writeBinaryFileAtomic } from '../../config/files.js';
import { bytesSource, fileSource, type ByteSource } from '../../record/source.js';
import { BurnError } from '../../tensor/errors.js';
import { BurnToPyTorchAdapter, PyTorchToBurnAdapter } from '../adapter.js';
import type { TensorSnapshot } from '../snapshot.js';
import { ModuleStore } from '../store.js';
import { readPytorch, type PytorchFormat } from './reader.js';
import { pytorchChunks } from './writer.js';
import type { ZipLimits } from './zip.js';

/**
 * PyTorch checkpoints as a store (Burn's `PytorchStore`): `.pt`/`.pth` files in the zip, legacy
 * and tar formats, read through a weights-only unpickler that never executes anything. As in
 * Burn, loading applies {@link PyTorchToBurnAdapter} (Linear transpose, norm renames), skips
 * enum variants and renumbers Sequential indices contiguously by default. Saving (a burn-ts
 * extension; Burn's store is read-only) writes the zip format `torch.load` reads, through
 * {@link BurnToPyTorchAdapter}.
 */
export class PytorchStore extends ModuleStore {
  protected readonly op = 'PytorchStore';
  private readonly path: string | undefined;
  private bytes: Uint8Array | undefined;
  private topKey: string | undefined;
  private replace = false;
  private limits: ZipLimits = {};
  private lastFormat: PytorchFormat | undefined;

  /** A store over a `.pt`/`.pth` file, or over its bytes. */
  constructor(source?: string | Uint8Array) {
    super();
    if (typeof source === 'string') this.path = source;
    else this.bytes = source;
    this.fromAdapter = new PyTorchToBurnAdapter();
    this.toAdapter = new BurnToPyTorchAdapter();
    this.skipVariants = true;
    this.contiguousIndices = true;
  }

  /** A store over a file. */
  static fromFile(path: string): PytorchStore {
    return new PytorchStore(path);
  }

  /** A store over bytes. */
  static fromBytes(bytes?: Uint8Array): PytorchStore {
    return new PytorchStore(bytes ?? new Uint8Array(0));
  }

  /** Loads the tensors under this key of the checkpoint's top-level dict (`'state_dict'`, `'model'`). */
  withTopLevelKey(key: string): this {
    this.topKey = key;
    return this;
  }

  /** Whether saving may replace an existing file (default false). */
  overwrite(overwrite: boolean): this {
    this.replace = overwrite;
    return this;
  }

  /** Zip limits (largest inflated entry, ratio) for compressed archives. */
  withZipLimits(limits: ZipLimits): this {
    this.limits = limits;
    return this;
  }

  /** The container format of the last file read. */
  format(): PytorchFormat | undefined {
    return this.lastFormat;
  }

  /** The bytes of a memory store (after saving into it). */
  getBytes(): Uint8Array {
    if (this.path !== undefined || this.bytes === undefined) throw new BurnError(this.op, 'getBytes: this store writes to a file, not to memory');
    return this.bytes;
  }

  private source(): ByteSource {
    if (this.path !== undefined) return fileSource(this.path, this.op);
    if (this.bytes === undefined || this.bytes.length === 0) throw new BurnError(this.op, 'no bytes to read from (an empty memory store)');
    return bytesSource(this.bytes, '<pytorch bytes>', this.op);
  }

  protected describe(): string {
    return this.path ?? '<pytorch bytes>';
  }

  protected readSnapshots(): TensorSnapshot[] {
    const c = readPytorch(this.source(), { op: this.op, zipLimits: this.limits, ...(this.topKey !== undefined ? { topLevelKey: this.topKey } : {}) });
    this.lastFormat = c.format;
    return [...c.tensors.values()];
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const chunks = pytorchChunks(snapshots);
    if (this.path === undefined) {
      const parts = [...chunks];
      const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
      let pos = 0;
      for (const p of parts) {
        out.set(p, pos);
        pos += p.length;
      }
      this.bytes = out;
      return;
    }
    if (!this.replace && fileExists(this.path, this.op)) throw new BurnError(this.op, `file already exists: ${this.path}; use .overwrite(true) to replace it`);
    writeBinaryFileAtomic(this.path, chunks, this.op);
  }
}

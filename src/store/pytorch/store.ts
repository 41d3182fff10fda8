import { BurnToPyTorchAdapter, PyTorchToBurnAdapter } from '../adapter.js';
import { FileStore } from '../file-store.js';
import type { TensorSnapshot } from '../snapshot.js';
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
export class PytorchStore extends FileStore {
  protected readonly op = 'PytorchStore';
  protected readonly memoryName = '<pytorch bytes>';
  private topKey: string | undefined;
  private zipLimits: ZipLimits = {};
  private lastFormat: PytorchFormat | undefined;

  /** A store over a `.pt`/`.pth` file, or over its bytes. */
  constructor(source?: string | Uint8Array) {
    super(source);
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

  /** Zip limits (largest inflated entry, ratio) for compressed archives. */
  withZipLimits(limits: ZipLimits): this {
    this.zipLimits = limits;
    return this;
  }

  /** The container format of the last file read. */
  format(): PytorchFormat | undefined {
    return this.lastFormat;
  }

  protected readSnapshots(): TensorSnapshot[] {
    const c = readPytorch(this.source(), {
      op: this.op,
      zipLimits: this.zipLimits,
      limits: this.limits,
      ...(this.topKey !== undefined ? { topLevelKey: this.topKey } : {}),
    });
    this.lastFormat = c.format;
    return [...c.tensors.values()];
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const chunks = pytorchChunks(snapshots);
    this.writeBytes(
      () => concatBytes([...chunks]),
      () => chunks,
    );
  }
}

/** The chunks joined into one array. */
function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

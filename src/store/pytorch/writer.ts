import type { DType } from '../../core/dtype.js';
import { contiguousStrides } from '../../core/shape.js';
import type { TensorSnapshot } from '../snapshot.js';
import { zipChunks } from './zip.js';

const STORAGE_NAMES: Record<DType, string> = {
  f32: 'FloatStorage',
  f64: 'DoubleStorage',
  f16: 'HalfStorage',
  bf16: 'BFloat16Storage',
  i64: 'LongStorage',
  i32: 'IntStorage',
  i16: 'ShortStorage',
  i8: 'CharStorage',
  u8: 'ByteStorage',
  bool: 'BoolStorage',
  u32: 'IntStorage',
  u16: 'ShortStorage',
};

class Pickler {
  private parts: number[] = [];
  private readonly enc = new TextEncoder();
  op(...b: number[]): void {
    this.parts.push(...b);
  }
  global(module: string, name: string): void {
    this.op(0x63, ...this.enc.encode(`${module}\n${name}\n`));
  }
  str(s: string): void {
    const b = this.enc.encode(s);
    this.op(0x58, b.length & 0xff, (b.length >>> 8) & 0xff, (b.length >>> 16) & 0xff, b.length >>> 24, ...b);
  }
  int(v: number): void {
    if (v >= 0 && v < 256) this.op(0x4b, v);
    else if (v >= -(2 ** 31) && v < 2 ** 31)
      this.op(0x4a, v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff);
    else {
      let x = BigInt(v);
      const bytes: number[] = [];
      for (let i = 0; i < 8; i++, x >>= 8n) bytes.push(Number(x & 0xffn));
      this.op(0x8a, 8, ...bytes);
    }
  }
  tuple(items: number[]): void {
    this.op(0x28);
    for (const v of items) this.int(v);
    this.op(0x74);
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/**
 * A PyTorch checkpoint (the zip format `torch.save` writes, pickle protocol 2) of a flat
 * `OrderedDict` of tensors, loadable by `torch.load` (also with `weights_only=True`). Tensor
 * data is produced one tensor at a time.
 */
export function pytorchChunks(snapshots: readonly TensorSnapshot[], archive = 'archive'): Generator<Uint8Array> {
  const p = new Pickler();
  p.op(0x80, 2);
  p.global('collections', 'OrderedDict');
  p.op(0x29, 0x52); // EMPTY_TUPLE REDUCE
  p.op(0x28); // MARK
  snapshots.forEach((s, i) => {
    const numel = s.shape.reduce((a, b) => a * b, 1);
    const strides = contiguousStrides(s.shape);
    p.str(s.fullPath());
    p.global('torch._utils', '_rebuild_tensor_v2');
    p.op(0x28); // MARK (args)
    p.op(0x28);
    p.str('storage');
    p.global('torch', STORAGE_NAMES[s.dtype]);
    p.str(String(i));
    p.str('cpu');
    p.int(numel);
    p.op(0x74, 0x51); // TUPLE BINPERSID
    p.int(0);
    p.tuple([...s.shape]);
    p.tuple(strides);
    p.op(0x89); // NEWFALSE
    p.global('collections', 'OrderedDict');
    p.op(0x29, 0x52);
    p.op(0x74, 0x52); // TUPLE REDUCE
  });
  p.op(0x75, 0x2e); // SETITEMS STOP
  const entries = [
    { name: `${archive}/data.pkl`, data: () => p.bytes() },
    ...snapshots.map((s, i) => ({ name: `${archive}/data/${i}`, data: () => s.toData().bytes })),
    { name: `${archive}/version`, data: () => new TextEncoder().encode('3\n') },
  ];
  return zipChunks(entries);
}

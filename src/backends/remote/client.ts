import type { SliceSpecs } from '../../backend/backend.js';
import { BaseBackend } from '../../backend/base.js';
import { NO_SCAN, runScope, trackAllocation } from '../../backend/memory.js';
import type {
  ArgOp,
  BinaryOp,
  CompareOp,
  PredicateOp,
  ReduceOp,
  ScanOp,
  ScatterOp,
  UnaryOp,
} from '../../backend/ops.js';
import type {
  AttentionOptions,
  AvgPoolOptions,
  ConvOptions,
  ConvTransposeOptions,
  DeformConvOptions,
  GridSampleOptions,
  InterpolateOptions,
  MaxPoolOptions,
  UnfoldOptions,
} from '../../backend/options.js';
import type { RandomKey } from '../../backend/rng.js';
import type { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { Connection, RemoteTensor, type WebSocketConstructor } from './connection.js';
import { encodeDist, encodeKey, encodeScalar, encodeSpecs, type OpCommand } from './protocol.js';
import * as rules from './rules.js';
import type { Meta } from './rules.js';

export { RemoteTensor } from './connection.js';
export type { WebSocketConstructor, WebSocketLike } from './connection.js';

/** Options of `Device.remote`. */
export interface RemoteOptions {
  /** The WebSocket implementation (default: the `ws` package in Node, the global `WebSocket` elsewhere). */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * The server's shared secret (`startServer`'s `token`), presented at the handshake as a
   * WebSocket subprotocol (a request header, never part of the URL). Over `ws://` it travels in
   * clear: use `wss://` off one machine.
   */
  readonly token?: string;
}

type T = RemoteTensor;

/** A number no index message holds by chance: where it appears in `error(marker)`, the index goes. */
const INDEX_MARKER = -987654321.125;

/**
 * The client of the remote backend (Burn's `burn-remote`): every op becomes one command to a
 * server (`startServer` in `burn-ts/remote`) that runs it on its own device. Output shapes and
 * dtypes are computed here from the shape rules (./rules.ts), so ops are synchronous; commands are
 * queued in order and sent once per microtask turn. Reads are asynchronous (`toDataSync` returns
 * undefined). Composite ops without a cheap shape rule run through the shared defaults (made of
 * required ops) inside a memory scope, so their intermediates are freed on the server at once.
 */
export class RemoteBackend extends BaseBackend<RemoteTensor> {
  readonly name: string;
  readonly [NO_SCAN] = true;
  /** @internal The connection. */
  readonly connection: Connection;

  constructor(
    readonly url: string,
    options: RemoteOptions = {},
  ) {
    super();
    if (!/^wss?:\/\/./.test(url))
      throw new BurnError('Device.remote', `url '${url}'; expected ws://host:port or wss://host:port`);
    this.name = `remote(${url})`;
    if (options.token !== undefined && (typeof options.token !== 'string' || options.token === ''))
      throw new BurnError(
        'Device.remote',
        `token ${options.token === '' ? "''" : typeof options.token}; expected a non-empty string`,
      );
    this.connection = new Connection(url, options.WebSocket, options.token);
  }

  /** True once the connection is closed (by either side): pending and later reads reject, later ops throw. */
  get closed(): boolean {
    return this.connection.closed;
  }

  /** Closes the connection; the server frees this client's tensors. */
  close(): void {
    this.connection.close();
  }

  /** Waits until the server has run every op sent before; rejects with an earlier op's error. */
  sync(): Promise<void> {
    return this.connection.sync();
  }

  /** The server's URL, whether the connection is closed, and the handles this client holds. */
  info(): object {
    return { url: this.url, closed: this.connection.closed, handles: this.connection.liveHandles };
  }

  dispose(p: T): void {
    p.release();
  }

  retain(p: T): T {
    const out = this.alloc(p);
    this.connection.send(['retain', out.id, this.connection.id(p)]);
    return out;
  }

  // --- plumbing ---

  private alloc(m: Meta): T {
    const t = this.connection.tensor(m.shape, m.dtype);
    trackAllocation(t);
    return t;
  }

  /** Sends `[name, out, ...args]` (tensors among `args` become their ids) and returns the output. */
  private op(name: OpCommand, m: Meta, ...args: unknown[]): T {
    const encoded = args.map((a) => (a instanceof RemoteTensor ? this.connection.id(a) : a));
    const out = this.alloc(m);
    // An index check's failure belongs to what is computed from its output (see Connection.send).
    this.connection.send([name, out.id, ...encoded], undefined, name === 'checkIndices');
    return out;
  }

  private scoped<R>(fn: () => R): R {
    return runScope(fn);
  }

  // --- data ---

  fromData(data: TensorData): T {
    const out = this.alloc({ shape: data.shape, dtype: data.dtype });
    this.connection.send(['fromData', out.id, data.dtype, [...data.shape]], data.bytes);
    return out;
  }

  toData(p: T): Promise<TensorData> {
    return this.connection.read(p);
  }

  toDataSync(): TensorData | undefined {
    return undefined;
  }

  fill(shape: readonly number[], value: number, dtype: DType): T {
    return this.op('fill', rules.fill(shape, dtype), [...shape], encodeScalar(value), dtype);
  }

  // --- layout ---

  reshape(p: T, shape: readonly number[]): T {
    return this.op('reshape', rules.reshape(p, shape), p, [...shape]);
  }
  permute(p: T, axes: readonly number[]): T {
    return this.op('permute', rules.permute(p, axes), p, [...axes]);
  }
  expand(p: T, shape: readonly number[]): T {
    return this.op('expand', rules.expand(p, shape), p, [...shape]);
  }
  slice(p: T, specs: SliceSpecs): T {
    return this.op('slice', rules.slice(p, specs), p, encodeSpecs(specs));
  }
  sliceAssign(p: T, specs: SliceSpecs, values: T): T {
    return this.op('sliceAssign', rules.sliceAssign(p, specs, values), p, encodeSpecs(specs), values);
  }
  cat(ps: readonly T[], dim: number): T {
    return this.op(
      'cat',
      rules.cat(ps, dim),
      ps.map((p) => this.connection.id(p)),
      dim,
    );
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: T): T {
    return this.op('unary', rules.unary(p), op, p);
  }
  predicate(op: PredicateOp, p: T): T {
    return this.op('predicate', rules.predicate(p), op, p);
  }
  binary(op: BinaryOp, a: T, b: T): T {
    return this.op('binary', rules.binary(op, a, b), op, a, b);
  }
  compare(op: CompareOp, a: T, b: T): T {
    return this.op('compare', rules.compare(op, a, b), op, a, b);
  }
  where(cond: T, a: T, b: T): T {
    return this.op('where', rules.where(cond, a, b), cond, a, b);
  }
  cast(p: T, dtype: DType): T {
    return dtype === p.dtype ? p : this.op('cast', rules.cast(p, dtype), p, dtype);
  }

  // --- reductions, indexing, matmul, sort ---

  reduce(op: ReduceOp, p: T, dims: readonly number[]): T {
    return this.op('reduce', rules.reduce(op, p, dims), op, p, [...dims]);
  }
  argReduce(op: ArgOp, p: T, dim: number): T {
    return this.op('argReduce', rules.argReduce(op, p, dim), op, p, dim);
  }
  scan(op: ScanOp, p: T, dim: number): T {
    return this.op('scan', rules.alongDim('scan', p, dim), op, p, dim);
  }
  gather(p: T, dim: number, indices: T): T {
    return this.op('gather', rules.gather(p, dim, indices), p, dim, indices);
  }
  scatter(op: ScatterOp, p: T, dim: number, indices: T, values: T): T {
    return this.op('scatter', rules.scatter(p, dim, indices, values), op, p, dim, indices, values);
  }
  matmul(a: T, b: T): T {
    return this.op('matmul', rules.matmul(a, b), a, b);
  }
  sort(p: T, dim: number, descending: boolean): [T, T] {
    const [mv, mi] = rules.sort(p, dim);
    const id = this.connection.id(p);
    const values = this.alloc(mv),
      indices = this.alloc(mi);
    this.connection.send(['sort', [values.id, indices.id], id, dim, descending]);
    return [values, indices];
  }

  // --- composites with cheap shape rules: one command each ---

  override random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): T {
    return this.op('random', rules.fill(shape, dtype), [...shape], encodeDist(dist), dtype, encodeKey(key));
  }
  override arange(start: number, end: number, step: number, dtype: DType): T {
    return this.op('arange', rules.arange(start, end, step, dtype), start, end, step, dtype);
  }
  override binaryScalar(op: BinaryOp, a: T, scalar: number): T {
    return this.op('binaryScalar', rules.binary(op, a), op, a, encodeScalar(scalar));
  }
  override compareScalar(op: CompareOp, a: T, scalar: number): T {
    return this.op('compareScalar', rules.compare(op, a), op, a, encodeScalar(scalar));
  }
  override clamp(p: T, min: number | undefined, max: number | undefined): T {
    return this.op('clamp', rules.unary(p), p, encodeScalar(min), encodeScalar(max));
  }
  override maskFill(p: T, mask: T, value: number): T {
    return this.op('maskFill', rules.maskFill(p, mask), p, mask, encodeScalar(value));
  }
  override select(p: T, dim: number, indices: T): T {
    return this.op('select', rules.select(p, dim, indices), p, dim, indices);
  }
  override selectAssign(op: ScatterOp, p: T, dim: number, indices: T, values: T): T {
    return this.op('selectAssign', rules.selectAssign(p, dim, indices, values), op, p, dim, indices, values);
  }
  override softmax(p: T, dim: number): T {
    return this.op('softmax', rules.alongDim('softmax', p, dim), p, dim);
  }
  override logSoftmax(p: T, dim: number): T {
    return this.op('logSoftmax', rules.alongDim('logSoftmax', p, dim), p, dim);
  }

  /**
   * `indices` checked on the server to lie in `[lo, hi)`; an index outside fails the command, and
   * reads of what is computed from it reject with `error(index)`. `error` cannot travel, so its
   * op and message are sent, split where the index goes (found by calling it with a marker value).
   */
  checkIndices(indices: T, lo: number, hi: number, error: (index: number) => Error): T {
    const e = error(INDEX_MARKER);
    const op = e instanceof BurnError ? e.op : 'checkIndices';
    const message = e.message.startsWith(`${op}: `) ? e.message.slice(op.length + 2) : e.message;
    const at = message.indexOf(String(INDEX_MARKER));
    const [before, after] =
      at >= 0 ? [message.slice(0, at), message.slice(at + String(INDEX_MARKER).length)] : [`${message} (index `, ')'];
    return this.op(
      'checkIndices',
      rules.checkedIndices(indices),
      indices,
      encodeScalar(lo),
      encodeScalar(hi),
      op.slice(0, 100),
      before.slice(0, 1000),
      after.slice(0, 1000),
    );
  }

  // --- module ops: the shared defaults, intermediates freed when each returns ---

  override conv(x: T, weight: T, bias: T | undefined, options: ConvOptions): T {
    return this.scoped(() => super.conv(x, weight, bias, options));
  }
  override convTranspose(x: T, weight: T, bias: T | undefined, options: ConvTransposeOptions): T {
    return this.scoped(() => super.convTranspose(x, weight, bias, options));
  }
  override deformConv2d(
    x: T,
    offset: T,
    weight: T,
    mask: T | undefined,
    bias: T | undefined,
    options: DeformConvOptions,
  ): T {
    return this.scoped(() => super.deformConv2d(x, offset, weight, mask, bias, options));
  }
  override unfold4d(x: T, kernelSize: readonly number[], options: UnfoldOptions): T {
    return this.scoped(() => super.unfold4d(x, kernelSize, options));
  }
  override maxPool(x: T, options: MaxPoolOptions): T {
    return this.scoped(() => super.maxPool(x, options));
  }
  override maxPoolWithIndices(x: T, options: MaxPoolOptions): [T, T] {
    return this.scoped(() => super.maxPoolWithIndices(x, options));
  }
  override avgPool(x: T, options: AvgPoolOptions): T {
    return this.scoped(() => super.avgPool(x, options));
  }
  override adaptiveAvgPool(x: T, outputSize: readonly number[]): T {
    return this.scoped(() => super.adaptiveAvgPool(x, outputSize));
  }
  override interpolate(x: T, outputSize: readonly number[], options: InterpolateOptions): T {
    return this.scoped(() => super.interpolate(x, outputSize, options));
  }
  override gridSample2d(x: T, grid: T, options: GridSampleOptions): T {
    return this.scoped(() => super.gridSample2d(x, grid, options));
  }
  override attention(q: T, k: T, v: T, mask: T | undefined, bias: T | undefined, options: AttentionOptions): T {
    return this.scoped(() => super.attention(q, k, v, mask, bias, options));
  }
}

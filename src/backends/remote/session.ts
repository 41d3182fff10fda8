import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import {
  ARG_OPS,
  BINARY_OPS,
  COMPARE_OPS,
  PREDICATE_OPS,
  REDUCE_OPS,
  SCAN_OPS,
  SCATTER_OPS,
  UNARY_OPS,
} from '../../backend/ops.js';
import type { RandomKey } from '../../backend/rng.js';
import { TensorData } from '../../core/data.js';
import { Distribution } from '../../core/distribution.js';
import { assertDType, dtypeSize, type DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { numel, sameShape } from '../../core/shape.js';
import {
  checkMessage,
  CONTROL_COMMANDS,
  decodeSpecs,
  DEFAULT_LIMITS,
  encodeAligned,
  encodeMessage,
  MAX_RANK,
  messageDecoder,
  OP_COMMANDS,
  type OpCommand,
} from './protocol.js';
import * as rules from './rules.js';
import type { Meta } from './rules.js';

/** The limits a session enforces (`ServerOptions` documents each; the optional ones default to {@link DEFAULT_LIMITS}). */
export interface SessionLimits {
  readonly maxMessageBytes: number;
  readonly maxElements: number;
  readonly maxHandles: number;
  readonly maxLiveBytes?: number;
  readonly maxQueuedReplyBytes?: number;
  readonly maxQueuedReplies?: number;
}

/**
 * Where a session's replies go. The session counts a reply as queued from the moment it is
 * accepted (a read waiting for its data counts its tensor's bytes) until `written` is called, and
 * runs no command while the queued replies reach its limits.
 */
export interface ReplyChannel {
  /** Sends one encoded message; calls `written` once it has left the process (a client that does not read delays that). */
  send(message: Uint8Array, written: () => void): void;
  /** Told `true` when the session stops taking commands (its replies are backlogged), `false` when it takes them again. */
  throttle?(paused: boolean): void;
}

/** The bytes accounted to one value on the server: its handles share them (`retain`, an op returning an input). */
interface Held<P> {
  readonly bytes: number;
  /** Handles on the value. */
  refs: number;
  /** The backend's primitives of the value (a retained handle may have its own). */
  readonly members: Set<P>;
}

/** A reply to the client. */
type Reply = readonly unknown[];

/** A frame that is not a protocol message: the connection must close. */
export class ProtocolError extends Error {}

interface Failure {
  readonly seq: number;
  readonly op: string;
  readonly message: string;
}

type Entry<P> =
  | { readonly tensor: P; readonly failure?: undefined }
  | { readonly tensor?: undefined; readonly failure: Failure };

/** Thrown when an input is poisoned by an earlier failure: the outputs inherit it. */
class Poisoned {
  constructor(readonly failure: Failure) {}
}

/** What an op will produce, and how. */
interface Plan<P> {
  readonly metas: readonly Meta[];
  readonly run: () => readonly P[];
}

/**
 * The server side of one connection: its handle table and the commands, validated before they
 * reach the backend (op names against the op tables, argument types, shapes through the shape
 * rules, handle ids, sizes against the limits). A command that fails poisons its outputs, and the
 * client is told (`fail`); anything computed from a poisoned handle is poisoned with the same
 * failure. Nothing a client sends can throw out of {@link receive} except a {@link ProtocolError}.
 *
 * What one client can make the server hold is bounded: the bytes of its live tensors by
 * `maxLiveBytes` (checked before an op runs, so nothing over it is allocated), and its replies
 * (queued in the process because the client reads slowly or not at all, or being prepared) by
 * `maxQueuedReplyBytes` and `maxQueuedReplies`: at either limit the session runs no further
 * command (they wait, in order, and the channel is told to stop reading the socket) until enough
 * replies are written.
 */
export class Session<P extends TensorPrimitive> {
  private readonly handles = new Map<number, Entry<P>>();
  private readonly held = new Map<P, Held<P>>();
  private live = 0;
  private queued = { bytes: 0, replies: 0 };
  /** Frames received and not yet run; `next` is the index of the next command of the first one. */
  private readonly frames: unknown[][] = [];
  private next = 0;
  private pumping = false;
  private paused = false;
  private seq = 0;
  private closed = false;
  private readonly decoder;
  private readonly channel: ReplyChannel;
  private readonly maxLiveBytes: number;
  private readonly maxQueuedReplyBytes: number;
  private readonly maxQueuedReplies: number;

  /** `channel` takes the encoded replies; a plain function counts each reply as written at once (no backpressure). */
  constructor(
    private readonly backend: Backend<P>,
    private readonly limits: SessionLimits,
    channel: ReplyChannel | ((message: Uint8Array) => void),
  ) {
    this.decoder = messageDecoder(limits.maxMessageBytes);
    this.channel =
      typeof channel === 'function'
        ? {
            send: (m, written) => {
              channel(m);
              written();
            },
          }
        : channel;
    this.maxLiveBytes = limits.maxLiveBytes ?? DEFAULT_LIMITS.maxLiveBytes;
    this.maxQueuedReplyBytes = limits.maxQueuedReplyBytes ?? DEFAULT_LIMITS.maxQueuedReplyBytes;
    this.maxQueuedReplies = limits.maxQueuedReplies ?? DEFAULT_LIMITS.maxQueuedReplies;
  }

  /** Live handles (tensors and poisoned entries). */
  get size(): number {
    return this.handles.size;
  }

  /** Bytes of the live tensors (handles on one value count it once). */
  get liveBytes(): number {
    return this.live;
  }

  /** Bytes of the replies being prepared or not yet written. */
  get queuedBytes(): number {
    return this.queued.bytes;
  }

  /** Replies being prepared or not yet written. */
  get queuedReplies(): number {
    return this.queued.replies;
  }

  /** True while commands wait for the queued replies to be written. */
  get throttled(): boolean {
    return this.paused;
  }

  /**
   * Takes one frame and runs its commands, in order after those still waiting (all of them,
   * unless the replies are backlogged: then the rest run once they are written). Throws a
   * {@link ProtocolError} when the frame is not an array of commands.
   */
  receive(bytes: Uint8Array): void {
    if (this.closed) return;
    let frame: unknown;
    try {
      checkMessage(bytes, 3);
      frame = this.decoder.decode(bytes);
    } catch (e) {
      throw new ProtocolError(`malformed frame: ${describeError(e)}`);
    }
    if (!Array.isArray(frame)) throw new ProtocolError('a frame must be an array of commands');
    if (frame.length > 0) this.frames.push(frame);
    this.pump();
  }

  /** Frees every handle (the connection closed); waiting commands are dropped. */
  close(): void {
    this.closed = true;
    this.frames.length = 0;
    for (const entry of this.handles.values()) if (entry.tensor) this.free(entry.tensor);
    this.handles.clear();
    this.held.clear();
    this.live = 0;
    this.setPaused(false);
  }

  // --- flow control ---

  /** Runs waiting commands until none is left or the replies are backlogged. */
  private pump(): void {
    if (this.pumping) return; // a reply written synchronously while a command runs: the loop below goes on
    this.pumping = true;
    try {
      while (!this.closed && this.frames.length > 0) {
        if (this.queued.bytes >= this.maxQueuedReplyBytes || this.queued.replies >= this.maxQueuedReplies) {
          this.setPaused(true);
          return;
        }
        const frame = this.frames[0]!;
        const command = frame[this.next++];
        if (this.next >= frame.length) {
          this.frames.shift();
          this.next = 0;
        }
        try {
          this.command(command);
        } catch (e) {
          // Commands catch what a client can cause; this is a server bug, reported and survived.
          this.send(['fail', this.seq - 1, 'remote', `internal error: ${describeError(e).slice(0, 2000)}`]);
        }
      }
      this.setPaused(false);
    } finally {
      this.pumping = false;
    }
  }

  private setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    this.channel.throttle?.(paused);
  }

  /** Counts a reply as queued (`bytes`: what is known of its size now). */
  private enqueue(bytes: number): void {
    this.queued.bytes += bytes;
    this.queued.replies++;
  }

  /** A queued reply is gone (written, or never sent). */
  private dequeue(bytes: number): void {
    this.queued.bytes -= bytes;
    this.queued.replies--;
    if (this.paused && !this.pumping) this.pump();
  }

  /** Sends a reply that {@link enqueue} counted with `reserved` bytes. */
  private deliver(message: Uint8Array, reserved: number): void {
    if (this.closed) {
      this.dequeue(reserved);
      return;
    }
    this.queued.bytes += message.byteLength - reserved;
    let done = false;
    this.channel.send(message, () => {
      if (done) return;
      done = true;
      this.dequeue(message.byteLength);
    });
  }

  private send(message: Reply): void {
    if (this.closed) return;
    this.enqueue(0);
    this.deliver(encodeMessage(message), 0);
  }

  // --- handles and their bytes ---

  /** Binds handle `id` to `t`; `group` is the value `t` shares (a retained handle's source). */
  private hold(id: number, t: P, group?: Held<P>): void {
    let g = this.held.get(t) ?? group;
    if (!g) {
      g = { bytes: bytesOf(t), refs: 0, members: new Set() };
      this.live += g.bytes;
    }
    g.refs++;
    g.members.add(t);
    this.held.set(t, g);
    this.handles.set(id, { tensor: t });
  }

  /** The handle on `t` is gone. */
  private unhold(t: P): void {
    const g = this.held.get(t);
    if (!g || --g.refs > 0) return;
    this.live -= g.bytes;
    for (const m of g.members) this.held.delete(m);
  }

  private free(t: P): void {
    try {
      this.backend.dispose?.(t);
    } catch {
      // A backend that fails to free has nothing more to free.
    }
  }

  // --- commands ---

  private command(command: unknown): void {
    const seq = this.seq++;
    if (!Array.isArray(command) || typeof command[0] !== 'string') {
      this.fail(seq, 'remote', `command ${seq} is ${describe(command)}; expected [name, ...arguments]`, undefined);
      return;
    }
    const name = command[0];
    if ((OP_COMMANDS as readonly string[]).includes(name)) this.op(seq, name as OpCommand, command);
    else if (name === 'read') this.read(seq, command);
    else if (name === 'sync') this.sync(seq);
    else if (name === 'drop') this.drop(seq, command);
    else if (name === 'retain') this.retain(seq, command);
    else {
      const outs = this.outputs(command[1]);
      this.fail(
        seq,
        'remote',
        `unknown command ${describe(name)}; expected one of ${[...OP_COMMANDS, ...CONTROL_COMMANDS].join(', ')}`,
        typeof outs === 'string' ? undefined : outs,
      );
    }
  }

  /** Output ids: an id or a list of distinct ids not in use; a message when they are not. */
  private outputs(v: unknown): number[] | string {
    const ids = Array.isArray(v) ? v : [v];
    if (ids.length === 0 || ids.length > 8 || !ids.every(isId))
      return `output handles ${describe(v)}; expected a non-negative integer id or a list of them`;
    if (new Set(ids).size !== ids.length) return `output handles ${describe(v)} repeat an id`;
    const used = ids.find((id) => this.handles.has(id));
    if (used !== undefined) return `output handle ${used} is already in use`;
    return ids as number[];
  }

  private op(seq: number, name: OpCommand, command: readonly unknown[]): void {
    const outs = this.outputs(command[1]);
    if (typeof outs === 'string') {
      this.fail(seq, name, outs, undefined);
      return;
    }
    try {
      const reader = new Reader(this.handles, name, command, this.limits.maxElements);
      const plan = OPS[name](reader, this.backend);
      reader.end();
      if (plan.metas.length !== outs.length)
        throw new BurnError(name, `${outs.length} output handles; expected ${plan.metas.length}`);
      for (const m of plan.metas) {
        if (numel(m.shape) > this.limits.maxElements)
          throw new BurnError(
            name,
            `output of shape ${fmt(m.shape)} has more than ${this.limits.maxElements} elements (the server's maxElements)`,
          );
      }
      if (this.handles.size + outs.length > this.limits.maxHandles)
        throw new BurnError(
          name,
          `more than ${this.limits.maxHandles} live handles (the server's maxHandles); free tensors first`,
        );
      const need = plan.metas.reduce((n, m) => n + bytesOf(m), 0);
      if (this.live + need > this.maxLiveBytes) {
        throw new BurnError(
          name,
          `needs ${need} bytes for its output ${plan.metas.map((m) => `${fmt(m.shape)} ${m.dtype}`).join(' and ')}; this connection holds ${this.live} bytes of live tensors and its budget is ${this.maxLiveBytes} bytes (startServer's maxLiveBytes option raises it; free tensors first)`,
        );
      }
      const results = plan.run();
      const bad = results.findIndex(
        (t, i) => !sameShape(t.shape, plan.metas[i]!.shape) || t.dtype !== plan.metas[i]!.dtype,
      );
      if (bad >= 0 || results.length !== outs.length) {
        // (A result may be an input itself, so nothing is freed here: a backend bug, not a client's.)
        const t = results[bad];
        throw new BurnError(
          name,
          `the server's backend ${this.backend.name} returned ${t ? `${fmt(t.shape)} ${t.dtype}` : `${results.length} outputs`}; the shape rule expects ${plan.metas.map((m) => `${fmt(m.shape)} ${m.dtype}`).join(', ')}`,
        );
      }
      outs.forEach((id, i) => {
        // An input returned as is (a cast to its own dtype) gets a handle of its own: dropping one must not free the other.
        const r = results[i]!,
          group = this.held.get(r);
        this.hold(id, group ? (this.backend.retain?.(r) ?? r) : r, group);
      });
    } catch (e) {
      if (e instanceof Poisoned) this.poison(outs, e.failure);
      else this.fail(seq, name, e, outs);
    }
  }

  /** Reports a failed command and poisons its outputs. */
  private fail(seq: number, op: string, error: unknown, outs: readonly number[] | undefined): void {
    let failure: Failure;
    if (error instanceof BurnError) failure = { seq, op: error.op, message: error.message.slice(error.op.length + 2) };
    else failure = { seq, op, message: typeof error === 'string' ? error : describeError(error) };
    failure = { seq, op: failure.op.slice(0, 100), message: failure.message.slice(0, 2000) };
    if (outs) this.poison(outs, failure);
    this.send(['fail', seq, failure.op, failure.message]);
  }

  /** Marks the outputs of a failed command (within maxHandles: beyond, they stay unknown handles). */
  private poison(outs: readonly number[], failure: Failure): void {
    for (const id of outs)
      if (!this.handles.has(id) && this.handles.size < this.limits.maxHandles) this.handles.set(id, { failure });
  }

  private retain(seq: number, command: readonly unknown[]): void {
    const outs = this.outputs(command[1]);
    if (typeof outs === 'string' || outs.length !== 1) {
      this.fail(seq, 'retain', typeof outs === 'string' ? outs : 'expected one output handle', undefined);
      return;
    }
    try {
      const reader = new Reader(this.handles, 'retain', command, this.limits.maxElements);
      const t = reader.tensor();
      reader.end();
      if (this.handles.size >= this.limits.maxHandles)
        throw new BurnError(
          'retain',
          `more than ${this.limits.maxHandles} live handles (the server's maxHandles); free tensors first`,
        );
      this.hold(outs[0]!, this.backend.retain?.(t) ?? t, this.held.get(t));
    } catch (e) {
      if (e instanceof Poisoned) this.poison(outs, e.failure);
      else this.fail(seq, 'retain', e, outs);
    }
  }

  private drop(seq: number, command: readonly unknown[]): void {
    const ids = command[1];
    if (command.length !== 2 || !Array.isArray(ids) || !ids.every(isId)) {
      this.fail(seq, 'drop', `arguments ${describe(command.slice(1))}; expected a list of handle ids`, undefined);
      return;
    }
    for (const id of ids as number[]) {
      const entry = this.handles.get(id);
      if (!entry) continue;
      this.handles.delete(id);
      if (entry.tensor) {
        this.unhold(entry.tensor);
        this.free(entry.tensor);
      }
    }
  }

  private read(seq: number, command: readonly unknown[]): void {
    const error = (failSeq: number, op: string, message: string) => this.send(['error', seq, failSeq, op, message]);
    let pending: Promise<TensorData>;
    // The reply is queued from now: its tensor's bytes, plus room for the header.
    let reserved = 0;
    try {
      const reader = new Reader(this.handles, 'read', command, this.limits.maxElements, 1);
      const t = reader.tensor();
      reader.end();
      reserved = bytesOf(t) + 64;
      this.enqueue(reserved);
      pending = this.backend.toData(t);
    } catch (e) {
      if (reserved > 0) this.dequeue(reserved);
      if (e instanceof Poisoned) error(e.failure.seq, e.failure.op, e.failure.message);
      else if (e instanceof BurnError) error(-1, e.op, e.message.slice(e.op.length + 2));
      else error(-1, 'read', describeError(e));
      return;
    }
    pending
      .then(
        (data) => this.deliver(encodeAligned(['data', seq, data.dtype, data.shape], data.bytes), reserved),
        (e: unknown) => {
          this.dequeue(reserved);
          if (e instanceof BurnError) error(-1, e.op, e.message.slice(e.op.length + 2));
          else error(-1, 'read', describeError(e));
        },
      )
      .catch(() => {
        // Nothing above throws for a client's input; a rejection here must not end the process.
      });
  }

  private sync(seq: number): void {
    this.enqueue(0);
    Promise.resolve()
      .then(() => this.backend.sync?.())
      .then(
        () => this.deliver(encodeMessage(['synced', seq]), 0),
        (e: unknown) => this.deliver(encodeMessage(['error', seq, -1, 'sync', describeError(e)]), 0),
      );
  }
}

// --- argument reading ---

/** The bytes of a tensor's elements. */
function bytesOf(m: { readonly shape: readonly number[]; readonly dtype: DType }): number {
  return numel(m.shape) * dtypeSize(m.dtype);
}

function isId(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

function describe(v: unknown): string {
  let s: string;
  if (v instanceof Uint8Array) s = `<${v.byteLength} bytes>`;
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Reads a command's arguments in order, checking each one's type. */
class Reader<P extends TensorPrimitive> {
  private pos: number;

  /** Arguments start at `start` (after the name and the output handles). */
  constructor(
    private readonly handles: ReadonlyMap<number, Entry<P>>,
    private readonly name: string,
    private readonly command: readonly unknown[],
    readonly maxElements: number,
    private readonly start = 2,
  ) {
    this.pos = start;
  }

  private next(what: string, ok: (v: unknown) => boolean): unknown {
    const i = this.pos++;
    const v = this.command[i];
    if (i >= this.command.length || !ok(v))
      throw new BurnError(
        this.name,
        `argument ${i - this.start + 1} is ${i >= this.command.length ? 'missing' : describe(v)}; expected ${what}`,
      );
    return v;
  }

  /** Checks that no argument is left. */
  end(): void {
    if (this.command.length > this.pos)
      throw new BurnError(
        this.name,
        `${this.command.length - this.pos} extra arguments; expected ${this.pos - this.start}`,
      );
  }

  private lookup(id: number): P {
    const entry = this.handles.get(id);
    if (!entry) throw new BurnError(this.name, `unknown handle ${id} (never created, or already dropped)`);
    if (entry.failure) throw new Poisoned(entry.failure);
    return entry.tensor;
  }

  tensor(): P {
    return this.lookup(this.next('a handle id', isId) as number);
  }

  tensors(): P[] {
    const ids = this.next(
      'a non-empty list of handle ids',
      (v) => Array.isArray(v) && v.length > 0 && v.every(isId),
    ) as number[];
    return ids.map((id) => this.lookup(id));
  }

  int(): number {
    return this.next('an integer', (v) => Number.isSafeInteger(v)) as number;
  }

  bool(): boolean {
    return this.next('a boolean', (v) => typeof v === 'boolean') as boolean;
  }

  ints(): number[] {
    return this.next(
      `a list of at most ${MAX_RANK} integers`,
      (v) => Array.isArray(v) && v.length <= MAX_RANK && v.every((x) => Number.isSafeInteger(x)),
    ) as number[];
  }

  shape(): number[] {
    const max = this.maxElements;
    return this.next(
      `a shape (at most ${MAX_RANK} sizes, each 0..${max})`,
      (v) => Array.isArray(v) && v.length <= MAX_RANK && v.every((x) => Number.isSafeInteger(x) && x >= 0 && x <= max),
    ) as number[];
  }

  /** A finite or non-finite number; `'-0'` is negative zero. */
  number(): number {
    const v = this.next('a number', (x) => typeof x === 'number' || x === '-0');
    return v === '-0' ? -0 : (v as number);
  }

  optNumber(): number | undefined {
    const v = this.next('a number or null', (x) => x === null || typeof x === 'number' || x === '-0');
    return v === null ? undefined : v === '-0' ? -0 : (v as number);
  }

  dtype(): DType {
    const v = this.next('a dtype', (x) => typeof x === 'string');
    return assertDType(v, this.name);
  }

  oneOf<const O extends string>(table: readonly O[]): O {
    return this.next(
      `one of ${table.join(', ')}`,
      (v) => typeof v === 'string' && (table as readonly string[]).includes(v),
    ) as O;
  }

  specs(): ReturnType<typeof decodeSpecs> {
    const flat = this.next(
      'slice specs [start, size, step, ...]',
      (v) =>
        Array.isArray(v) && v.length % 3 === 0 && v.length <= 3 * MAX_RANK && v.every((x) => Number.isSafeInteger(x)),
    ) as number[];
    return decodeSpecs(flat);
  }

  /** A string of at most `max` characters. */
  text(max: number): string {
    return this.next(
      `a string of at most ${max} characters`,
      (v) => typeof v === 'string' && v.length <= max,
    ) as string;
  }

  bytes(): Uint8Array {
    return this.next('bytes', (v) => v instanceof Uint8Array) as Uint8Array;
  }

  dist(): Distribution {
    const v = this.next(
      'a distribution',
      (x) => Array.isArray(x) && typeof x[0] === 'string' && x.slice(1).every((n) => typeof n === 'number'),
    ) as [string, ...number[]];
    const [kind, a, b] = v;
    const arity = kind === 'default' ? 0 : kind === 'bernoulli' ? 1 : 2;
    if (v.length !== arity + 1)
      throw new BurnError(
        this.name,
        `distribution ${describe(v)}; expected ['default'], ['uniform', low, high], ['normal', mean, std] or ['bernoulli', p]`,
      );
    switch (kind) {
      case 'default':
        return Distribution.Default;
      case 'uniform':
        return Distribution.Uniform(a!, b!);
      case 'normal':
        return Distribution.Normal(a!, b!);
      case 'bernoulli':
        return Distribution.Bernoulli(a!);
      default:
        throw new BurnError(this.name, `unknown distribution ${describe(kind)}`);
    }
  }

  key(): RandomKey {
    const isU32 = (x: unknown) => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffffffff;
    const [key0, key1, stream] = this.next(
      'a random key [key0, key1, stream] of u32',
      (v) => Array.isArray(v) && v.length === 3 && v.every(isU32),
    ) as number[];
    return { key0: key0!, key1: key1!, stream: stream! };
  }
}

type Handler = <P extends TensorPrimitive>(r: Reader<P>, b: Backend<P>) => Plan<P>;

const one = <P>(m: Meta, run: () => P): Plan<P> => ({ metas: [m], run: () => [run()] });

/** One entry per op command: read and check the arguments, then run. */
const OPS: Record<OpCommand, Handler> = {
  fromData: (r, b) => {
    const dtype = r.dtype(),
      shape = r.shape(),
      bytes = r.bytes();
    const n = numel(shape);
    if (n > r.maxElements)
      throw new BurnError(
        'fromData',
        `shape ${fmt(shape)} has more than ${r.maxElements} elements (the server's maxElements)`,
      );
    if (bytes.byteLength !== n * dtypeSize(dtype))
      throw new BurnError(
        'fromData',
        `${bytes.byteLength} bytes for shape ${fmt(shape)} of ${dtype}; expected ${n * dtypeSize(dtype)}`,
      );
    return one({ shape, dtype }, () => b.fromData(TensorData.fromBytes(bytes, shape, dtype)));
  },
  fill: (r, b) => {
    const shape = r.shape(),
      value = r.number(),
      dtype = r.dtype();
    return one(rules.fill(shape, dtype), () => b.fill(shape, value, dtype));
  },
  reshape: (r, b) => {
    const p = r.tensor(),
      shape = r.shape();
    return one(rules.reshape(p, shape), () => b.reshape(p, shape));
  },
  permute: (r, b) => {
    const p = r.tensor(),
      axes = r.ints();
    return one(rules.permute(p, axes), () => b.permute(p, axes));
  },
  expand: (r, b) => {
    const p = r.tensor(),
      shape = r.shape();
    return one(rules.expand(p, shape), () => b.expand(p, shape));
  },
  slice: (r, b) => {
    const p = r.tensor(),
      specs = r.specs();
    return one(rules.slice(p, specs), () => b.slice(p, specs));
  },
  sliceAssign: (r, b) => {
    const p = r.tensor(),
      specs = r.specs(),
      values = r.tensor();
    return one(rules.sliceAssign(p, specs, values), () => b.sliceAssign(p, specs, values));
  },
  cat: (r, b) => {
    const ps = r.tensors(),
      dim = r.int();
    return one(rules.cat(ps, dim), () => b.cat(ps, dim));
  },
  unary: (r, b) => {
    const op = r.oneOf(UNARY_OPS),
      p = r.tensor();
    return one(rules.unary(p), () => b.unary(op, p));
  },
  predicate: (r, b) => {
    const op = r.oneOf(PREDICATE_OPS),
      p = r.tensor();
    return one(rules.predicate(p), () => b.predicate(op, p));
  },
  binary: (r, b) => {
    const op = r.oneOf(BINARY_OPS),
      x = r.tensor(),
      y = r.tensor();
    return one(rules.binary(op, x, y), () => b.binary(op, x, y));
  },
  compare: (r, b) => {
    const op = r.oneOf(COMPARE_OPS),
      x = r.tensor(),
      y = r.tensor();
    return one(rules.compare(op, x, y), () => b.compare(op, x, y));
  },
  where: (r, b) => {
    const cond = r.tensor(),
      x = r.tensor(),
      y = r.tensor();
    return one(rules.where(cond, x, y), () => b.where(cond, x, y));
  },
  cast: (r, b) => {
    const p = r.tensor(),
      dtype = r.dtype();
    return one(rules.cast(p, dtype), () => b.cast(p, dtype));
  },
  reduce: (r, b) => {
    const op = r.oneOf(REDUCE_OPS),
      p = r.tensor(),
      dims = r.ints();
    return one(rules.reduce(op, p, dims), () => b.reduce(op, p, dims));
  },
  argReduce: (r, b) => {
    const op = r.oneOf(ARG_OPS),
      p = r.tensor(),
      dim = r.int();
    return one(rules.argReduce(op, p, dim), () => b.argReduce(op, p, dim));
  },
  scan: (r, b) => {
    const op = r.oneOf(SCAN_OPS),
      p = r.tensor(),
      dim = r.int();
    return one(rules.alongDim('scan', p, dim), () => b.scan(op, p, dim));
  },
  gather: (r, b) => {
    const p = r.tensor(),
      dim = r.int(),
      indices = r.tensor();
    return one(rules.gather(p, dim, indices), () => b.gather(p, dim, indices));
  },
  scatter: (r, b) => {
    const op = r.oneOf(SCATTER_OPS),
      p = r.tensor(),
      dim = r.int(),
      indices = r.tensor(),
      values = r.tensor();
    return one(rules.scatter(p, dim, indices, values), () => b.scatter(op, p, dim, indices, values));
  },
  matmul: (r, b) => {
    const x = r.tensor(),
      y = r.tensor();
    return one(rules.matmul(x, y), () => b.matmul(x, y));
  },
  sort: (r, b) => {
    const p = r.tensor(),
      dim = r.int(),
      descending = r.bool();
    return { metas: rules.sort(p, dim), run: () => b.sort(p, dim, descending) };
  },
  random: (r, b) => {
    const shape = r.shape(),
      dist = r.dist(),
      dtype = r.dtype(),
      key = r.key();
    return one(rules.fill(shape, dtype), () => b.random(shape, dist, dtype, key));
  },
  arange: (r, b) => {
    const start = r.number(),
      end = r.number(),
      step = r.number(),
      dtype = r.dtype();
    return one(rules.arange(start, end, step, dtype), () => b.arange(start, end, step, dtype));
  },
  binaryScalar: (r, b) => {
    const op = r.oneOf(BINARY_OPS),
      p = r.tensor(),
      s = r.number();
    return one(rules.binary(op, p), () => b.binaryScalar(op, p, s));
  },
  compareScalar: (r, b) => {
    const op = r.oneOf(COMPARE_OPS),
      p = r.tensor(),
      s = r.number();
    return one(rules.compare(op, p), () => b.compareScalar(op, p, s));
  },
  clamp: (r, b) => {
    const p = r.tensor(),
      min = r.optNumber(),
      max = r.optNumber();
    return one(rules.unary(p), () => b.clamp(p, min, max));
  },
  maskFill: (r, b) => {
    const p = r.tensor(),
      mask = r.tensor(),
      value = r.number();
    return one(rules.maskFill(p, mask), () => b.maskFill(p, mask, value));
  },
  select: (r, b) => {
    const p = r.tensor(),
      dim = r.int(),
      indices = r.tensor();
    return one(rules.select(p, dim, indices), () => b.select(p, dim, indices));
  },
  selectAssign: (r, b) => {
    const op = r.oneOf(SCATTER_OPS),
      p = r.tensor(),
      dim = r.int(),
      indices = r.tensor(),
      values = r.tensor();
    return one(rules.selectAssign(p, dim, indices, values), () => b.selectAssign(op, p, dim, indices, values));
  },
  softmax: (r, b) => {
    const p = r.tensor(),
      dim = r.int();
    return one(rules.alongDim('softmax', p, dim), () => b.softmax(p, dim));
  },
  logSoftmax: (r, b) => {
    const p = r.tensor(),
      dim = r.int();
    return one(rules.alongDim('logSoftmax', p, dim), () => b.logSoftmax(p, dim));
  },
  checkIndices: (r, b) => {
    const p = r.tensor(),
      lo = r.number(),
      hi = r.number(),
      op = r.text(100),
      before = r.text(1000),
      after = r.text(1000);
    const error = (v: number | bigint) => new BurnError(op, `${before}${v}${after}`);
    return one(rules.checkedIndices(p), () => {
      // A backend that reads synchronously is checked here (the command fails); others check on the device.
      const data = b.toDataSync(p);
      if (data) {
        for (const v of data.values as Iterable<number | bigint>) if (!(v >= lo && v < hi)) throw error(v);
        return p;
      }
      return b.checkIndices ? b.checkIndices(p, lo, hi, error) : p;
    });
  },
};

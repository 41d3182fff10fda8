import type { TensorPrimitive } from '../../backend/backend.js';
import { NO_SCAN, type Releasable } from '../../backend/memory.js';
import { TensorData } from '../../core/data.js';
import { dtypeSize, type DType } from '../../core/dtype.js';
import { BurnError, currentUserOp, fmt, relabelError } from '../../core/errors.js';
import { numel, sameShape } from '../../core/shape.js';
import { CommandLabels } from './labels.js';
import {
  arrayHeader,
  checkMessage,
  concatParts,
  encodeMessage,
  messageDecoder,
  partsWithPayload,
  SUBPROTOCOL,
  tokenSubprotocol,
  type Command,
} from './protocol.js';

/** The part of the WebSocket API the client uses (the browser's `WebSocket` and the `ws` package both have it). */
export interface WebSocketLike {
  binaryType: string;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** A WebSocket implementation: `new (url, protocols) => socket` (protocols are offered only with a token). */
export type WebSocketConstructor = new (url: string, protocols?: string[]) => WebSocketLike;

/** The `ws` package's client, as far as it is used here. */
interface NodeWebSocket extends WebSocketLike {
  on(event: 'upgrade', listener: (response: { readonly socket: { ref(): void; unref(): void } }) => void): void;
}
type NodeWebSocketConstructor = new (
  url: string,
  protocols: string[],
  options: {
    perMessageDeflate: boolean;
    maxPayload: number;
    handshakeTimeout: number;
    generateMask(mask: Uint8Array): void;
  },
) => NodeWebSocket;

/**
 * Largest reply a client accepts (a `bin` cannot be larger either): in Node a larger frame closes
 * the connection before it is buffered, so a hostile server cannot make the client hold more.
 */
const MAX_REPLY_BYTES = 2 ** 31 - 1;

/** Milliseconds a Node client waits for the server to complete the handshake (then reads reject; no hang). */
const HANDSHAKE_TIMEOUT_MS = 30_000;

/**
 * A tensor on a remote server: its shape and dtype (known on the client, so ops stay
 * synchronous) and the id of the server's handle. The handle is freed on the server by
 * `dispose()`, at the end of a memory scope, or when this object is garbage-collected.
 */
export class RemoteTensor implements TensorPrimitive, Releasable {
  /** True once released; the handle must not be used afterwards. */
  released = false;

  constructor(
    readonly connection: Connection,
    readonly id: number,
    readonly shape: readonly number[],
    readonly dtype: DType,
  ) {}

  /** Frees the server's handle (idempotent). */
  release(): void {
    this.connection.release(this);
  }
}

interface Pending {
  /** What was asked: the reply must be of its kind. */
  readonly kind: 'read' | 'sync';
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Keeps the tensor being read alive until the reply. */
  readonly keep: RemoteTensor | undefined;
}

interface Failure {
  readonly seq: number;
  readonly error: BurnError;
}

/** Commands not yet sent. */
interface Frame {
  readonly commands: Command[];
  bytes: number;
}

const newFrame = (): Frame => ({ commands: [], bytes: 0 });

/** Commands per frame and queued bytes after which a frame is closed and a new one started. */
const FRAME_COMMANDS = 4096;
const FRAME_BYTES = 8 * 1024 * 1024;
/** Most ids in one `drop` command. */
const DROP_CHUNK = 65536;
/** Most unreported failures kept (the first ones). */
const MAX_FAILURES = 256;

/**
 * The client side of one WebSocket connection: allocates handle ids, queues commands (in order,
 * until the socket is open; flushed once per microtask turn as one frame), matches replies to
 * requests, keeps the failures the server reported until a read or sync surfaces them, and batches
 * the `drop`s of released tensors. In Node the socket keeps the process alive only while a reply
 * is awaited.
 *
 * The server is not trusted to be right: a reply must be the kind asked for, and a read's data
 * must have the dtype, shape and byte length of the tensor read, or that request rejects with a
 * BurnError. When the connection closes or fails, every pending request rejects with a BurnError
 * naming the URL and the reason, and later ops throw it.
 */
export class Connection {
  /** @internal Memory scopes do not search the connection for handles. */
  readonly [NO_SCAN] = true;
  private readonly socket: WebSocketLike;
  private state: 'connecting' | 'open' | 'closed' = 'connecting';
  private frames: Frame[] = [newFrame()];
  private flushScheduled = false;
  private seq = 0;
  private nextId = 1;
  private live = 0;
  private readonly pending = new Map<number, Pending>();
  private failures: Failure[] = [];
  /**
   * Commands whose failure belongs only to the tensors computed from their output (index checks):
   * the server poisons that output, so reads of what it guards reject, but the failure is not kept
   * for the next unrelated read or sync (the checked op may have thrown on the client, or its
   * result may never be read).
   */
  private readonly quiet = new Set<number>();
  /** The user op of commands sent while one ran: a failure reported later names it. */
  private readonly labels = new CommandLabels();
  private drops: number[] = [];
  private closeError: BurnError | undefined;
  private lastError: string | undefined;
  private fatal: string | undefined;
  private nodeSocket: { ref(): void; unref(): void } | undefined;
  private readonly decoder = messageDecoder(MAX_REPLY_BYTES);
  private readonly registry = new FinalizationRegistry<number>((id) => {
    this.live--;
    this.drop(id);
  });

  /** `token` is presented to the server at the handshake (see `ServerOptions.token`). */
  constructor(
    readonly url: string,
    WebSocketImpl?: WebSocketConstructor,
    token?: string,
  ) {
    try {
      const protocols = token === undefined ? [] : [SUBPROTOCOL, tokenSubprotocol(token)];
      this.socket = openSocket(url, protocols, WebSocketImpl, (s) => {
        this.nodeSocket = s;
        this.updateRef();
      });
    } catch (e) {
      if (e instanceof BurnError) throw e;
      throw new BurnError('Device.remote', `cannot connect to '${url}': ${e instanceof Error ? e.message : String(e)}`);
    }
    this.socket.binaryType = 'arraybuffer';
    this.socket.onopen = () => {
      if (this.state !== 'connecting') return;
      this.state = 'open';
      this.flush();
    };
    this.socket.onmessage = (event) => this.receive(event.data);
    this.socket.onerror = (event) => {
      const message = (event as { message?: unknown } | undefined)?.message;
      if (typeof message === 'string' && message !== '') this.lastError = message;
    };
    this.socket.onclose = (event) => {
      const why = this.fatal ?? this.lastError ?? `code ${event.code}${event.reason ? `: ${event.reason}` : ''}`;
      this.shut(`the connection to ${this.url} closed (${why})`);
    };
  }

  /** True once the connection is closed: every read rejects and ops throw. */
  get closed(): boolean {
    return this.state === 'closed';
  }

  /** Handles this client holds (created and not yet released). */
  get liveHandles(): number {
    return this.live;
  }

  // --- handles ---

  /** A new tensor handle of `shape` and `dtype` (its command is queued by the caller). */
  tensor(shape: readonly number[], dtype: DType): RemoteTensor {
    if (this.state === 'closed') throw this.closeError!;
    const t = new RemoteTensor(this, this.nextId++, shape, dtype);
    this.live++;
    this.registry.register(t, t.id, t);
    return t;
  }

  /** The id of `t` for a command, checking it belongs to this connection and was not released. */
  id(t: RemoteTensor): number {
    if (t.connection !== this)
      throw new BurnError(
        'remote',
        `a tensor of ${t.connection.url} was used on ${this.url}; expected tensors of one connection`,
      );
    if (t.released) throw new BurnError('remote', `a tensor of shape ${fmt(t.shape)} was used after dispose()`);
    return t.id;
  }

  /** Frees `t`'s handle on the server (idempotent). */
  release(t: RemoteTensor): void {
    if (t.released) return;
    t.released = true;
    this.live--;
    this.registry.unregister(t);
    this.drop(t.id);
  }

  private drop(id: number): void {
    if (this.state === 'closed') return;
    this.drops.push(id);
    this.schedule();
  }

  // --- commands and requests ---

  /**
   * Queues a command; returns its sequence number. A command with a tensor `payload` (appended as
   * its last element) is sent at once, in a frame of its own, when the socket is open (so the
   * caller's bytes are copied once, before this returns); before that it is queued with a copy.
   * A `quiet` command's failure surfaces only at reads of what is computed from its output.
   */
  send(command: Command, payload?: Uint8Array, quiet = false): number {
    if (this.state === 'closed') throw this.closeError!;
    // Released handles are dropped before the next command, so a server at its handle limit sees them freed.
    if (this.drops.length > 0) this.flushDrops();
    const seq = this.seq++;
    if (quiet) this.quiet.add(seq);
    const userOp = currentUserOp();
    if (userOp !== undefined) this.labels.add(seq, userOp);
    if (payload && this.state === 'open') {
      this.flush();
      this.transmit(concatParts([arrayHeader(1), ...partsWithPayload(command, payload)]));
      return seq;
    }
    const size = payload ? payload.byteLength : 0;
    let frame = this.frames[this.frames.length - 1]!;
    if (frame.commands.length >= FRAME_COMMANDS || (frame.bytes + size > FRAME_BYTES && frame.commands.length > 0)) {
      frame = newFrame();
      this.frames.push(frame);
    }
    frame.commands.push(payload ? [...command, payload.slice()] : command);
    frame.bytes += size;
    if (this.state === 'open' && this.frames.length > 1) this.flush();
    else this.schedule();
    return seq;
  }

  /** Reads `t` back. */
  read(t: RemoteTensor): Promise<TensorData> {
    if (this.state === 'closed') return Promise.reject(this.closeError!);
    return this.request('read', ['read', this.id(t)], t) as Promise<TensorData>;
  }

  /** Resolves once the server has finished every command sent before; rejects with the first unreported failure. */
  async sync(): Promise<void> {
    await this.request('sync', ['sync'], undefined);
  }

  private request(kind: Pending['kind'], command: Command, keep: RemoteTensor | undefined): Promise<unknown> {
    if (this.state === 'closed') return Promise.reject(this.closeError!);
    const seq = this.send(command);
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { kind, resolve, reject, keep });
      this.updateRef();
    });
  }

  /** Closes the connection; pending and later reads reject. */
  close(): void {
    if (this.state === 'closed') return;
    this.flush();
    this.shut(`the connection to ${this.url} was closed by the client`);
    this.socket.close(1000, 'client closed');
  }

  // --- sending ---

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Appends the batched drops as commands. */
  private flushDrops(): void {
    const all = this.drops;
    this.drops = [];
    for (let i = 0; i < all.length; i += DROP_CHUNK)
      this.send(['drop', all.length <= DROP_CHUNK ? all : all.slice(i, i + DROP_CHUNK)]);
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.state !== 'open') return;
    this.flushDrops();
    const frames = this.frames;
    this.frames = [newFrame()];
    for (const frame of frames) if (frame.commands.length > 0) this.transmit(encodeMessage(frame.commands));
  }

  private transmit(frame: Uint8Array): void {
    if (this.state !== 'open') return;
    try {
      this.socket.send(frame);
    } catch (e) {
      this.shut(`the connection to ${this.url} failed to send (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  // --- receiving ---

  private receive(data: unknown): void {
    let message: unknown;
    try {
      const bytes =
        data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : undefined;
      if (!bytes) throw new Error('a text frame');
      checkMessage(bytes, 2);
      message = this.decoder.decode(bytes);
      if (!Array.isArray(message)) throw new Error('not an array');
    } catch (e) {
      this.fatal = `malformed reply from the server: ${e instanceof Error ? e.message : String(e)}`;
      this.socket.close(1002, 'malformed reply');
      return;
    }
    const [kind, a, b, c, d, e] = message as unknown[];
    // A reply to command `a` means every command before it has run: their quiet marks are spent.
    if (this.quiet.size > 0 && kind !== 'fail') for (const q of this.quiet) if (q < Number(a)) this.quiet.delete(q);
    switch (kind) {
      case 'fail': {
        // Named after the user op the command ran for (a `take`, not the `select` that failed).
        const op = this.labels.fail(Number(a));
        if (this.quiet.delete(Number(a))) return;
        if (this.failures.length < MAX_FAILURES)
          this.failures.push({ seq: Number(a), error: relabelError(this.remoteError(b, c), op) as BurnError });
        return;
      }
      case 'data':
        this.labels.settle(Number(a));
        this.settle(Number(a), 'data', (p) => this.data(p, b, c, e));
        return;
      case 'synced':
        this.labels.settle(Number(a));
        this.settle(Number(a), 'synced', () => undefined);
        return;
      case 'error': {
        this.labels.settle(Number(a));
        // A poisoned read names its failure (`b`); any other error yields to an earlier unreported failure.
        const known = this.failures.findIndex((f) => f.seq === b);
        if (known >= 0) this.failures.splice(known, 1);
        else if (this.failures.some((f) => f.seq < Number(a))) {
          this.settle(Number(a), 'error', () => undefined);
          return;
        }
        this.take(Number(a))?.reject(
          relabelError(this.remoteError(c, d), typeof b === 'number' ? this.labels.failedOp(b) : undefined),
        );
        return;
      }
      case 'fatal':
        this.fatal = `the server ended the connection: ${String(a)}`;
        return;
    }
  }

  /** A read's data, checked against the tensor read (the server is not trusted to be right). */
  private data(p: Pending, dtype: unknown, shape: unknown, bytes: unknown): TensorData {
    const t = p.keep!;
    const what = `the server answered the read of a ${fmt(t.shape)} ${t.dtype} tensor`;
    const expected = numel(t.shape) * dtypeSize(t.dtype);
    if (dtype !== t.dtype || !Array.isArray(shape) || !sameShape(shape as number[], t.shape)) {
      const got = `${typeof dtype === 'string' ? dtype.slice(0, 20) : describe(dtype)} data of shape ${Array.isArray(shape) && shape.length <= 64 && shape.every((x) => typeof x === 'number') ? fmt(shape as number[]) : describe(shape)}`;
      throw new BurnError(
        'remote',
        `${what} with ${got}; expected ${t.dtype} ${fmt(t.shape)} (on remote(${this.url}))`,
      );
    }
    if (!(bytes instanceof Uint8Array))
      throw new BurnError(
        'remote',
        `${what} with ${describe(bytes)}; expected ${expected} bytes (on remote(${this.url}))`,
      );
    if (bytes.byteLength !== expected)
      throw new BurnError(
        'remote',
        `${what} with ${bytes.byteLength} bytes; expected ${expected} (on remote(${this.url}))`,
      );
    return TensorData.fromBytes(bytes, t.shape, t.dtype);
  }

  /** A server-side error as a BurnError naming the op that failed. */
  private remoteError(op: unknown, message: unknown): BurnError {
    return new BurnError(String(op), `${String(message)} (on remote(${this.url}))`);
  }

  private take(seq: number): Pending | undefined {
    const p = this.pending.get(seq);
    if (!p) return undefined;
    this.pending.delete(seq);
    this.updateRef();
    return p;
  }

  /**
   * Resolves request `seq` with `value` (which may throw: the request rejects), unless a command
   * before it failed unreported: then rejects with that failure. A reply of a kind the request
   * cannot have rejects it.
   */
  private settle(seq: number, reply: 'data' | 'synced' | 'error', value: (p: Pending) => unknown): void {
    const p = this.take(seq);
    if (!p) return;
    if ((reply === 'data' && p.kind !== 'read') || (reply === 'synced' && p.kind !== 'sync')) {
      const asked = p.kind === 'read' ? `the read of a ${fmt(p.keep!.shape)} ${p.keep!.dtype} tensor` : 'a sync';
      p.reject(
        new BurnError(
          'remote',
          `the server answered ${asked} with '${reply}'; expected '${p.kind === 'read' ? 'data' : 'synced'}' (on remote(${this.url}))`,
        ),
      );
      return;
    }
    const i = this.failures.findIndex((f) => f.seq < seq);
    if (i >= 0) {
      const [f] = this.failures.splice(i, 1);
      p.reject(f!.error);
      return;
    }
    try {
      p.resolve(value(p));
    } catch (e) {
      p.reject(e);
    }
  }

  private shut(message: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closeError = new BurnError(
      'remote',
      `${message}; the tensors on remote(${this.url}) are gone (Device.remote(url) connects again)`,
    );
    this.frames = [newFrame()];
    this.drops = [];
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.updateRef();
    for (const p of pending) p.reject(this.closeError);
  }

  /** In Node: the socket keeps the process alive only while replies are awaited. */
  private updateRef(): void {
    if (!this.nodeSocket) return;
    if (this.pending.size > 0) this.nodeSocket.ref();
    else this.nodeSocket.unref();
  }
}

/** A short description of a value from the server. */
function describe(v: unknown): string {
  if (v instanceof Uint8Array) return `<${v.byteLength} bytes>`;
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Opens a socket with `impl`, the `ws` package in Node, or the global `WebSocket` elsewhere; `protocols` are offered when not empty. */
function openSocket(
  url: string,
  protocols: string[],
  impl: WebSocketConstructor | undefined,
  onNodeSocket: (s: { ref(): void; unref(): void }) => void,
): WebSocketLike {
  if (impl) return protocols.length > 0 ? new impl(url, protocols) : new impl(url);
  const Ws = nodeWebSocket();
  if (Ws) {
    // No masking key (all zeros): masking guards browsers' intermediaries, not a Node client, and
    // costs a copy of every frame.
    const socket = new Ws(url, protocols, {
      perMessageDeflate: false,
      maxPayload: MAX_REPLY_BYTES,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      generateMask: (mask) => mask.fill(0),
    });
    socket.on('upgrade', (response) => onNodeSocket(response.socket));
    return socket;
  }
  const Global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Global)
    throw new BurnError(
      'Device.remote',
      'no WebSocket implementation here (the `ws` package in Node, `WebSocket` in a browser); pass one as options.WebSocket',
    );
  return protocols.length > 0 ? new Global(url, protocols) : new Global(url);
}

/** The `ws` package's WebSocket when running in Node (loaded synchronously, only when asked for). */
function nodeWebSocket(): NodeWebSocketConstructor | undefined {
  const proc = globalThis.process;
  if (!proc?.versions?.node) return undefined;
  const getBuiltin = proc.getBuiltinModule as ((id: string) => unknown) | undefined;
  if (typeof getBuiltin !== 'function')
    throw new BurnError(
      'Device.remote',
      `Node ${proc.versions.node} cannot load the \`ws\` package from ES modules here (needs Node >= 20.16)`,
    );
  const mod = getBuiltin('node:module') as { createRequire(url: string | URL): (id: string) => unknown };
  try {
    return (mod.createRequire(import.meta.url)('ws') as { WebSocket: NodeWebSocketConstructor }).WebSocket;
  } catch (e) {
    throw new BurnError(
      'Device.remote',
      `the \`ws\` package failed to load: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

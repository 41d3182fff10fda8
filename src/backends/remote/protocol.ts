import { Decoder, Encoder } from '@msgpack/msgpack';
import type { SliceSpec, SliceSpecs } from '../../backend/backend.js';
import type { RandomKey } from '../../backend/rng.js';
import type { Distribution } from '../../core/distribution.js';

/**
 * The wire protocol of the remote backend. Every WebSocket message is one binary frame holding a
 * MessagePack array; tensor bytes travel as MessagePack `bin` (raw little-endian element bytes,
 * the layout of `TensorData.bytes`), never as JSON.
 *
 * Client → server: a frame is an array of commands, run in order. Each command is an array whose
 * first element names it; every command has a sequence number, its position in the connection's
 * command stream (both sides count, starting at 0), which replies and failures refer to.
 *
 * - Tensor ops: `[op, out, ...args]` where `out` is the handle id the client allocated for the
 *   result (`[values, indices]` for `sort`) and tensor arguments are handle ids. `op` is one of
 *   {@link OP_COMMANDS}; the arguments follow the Backend method's, with slice specs flattened to
 *   `[start, size, step, ...]`, distributions as {@link encodeDist}, random keys as
 *   `[key0, key1, stream]`, scalars as {@link encodeScalar}, and `fromData` as
 *   `['fromData', out, dtype, shape, bytes]`. `['checkIndices', out, p, lo, hi, op, before, after]`
 *   checks that `p`'s values lie in `[lo, hi)`; one that does not fails the command with
 *   `BurnError(op, before + value + after)` (the client's message, so the user sees the tensor
 *   API's error), at once or (a backend that reads asynchronously) at the reads that depend on it.
 * - `['retain', out, p]`: a second handle on `p`'s value.
 * - `['drop', [ids...]]`: frees handles (garbage-collected or disposed tensors).
 * - `['read', p]`: replies `['data', seq, dtype, shape, pad, bytes]` (`pad`: spaces that align the
 *   bytes to 8 within the message) or `['error', seq, failSeq, op, message]`.
 * - `['sync']`: replies `['synced', seq]` once the server's backend has finished the work queued before it.
 *
 * Server → client: the replies above, `['fail', seq, op, message]` when command `seq` failed (its
 * outputs are then poisoned: reading them, or anything computed from them, gives that error), and
 * `['fatal', message]` before the server closes a connection that broke the protocol.
 */

/** The tensor ops a client may send (the required set plus the composites with cheap shape rules). */
export const OP_COMMANDS = [
  'fromData',
  'fill',
  'reshape',
  'permute',
  'expand',
  'slice',
  'sliceAssign',
  'cat',
  'unary',
  'predicate',
  'binary',
  'compare',
  'where',
  'cast',
  'reduce',
  'argReduce',
  'scan',
  'gather',
  'scatter',
  'matmul',
  'sort',
  'random',
  'arange',
  'binaryScalar',
  'compareScalar',
  'clamp',
  'maskFill',
  'select',
  'selectAssign',
  'softmax',
  'logSoftmax',
  'checkIndices',
] as const;
/** A tensor op command. */
export type OpCommand = (typeof OP_COMMANDS)[number];

/** The control commands. */
export const CONTROL_COMMANDS = ['retain', 'drop', 'read', 'sync'] as const;

/** One command as sent. */
export type Command = readonly unknown[];

/** Default limits of a server (see `ServerOptions`). */
export const DEFAULT_LIMITS = {
  /** Largest accepted frame. */
  maxMessageBytes: 256 * 1024 * 1024,
  /** Most elements of one tensor. */
  maxElements: 2 ** 28,
  /** Most live handles of one connection. */
  maxHandles: 1 << 20,
  /** Most bytes of the live tensors of one connection. */
  maxLiveBytes: 2 ** 30,
  /** Bytes of replies queued for one connection at which its commands wait. */
  maxQueuedReplyBytes: 16 * 1024 * 1024,
  /** Replies queued for one connection at which its commands wait. */
  maxQueuedReplies: 1024,
} as const;

/** The WebSocket subprotocol of the remote backend: a server selects it when a client offers it. */
export const SUBPROTOCOL = 'burn-ts';

/**
 * A client's token travels as a second offered subprotocol, this prefix and the token's UTF-8
 * bytes in base64url (browsers' WebSocket cannot set an `Authorization` header; a subprotocol is
 * a request header all the same, never part of the URL). The server never echoes it.
 */
export const TOKEN_SUBPROTOCOL_PREFIX = 'burn-ts.token.';

/** `token` as a subprotocol value ({@link TOKEN_SUBPROTOCOL_PREFIX}). */
export function tokenSubprotocol(token: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(token)) binary += String.fromCharCode(b);
  return TOKEN_SUBPROTOCOL_PREFIX + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Most dims of a tensor the server accepts. */
export const MAX_RANK = 64;

/** A scalar on the wire: a number, `null` for undefined, `'-0'` for negative zero (MessagePack has no integer -0). */
export type WireScalar = number | null | '-0';

/** Encodes a scalar argument. */
export function encodeScalar(v: number | undefined): WireScalar {
  return v === undefined ? null : Object.is(v, -0) ? '-0' : v;
}

/** A distribution on the wire. */
export function encodeDist(d: Distribution): readonly (string | number)[] {
  switch (d.kind) {
    case 'default':
      return ['default'];
    case 'uniform':
      return ['uniform', d.low, d.high];
    case 'normal':
      return ['normal', d.mean, d.std];
    case 'bernoulli':
      return ['bernoulli', d.prob];
  }
}

/** A random key on the wire. */
export function encodeKey(k: RandomKey): readonly number[] {
  return [k.key0, k.key1, k.stream];
}

/** Slice specs on the wire: `[start, size, step, ...]`. */
export function encodeSpecs(specs: SliceSpecs): number[] {
  const out: number[] = [];
  for (const s of specs) out.push(s.start, s.size, s.step);
  return out;
}

/** The inverse of {@link encodeSpecs} (the caller checked the values are integers). */
export function decodeSpecs(flat: readonly number[]): SliceSpec[] {
  const out: SliceSpec[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push({ start: flat[i]!, size: flat[i + 1]!, step: flat[i + 2]! });
  return out;
}

const encoder = new Encoder({ ignoreUndefined: false });

/** Encodes one message (a fresh buffer: it may be queued by the socket). */
export function encodeMessage(message: unknown): Uint8Array {
  return encoder.encode(message);
}

/** The MessagePack header of an array of `n` elements. */
export function arrayHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x90 + n);
  if (n < 0x10000) return Uint8Array.of(0xdc, n >>> 8, n & 0xff);
  return Uint8Array.of(0xdd, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** The MessagePack header of a `bin` of `n` bytes (always bin 32). */
function binHeader(n: number): Uint8Array {
  return Uint8Array.of(0xc6, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/**
 * `[...head, payload]` as MessagePack, in parts: the payload is referenced, not copied, so that
 * a frame copies tensor bytes once, when it is assembled ({@link concatParts}). `head` has fewer
 * than 15 elements.
 */
export function partsWithPayload(head: readonly unknown[], payload: Uint8Array): Uint8Array[] {
  const h = encodeMessage(head);
  h[0] = 0x90 + head.length + 1;
  return [h, binHeader(payload.byteLength), payload];
}

/** Concatenates parts into one fresh buffer. */
export function concatParts(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.byteLength;
  }
  return out;
}

/**
 * `[...head, pad, payload]` as one MessagePack message whose payload starts at a multiple of 8
 * bytes (`pad` is a short string of spaces), so the receiver can view the tensor bytes in place.
 */
export function encodeAligned(head: readonly unknown[], payload: Uint8Array): Uint8Array {
  const h = encodeMessage(head);
  h[0] = 0x90 + head.length + 2;
  const pad = (8 - ((h.byteLength + 1 + 5) % 8)) % 8;
  const padding = new Uint8Array(1 + pad).fill(0x20);
  padding[0] = 0xa0 + pad;
  return concatParts([h, padding, binHeader(payload.byteLength), payload]);
}

/**
 * A decoder for messages from an untrusted peer: no maps, no extension types, bounded strings and
 * arrays (`maxBytes` bounds `bin`).
 */
export function messageDecoder(maxBytes: number): Decoder {
  return new Decoder({
    maxStrLength: 4096,
    maxBinLength: maxBytes,
    maxArrayLength: 1 << 24,
    maxMapLength: 0,
    maxExtLength: 0,
  });
}

/**
 * Checks the structure of a MessagePack message before it is decoded: exactly one value, arrays
 * nested at most `maxDepth` deep and never claiming more elements than bytes remain, no maps and
 * no extension types. The decoder allocates an array's slots from its header, so this bounds the
 * memory a hostile message can make it allocate to a small multiple of the message's size.
 */
export function checkMessage(bytes: Uint8Array, maxDepth: number): void {
  const n = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const remaining: number[] = [1];
  let pos = 0;
  const need = (k: number) => {
    if (pos + k > n) throw new Error(`truncated at byte ${pos}`);
  };
  while (remaining.length > 0) {
    if (remaining[remaining.length - 1] === 0) {
      remaining.pop();
      continue;
    }
    remaining[remaining.length - 1]!--;
    need(1);
    const b = bytes[pos++]!;
    let skip = 0;
    let array = -1;
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) skip = 0;
    else if (b >= 0x90 && b <= 0x9f) array = b & 0x0f;
    else if (b >= 0xa0 && b <= 0xbf) skip = b & 0x1f;
    else {
      switch (b) {
        case 0xcc:
        case 0xd0:
          skip = 1;
          break;
        case 0xcd:
        case 0xd1:
          skip = 2;
          break;
        case 0xca:
        case 0xce:
        case 0xd2:
          skip = 4;
          break;
        case 0xcb:
        case 0xcf:
        case 0xd3:
          skip = 8;
          break;
        case 0xc4:
        case 0xd9:
          need(1);
          skip = view.getUint8(pos);
          pos += 1;
          break;
        case 0xc5:
        case 0xda:
          need(2);
          skip = view.getUint16(pos);
          pos += 2;
          break;
        case 0xc6:
        case 0xdb:
          need(4);
          skip = view.getUint32(pos);
          pos += 4;
          break;
        case 0xdc:
          need(2);
          array = view.getUint16(pos);
          pos += 2;
          break;
        case 0xdd:
          need(4);
          array = view.getUint32(pos);
          pos += 4;
          break;
        default:
          throw new Error(
            `unsupported MessagePack type 0x${b.toString(16)} at byte ${pos - 1} (maps and extensions are not part of the protocol)`,
          );
      }
    }
    if (array >= 0) {
      if (remaining.length >= maxDepth + 1) throw new Error(`arrays nested deeper than ${maxDepth}`);
      if (array > n - pos) throw new Error(`an array of ${array} elements in ${n - pos} remaining bytes`);
      remaining.push(array);
    } else {
      need(skip);
      pos += skip;
    }
  }
  if (pos !== n) throw new Error(`${n - pos} trailing bytes after the message`);
}

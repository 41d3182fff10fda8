// Fuzzing the remote backend's server with mutated frames. Real frames are recorded
// from clients running random tensor programs (tensor-program.ts) against a server in a worker
// thread (remote-worker.ts, loopback only, small limits); each case replays one recorded session on
// a raw `ws` connection with 1-3 structure-aware mutations (command names, handle ids, shapes,
// payloads, dtypes, duplication, nesting, MessagePack heads, bytes, text and oversized frames),
// then a `sync`. The server must answer with well-formed replies only (never an internal error),
// answer the sync or close the connection, never stall or crash, keep its memory bounded, free a
// closed connection's handles, and still serve a fresh valid client at the end.
//
// Seeded: BURN_FUZZ_SEED (default fixed), BURN_FUZZ_RUNS=10 runs ten times as many cases.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { Device, Tensor } from '../../src/index.js';
import type { RemoteBackend, WebSocketConstructor } from '../../src/backends/remote/index.js';
import { CONTROL_COMMANDS, encodeMessage, OP_COMMANDS } from '../../src/backends/remote/protocol.js';
import {
  applyByteMutations,
  concat,
  FUZZ_SEED,
  fuzzParams,
  fuzzRuns,
  mutateTree,
  Rng,
  type ByteMutation,
} from './arbitraries.js';
import type { RemoteReply, RemoteRequest } from './remote-worker.js';
import { programArb, runProgram } from './tensor-program.js';
import { FuzzWorker } from './worker.js';

// KNOWN: a zero-element tensor costs server time in the product of its non-zero dims (a permuted
// [0, 2^16, 2^16] read walks 2^32 rows). While true, the shape mutation never puts large dims
// next to a 0.
const KNOWN_EMPTY_TENSORS_WALK_ROWS = false;

/** How long a case's connection may go without its sync answered or the connection closed. */
const REPLY_MS = 10_000;
/** How long the test waits for the server worker's own answer before calling it a hang. */
const HANG_MS = 20_000;
/** Most the process's peak resident memory may grow during one case. */
const PEAK_BOUND = 256 << 20;
/** Sessions recorded (one random tensor program each). */
const SESSIONS = 24;

const RUNS = fuzzRuns(300);
const server = new FuzzWorker<Omit<RemoteRequest, 'id'>, RemoteReply>(
  new URL('./remote-worker.ts', import.meta.url),
  HANG_MS,
);
after(() => server.close());

let url = '';
let instance = 0;
const sessions: Uint8Array[][] = [];

/** Asks the server worker for its state; fails on a hang or a restarted (crashed) server. */
async function serverState(where: string): Promise<RemoteReply> {
  const r = await server.run({ cmd: 'stats' });
  if ('crashed' in r) assert.fail(`${where}: the server worker ${r.crashed}`);
  assert.equal(r.instance, instance, `${where}: the server was restarted (it crashed)`);
  assert.deepEqual(r.internal, [], `${where}: the server's backend threw non-BurnErrors:\n${r.internal.join('\n')}`);
  return r;
}

/** Records the frames a real client sends for `count` random tensor programs, one session each. */
async function record(count: number): Promise<Uint8Array[][]> {
  const out: Uint8Array[][] = [];
  const programs = fc.sample(programArb(), { numRuns: count, seed: FUZZ_SEED });
  for (let i = 0; i < programs.length; i++) {
    const frames: Uint8Array[] = [];
    // The `ws` client, its frames copied as they are sent.
    const Recording = class extends WebSocket {};
    const send = WebSocket.prototype.send;
    (Recording.prototype as unknown as { send: (data: Uint8Array, ...rest: unknown[]) => void }).send = function (
      this: WebSocket,
      data: Uint8Array,
      ...rest: unknown[]
    ) {
      frames.push(Uint8Array.from(data));
      (send as (...a: unknown[]) => void).call(this, data, ...rest);
    };
    const device = Device.remote(`${url}/record/${FUZZ_SEED}/${i}`, {
      WebSocket: Recording as unknown as WebSocketConstructor,
    });
    await runProgram(programs[i]!, device, false);
    await device.sync().catch(() => {});
    (device.backend as unknown as RemoteBackend).close();
    if (frames.length > 0) out.push(frames);
  }
  return out;
}

// --- mutations ---

const FRAME_KINDS = [
  'tree',
  'tree',
  'rename',
  'ids',
  'shape',
  'payload',
  'dup',
  'inject',
  'deep',
  'heads',
  'bytes',
  'text',
  'huge',
] as const;
type FrameKind = (typeof FRAME_KINDS)[number];

/** Mutations after which a frame is no longer a decodable protocol message. */
const RAW_KINDS: ReadonlySet<FrameKind> = new Set(['deep', 'heads', 'bytes', 'text', 'huge']);

const decoder = new Decoder({ useBigInt64: true });
const NAMES = [...OP_COMMANDS, ...CONTROL_COMMANDS, 'checkIndices', 'bogus', '', 'constructor', '__proto__'];

/** Every array of integers in a tree (shapes, axes, slice specs, id lists). */
function intArrays(node: unknown, out: number[][] = []): number[][] {
  if (Array.isArray(node)) {
    if (node.length > 0 && node.every((v) => typeof v === 'number' && Number.isInteger(v))) out.push(node as number[]);
    for (const v of node) intArrays(v, out);
  }
  return out;
}

/** A frame (or a text/oversized message) after one mutation. */
function mutateFrame(frame: Uint8Array, kind: FrameKind, rnd: Rng): Uint8Array | string {
  switch (kind) {
    case 'text':
      return new TextDecoder().decode(frame);
    case 'huge':
      return concat([
        Uint8Array.of(0x91, 0x92, 0xa4, ...new TextEncoder().encode('sync'), 0xc6, 0x00, 0x50, 0x00, 0x00),
        new Uint8Array(5 << 20),
      ]);
    case 'deep':
      return concat([new Uint8Array(rnd.pick([4, 64, 10_000])).fill(0x91), Uint8Array.of(0xc0)]);
    case 'heads': {
      const head = rnd.pick([
        [0xdd, 0xff, 0xff, 0xff, 0xff],
        [0xdf, 0, 0, 0, 1],
        [0xc7, 1, 1, 0],
        [0xc6, 0x7f, 0xff, 0xff, 0xff],
        [0x81, 0xa1, 0x61, 0x01],
        [0xc1],
      ]);
      const at = rnd.int(0, frame.length);
      return concat([frame.subarray(0, at), Uint8Array.from(head), frame.subarray(at)]);
    }
    case 'bytes': {
      const muts: ByteMutation[] = [
        { kind: 'flip', at: rnd.next(), mask: rnd.int(1, 255) },
        { kind: 'truncate', at: rnd.next() },
      ];
      return applyByteMutations(frame, [rnd.pick(muts)]);
    }
    default:
      break;
  }
  let tree: unknown;
  try {
    tree = decoder.decode(frame);
  } catch {
    return frame;
  }
  if (!Array.isArray(tree)) return frame;
  const commands = tree.filter((c): c is unknown[] => Array.isArray(c));
  const command = commands.length > 0 ? rnd.pick(commands) : undefined;
  switch (kind) {
    case 'tree':
      for (let i = 0, n = rnd.int(1, 3); i < n; i++) mutateTree(tree, rnd, true);
      break;
    case 'rename':
      if (command) command[0] = rnd.pick(NAMES);
      break;
    case 'ids':
      if (command && command.length > 1)
        command[rnd.int(1, command.length - 1)] = rnd.pick([
          0,
          1,
          2,
          3,
          7,
          4095,
          4096,
          2 ** 31,
          2 ** 53 - 1,
          -1,
          1.5,
          [1, 1],
          [],
          null,
        ]);
      break;
    case 'shape': {
      const arrays = intArrays(tree);
      if (arrays.length === 0) break;
      const shapes = [
        [1 << 16, 1 << 16],
        [1 << 17],
        [65536, 2],
        Array(65).fill(1),
        [-1],
        [2 ** 53],
        [3, 0, 5],
        [0],
        [],
      ];
      if (!KNOWN_EMPTY_TENSORS_WALK_ROWS) shapes.push([0, 1 << 16, 1 << 16], [1 << 16, 0, 1 << 16, 1 << 16]);
      const target = rnd.pick(arrays);
      target.splice(0, target.length, ...rnd.pick(shapes));
      break;
    }
    case 'payload': {
      const cmd = commands.find((c) => c.some((v) => v instanceof Uint8Array));
      if (cmd) {
        const at = cmd.findIndex((v) => v instanceof Uint8Array);
        const bytes = cmd[at] as Uint8Array;
        cmd[at] = rnd.pick([
          new Uint8Array(0),
          bytes.subarray(0, Math.max(0, bytes.length - 1)),
          concat([bytes, Uint8Array.of(1)]),
          new Uint8Array(bytes.length * 4 + 8).fill(0xff),
        ]);
      }
      break;
    }
    case 'dup':
      if (command) for (let i = 0, n = rnd.int(2, 40); i < n; i++) tree.push(structuredClone(command));
      break;
    case 'inject': {
      // A valid command sequence on hostile shapes: create, view (permute, expand, slice), compute, read.
      const shapes: number[][] = [
        [0],
        [0, 3],
        [5, 0, 7],
        [1 << 16],
        [1 << 8, 1 << 8],
        [(1 << 16) + 1],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      ];
      if (!KNOWN_EMPTY_TENSORS_WALK_ROWS)
        shapes.push([0, 1 << 16, 1 << 16], [1 << 16, 1 << 16, 0], [0, 1 << 16, 1 << 16, 1 << 16]);
      const shape = rnd.pick(shapes);
      const base = 3000 + rnd.int(0, 900);
      const perm = rnd.perm(shape.length);
      tree.push(
        ['fill', base, shape, 1.5, rnd.pick(['f32', 'i32', 'bool', 'f64'])],
        ['permute', base + 1, base, perm],
        rnd.pick([
          ['unary', base + 2, 'exp', base + 1],
          ['cast', base + 2, base + 1, 'f64'],
          ['reduce', base + 2, 'sum', base + 1, [0]],
          ['scan', base + 2, 'sum', base + 1, 0],
          ['sort', [base + 2, base + 5], base + 1, 0, false],
        ]),
        ['read', base + 2],
        ['drop', [base, base + 1, base + 2]],
      );
      break;
    }
  }
  try {
    return encodeMessage(tree);
  } catch {
    return frame;
  }
}

// --- the raw client ---

/** Checks one reply's form; returns a message when it is not a protocol reply. */
function malformed(m: unknown): string | undefined {
  if (!Array.isArray(m) || typeof m[0] !== 'string') return `not [kind, ...]: ${JSON.stringify(m)?.slice(0, 120)}`;
  const int = (v: unknown) => Number.isSafeInteger(v);
  const str = (v: unknown) => typeof v === 'string';
  switch (m[0]) {
    case 'fail':
      if (!(m.length === 4 && int(m[1]) && str(m[2]) && str(m[3])))
        return `bad fail reply ${JSON.stringify(m).slice(0, 160)}`;
      if ((m[3] as string).startsWith('internal error'))
        return `an internal server error: ${JSON.stringify(m).slice(0, 400)}`;
      return undefined;
    case 'error':
      return m.length === 5 && int(m[1]) && int(m[2]) && str(m[3]) && str(m[4])
        ? undefined
        : `bad error reply ${JSON.stringify(m).slice(0, 160)}`;
    case 'data':
      return m.length === 6 && int(m[1]) && str(m[2]) && Array.isArray(m[3]) && str(m[4]) && m[5] instanceof Uint8Array
        ? undefined
        : `bad data reply ${JSON.stringify(m).slice(0, 160)}`;
    case 'synced':
      return m.length === 2 && int(m[1]) ? undefined : `bad synced reply ${JSON.stringify(m)}`;
    case 'fatal':
      return m.length === 2 && str(m[1]) ? undefined : `bad fatal reply ${JSON.stringify(m).slice(0, 160)}`;
    default:
      return `unknown reply kind ${JSON.stringify(m).slice(0, 160)}`;
  }
}

/** Sends `frames` then a sync on a fresh connection; resolves when the sync is answered or the server closed the connection. */
async function exchange(
  frames: readonly (Uint8Array | string)[],
): Promise<{ replies: unknown[]; closed: number | undefined; answered: boolean }> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const replies: unknown[] = [];
  let closed: number | undefined;
  let answered = false;
  const dec = new Decoder();
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, REPLY_MS);
    ws.on('message', (data: Buffer) => {
      let m: unknown;
      try {
        m = dec.decode(data);
      } catch (e) {
        m = `undecodable reply (${(e as Error).message})`;
      }
      replies.push(m);
      if (Array.isArray(m) && m[0] === 'synced') {
        answered = true;
        clearTimeout(timer);
        resolve();
      }
    });
    ws.on('close', (code) => {
      closed = code;
      clearTimeout(timer);
      resolve();
    });
    ws.on('error', () => {});
  });
  await new Promise<void>((resolve) => {
    ws.once('open', () => resolve());
    ws.once('close', () => resolve());
  });
  if (ws.readyState === ws.OPEN) {
    for (const f of frames) ws.send(f, { binary: typeof f !== 'string' });
    ws.send(encodeMessage([['sync']]));
  }
  await done;
  ws.terminate();
  return { replies, closed, answered };
}

describe('fuzz: mutated remote frames get well-formed errors and never stall, crash or bloat the server', () => {
  before(
    async () => {
      const r = await server.run({ cmd: 'url' });
      if ('crashed' in r) throw new Error(r.crashed);
      url = r.url;
      instance = r.instance;
      sessions.push(...(await record(SESSIONS)));
    },
    { timeout: 120_000 },
  );

  it(`${RUNS} mutated sessions`, { timeout: 300_000 }, async () => {
    assert.ok(sessions.length >= SESSIONS / 2, `only ${sessions.length} sessions recorded`);
    const arb = fc.record({
      session: fc.nat(),
      mutations: fc.array(fc.record({ frame: fc.nat(), kind: fc.constantFrom(...FRAME_KINDS), seed: fc.nat() }), {
        minLength: 1,
        maxLength: 3,
      }),
    });
    const seen = { answered: 0, closed: 0 };
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const session = sessions[c.session % sessions.length]!;
        const frames: (Uint8Array | string)[] = [...session];
        // A frame that is no longer a protocol message (raw bytes, nesting, text, oversized) takes no further mutation.
        const raw = new Set<number>();
        for (const m of c.mutations) {
          const i = m.frame % frames.length;
          if (raw.has(i)) continue;
          frames[i] = mutateFrame(frames[i] as Uint8Array, m.kind, new Rng(m.seed));
          if (RAW_KINDS.has(m.kind)) raw.add(i);
        }
        const peak0 = process.resourceUsage().maxRSS * 1024;
        const r = await exchange(frames);
        const state = await serverState('after the case');
        for (const m of r.replies) {
          const bad = malformed(m);
          if (bad) assert.fail(bad);
        }
        assert.ok(
          r.answered || r.closed !== undefined,
          `the server neither answered the sync nor closed the connection within ${REPLY_MS} ms (${r.replies.length} replies)`,
        );
        const growth = process.resourceUsage().maxRSS * 1024 - peak0;
        assert.ok(growth <= PEAK_BOUND, `the peak memory grew by ${(growth / 2 ** 20).toFixed(0)} MiB during the case`);
        void state;
        seen[r.answered ? 'answered' : 'closed']++;
      }),
      fuzzParams(RUNS),
    );
    assert.ok(
      seen.answered > 0 && seen.closed > 0,
      `answered ${seen.answered}, closed ${seen.closed}: the mutations should produce both`,
    );
  });

  it('frees every closed connection and still serves a fresh valid client', async () => {
    // Closed connections release their handles (asynchronously, as the server sees the close).
    let state = await serverState('at the end');
    for (let i = 0; i < 50 && (state.stats.connections > 0 || state.stats.handles > 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = await serverState('at the end');
    }
    assert.deepEqual(state.stats, { connections: 0, handles: 0 });
    const device = Device.remote(`${url}/fresh/${FUZZ_SEED}`);
    const values = Array.from((await Tensor.fromFloats([1, 2, 3], device).mul(2).sum().toData()).toArray());
    assert.deepEqual(values, [12]);
    (device.backend as unknown as RemoteBackend).close();
  });
});

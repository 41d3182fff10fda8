// The remote backend (burn-ts/remote): a client device whose ops run on a server over WebSocket.
// The conformance suite runs on it too (test/helpers/devices.ts, entry `remote`); this file covers
// what is specific to it: results and seeded draws equal local ones, autodiff over it, errors
// from the server surfacing at the next read with the op named, hostile messages that leave the
// server running, server handles freed without user calls, and close/reconnect behaviour.
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { after, describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import { WebSocket } from 'ws';
import {
  activation,
  BurnError,
  Device,
  Distribution,
  functional as F,
  Tensor,
  TensorData,
  type Int,
} from '../../src/index.js';
import { RemoteBackend, startServer, type RemoteServer } from '../../src/backends/remote/index.js';
import {
  ARG_OPS,
  BINARY_OPS,
  COMPARE_OPS,
  PREDICATE_OPS,
  REDUCE_OPS,
  SCAN_OPS,
  SCATTER_OPS,
  UNARY_OPS,
} from '../../src/backend/ops.js';
import { encodeMessage, OP_COMMANDS, type OpCommand } from '../../src/backends/remote/protocol.js';
import { ProtocolError, Session } from '../../src/backends/remote/session.js';
import { remoteServer } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const cpu = Device.cpu({ engine: 'js' });
const remote = () => Device.remote(remoteServer.url);
const values = async (t: { toData(): Promise<TensorData> }) => Array.from((await t.toData()).toArray());
const isBurn = (pattern: RegExp, op?: string) => (e: unknown) => {
  assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
  assert.match(e.message, pattern);
  if (op !== undefined) assert.equal(e.op, op);
  return true;
};
const servers: RemoteServer[] = [];
const extraServer = async (options = {}) => {
  const s = await startServer(cpu, 0, options);
  servers.push(s);
  return s;
};
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('remote device', () => {
  it('runs ops on the server: results equal the CPU', async () => {
    cpu.seed(3);
    const a = Tensor.random([64, 32], Distribution.Normal(0, 1), cpu);
    const b = Tensor.random([32, 16], Distribution.Normal(0, 1), cpu);
    const expected = await values(a.matmul(b).relu().sumDim(1));
    const d = remote();
    const out = a.toDevice(d).matmul(b.toDevice(d)).relu().sumDim(1);
    assert.deepEqual(out.dims(), [64, 1]);
    const got = await values(out);
    got.forEach((v, i) =>
      assert.ok(Math.abs(v - expected[i]!) <= 1e-4 * Math.max(1, Math.abs(expected[i]!)), `${v} vs ${expected[i]}`),
    );
  });

  it('is named remote(url), one device per URL, and checks the URL', () => {
    assert.equal(String(remote()), `remote(${remoteServer.url})`);
    assert.equal(remote(), remote());
    assert.equal(remote().info()['name'], `remote(${remoteServer.url})`);
    assert.throws(
      () => Device.remote('http://127.0.0.1:1'),
      isBurn(/url 'http:\/\/127\.0\.0\.1:1'; expected ws:\/\/host:port/, 'Device.remote'),
    );
    assert.throws(
      () => Device.remote('ws://bad host:1'),
      isBurn(/cannot connect to 'ws:\/\/bad host:1': .*Invalid URL/, 'Device.remote'),
    );
  });

  it('keeps every dtype and shape through a round trip (binary frames)', async () => {
    const d = remote();
    for (const dtype of ['f64', 'f32', 'f16', 'bf16', 'i64', 'i32', 'i16', 'i8', 'u32', 'u16', 'u8'] as const) {
      const data = new TensorData(
        [1, 2, dtype.startsWith('u') ? 5 : -0.5, 3, 0, 7].map((v) =>
          dtype[0] === 'f' || dtype[0] === 'b' ? v : Math.trunc(v),
        ),
        [2, 3],
        dtype,
      );
      const back = await Tensor.fromData(data, d).toData();
      assert.equal(back.dtype, dtype);
      assert.deepEqual(back.shape, [2, 3]);
      assert.deepEqual(Array.from(back.toArray()), Array.from(data.toArray()), dtype);
    }
    const bools = Tensor.fromBools([true, false, true], d);
    assert.deepEqual(await values(bools), [1, 0, 1]);
    const empty = Tensor.zeros([0, 3], d);
    assert.deepEqual((await empty.toData()).shape, [0, 3]);
    // Negative zero survives as a scalar (MessagePack has no integer -0).
    const negZero = await values(Tensor.full([1], -0, d));
    assert.ok(Object.is(negZero[0], -0));
  });

  it('reads asynchronously only: toDataSync and toDevice say to await', async () => {
    const t = Tensor.ones([2], remote());
    assert.throws(() => t.toDataSync(), isBurn(/cannot read synchronously; use await tensor\.toData\(\)/));
    assert.throws(() => t.toDevice(cpu), isBurn(/toDeviceAsync/));
    assert.deepEqual(await values(await t.toDeviceAsync(cpu)), [1, 1]);
  });

  it('seeded random draws equal local ones (the client sends the random key)', async () => {
    const d = remote();
    for (const [dist, dtype] of [
      [Distribution.Normal(1, 2), 'f32'],
      [Distribution.Uniform(-3, 5), 'f64'],
      [Distribution.Bernoulli(0.3), 'f32'],
      [Distribution.Default, 'i32'],
    ] as const) {
      d.seed(11);
      cpu.seed(11);
      const r = Tensor.random([5, 7], dist, { device: d, dtype } as never);
      const l = Tensor.random([5, 7], dist, { device: cpu, dtype } as never);
      assert.deepEqual(await values(r), await values(l), `${dist.kind} ${dtype}`);
    }
  });

  it('device.sync() waits for the server', async () => {
    const server = await extraServer();
    const d = Device.remote(server.url);
    const x = Tensor.ones([100, 100], d).matmul(Tensor.ones([100, 100], d));
    assert.equal(server.stats().handles, 0, 'nothing has reached the server yet');
    await d.sync();
    assert.deepEqual(server.stats(), { connections: 1, handles: 3 });
    assert.equal(
      (
        await x
          .slice([
            [0, 1],
            [0, 1],
          ])
          .toData()
      ).toArray()[0],
      100,
    );
  });
});

describe('remote autodiff', () => {
  const ad = () => remote().autodiff();
  const ref = { reference: cpu };

  it('backward over the remote device gives the gradients', async () => {
    const w = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
      ],
      ad(),
    ).requireGrad();
    const x = Tensor.fromFloats(
      [
        [1, -1],
        [2, 0.5],
      ],
      ad(),
    );
    const grads = x.matmul(w).tanh().sum().backward();
    const local = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
      ],
      cpu.autodiff(),
    ).requireGrad();
    const lg = Tensor.fromFloats(
      [
        [1, -1],
        [2, 0.5],
      ],
      cpu.autodiff(),
    )
      .matmul(local)
      .tanh()
      .sum()
      .backward();
    const got = await values(w.grad(grads)!),
      want = await values(local.grad(lg)!);
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-6));
  });

  for (const [name, shapes, f] of [
    [
      'matmul tanh',
      [
        [3, 4],
        [4, 2],
      ],
      (a: Tensor<number>, b: Tensor<number>) => a.matmul(b).tanh(),
    ],
    ['logSoftmax', [[2, 5]], (a: Tensor<number>) => activation.logSoftmax(a, 1)],
    [
      'conv2d',
      [
        [1, 2, 5, 5],
        [3, 2, 3, 3],
      ],
      (x: Tensor<number>, w: Tensor<number>) =>
        F.conv2d(x as Tensor<4>, w as Tensor<4>, undefined, { padding: [1, 1] }),
    ],
    [
      'gather and sort',
      [[3, 4]],
      (a: Tensor<number>) =>
        a
          .sort(1)
          .add(a.gather(0, Tensor.fromInts([[2, 0, 1, 1]], a.device()) as unknown as Tensor<number, Int>).mul(2)),
    ],
  ] as const) {
    it(`matches finite differences: ${name}`, async () => {
      const err = await gradCheck(
        ad(),
        shapes.map((shape) => ({ shape: [...shape] })),
        f as never,
        3,
        ref,
      );
      assert.ok(err < 1e-6, `relative error ${err}`);
    });
  }
});

describe('remote errors', () => {
  it('a server error surfaces at the next read, naming the op, and poisons what depends on it', async () => {
    const d = remote();
    const x = Tensor.fromFloats([1, 2, 3], d);
    const bad = x.gather(0, Tensor.fromInts([0, 7], d) as never); // index 7 is out of range on the server
    const dependent = bad.mul(2).add(1);
    const fine = x.mul(10);
    await assert.rejects(
      fine.toData(),
      isBurn(/index 7 is out of bounds for dim 0 of size 3.*on remote\(ws:/, 'gather'),
    );
    assert.deepEqual(await values(fine), [10, 20, 30], 'reported once; later reads of healthy tensors succeed');
    await assert.rejects(dependent.toData(), isBurn(/index 7 is out of bounds/, 'gather'));
    await assert.rejects(bad.toData(), isBurn(/index 7 is out of bounds/, 'gather'));
  });

  it('device.sync() rejects with an earlier unreported failure', async () => {
    const d = remote();
    const x = Tensor.fromFloats([[1, 2]], d);
    x.scatter(1, Tensor.fromInts([[5, 0]], d) as never, Tensor.fromFloats([[1, 1]], d), 'add');
    await assert.rejects(d.sync(), isBurn(/index 5 is out of bounds/, 'scatter'));
    await d.sync();
  });

  it("oneHot checks its class indices on the server (checkIndices): an out-of-range one fails with the tensor API's message", async () => {
    const d = remote();
    assert.deepEqual(await values(Tensor.fromInts([0, 2, -1], d).oneHot(3)), [1, 0, 0, 0, 0, 1, 0, 0, 1]);
    const bad = Tensor.fromInts([0, 5], d).oneHot(3);
    await assert.rejects(
      bad.toData(),
      isBurn(/^oneHot: class index 5 is out of range for 3 classes \(on remote\(ws:/, 'oneHot'),
    );
    await assert.rejects(
      bad.toData(),
      isBurn(/class index 5 is out of range for 3 classes/, 'oneHot'),
      'what is computed from it stays poisoned',
    );
    await assert.rejects(
      Tensor.fromInts([[-4]], d)
        .oneHot(3)
        .sum()
        .toData(),
      isBurn(/class index -4 is out of range for 3 classes/, 'oneHot'),
    );
    assert.deepEqual(await values(Tensor.fromInts([1], d).oneHot(2)), [0, 1], 'the connection goes on');
  });

  it('a tensor used after dispose() throws at once', () => {
    const t = Tensor.ones([3], remote());
    t.dispose();
    t.dispose();
    assert.throws(() => t.add(1), isBurn(/used after dispose\(\)/)); // the tensor API may name its op (`add`)
  });

  it('startServer checks its port and options, and reports a port in use', async () => {
    await assert.rejects(startServer(cpu, -1), isBurn(/port -1; expected an integer in 0\.\.65535/, 'startServer'));
    await assert.rejects(
      startServer(cpu, 0, { maxElements: 0 }),
      isBurn(/maxElements 0; expected an integer/, 'startServer'),
    );
    await assert.rejects(
      startServer(cpu, remoteServer.port),
      isBurn(/cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/, 'startServer'),
    );
  });
});

/** A raw protocol client: sends frames, collects decoded replies, reports the close. */
function rawClient(url: string) {
  const ws = new WebSocket(url);
  const replies: unknown[][] = [];
  const waiters: (() => void)[] = [];
  const decoder = new Decoder();
  ws.on('message', (data: Buffer) => {
    replies.push(decoder.decode(data) as unknown[]);
    waiters.splice(0).forEach((w) => w());
  });
  const opened = new Promise<void>((resolve) => ws.once('open', () => resolve()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return {
    opened,
    closed,
    send: (message: unknown) =>
      ws.send(message instanceof Uint8Array || typeof message === 'string' ? message : encodeMessage(message)),
    /** The next reply of `kind`. */
    async next(kind: string): Promise<unknown[]> {
      for (;;) {
        const i = replies.findIndex((r) => r[0] === kind);
        if (i >= 0) return replies.splice(i, 1)[0]!;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () => ws.close(),
  };
}

/** The server answers a fresh client correctly: it is still running. */
async function stillServes(server: RemoteServer): Promise<void> {
  const d = new Device(new RemoteBackend(server.url) as never, 'probe');
  assert.deepEqual(await values(Tensor.fromFloats([1, 2], d).mul(3)), [3, 6]);
  (d.backend as unknown as RemoteBackend).close();
  await until(() => server.stats().connections === 0);
}

/** Waits (up to 2 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), 'timed out');
}

describe('remote server under hostile messages', () => {
  it('garbage, text frames, maps, deep nesting and oversized array headers close that connection only', async () => {
    const server = await extraServer();
    const frames: (Uint8Array | string)[] = [
      new Uint8Array([0xc1, 0xff, 0x00, 0x13]), // not MessagePack
      'hello', // a text frame
      encodeMessage({ op: 'fill' }), // a map
      encodeMessage([[[['deep']]]]), // nested deeper than the protocol
      new Uint8Array([0xdd, 0x7f, 0xff, 0xff, 0xff]), // an array claiming 2^31 elements
      encodeMessage(42), // not an array of commands
      new Uint8Array([0x91, 0x92, 0xa4, 0x73, 0x79, 0x6e, 0x63]), // truncated
    ];
    for (const frame of frames) {
      const c = rawClient(server.url);
      await c.opened;
      c.send(frame);
      const fatal = await c.next('fatal');
      assert.equal(typeof fatal[1], 'string');
      const { code } = await c.closed;
      assert.equal(code, 1008, `closed as a protocol violation: ${String(fatal[1])}`);
    }
    await stillServes(server);
    assert.equal(server.stats().handles, 0);
  });

  it('unknown ops, bad arguments, unknown handles and oversized shapes fail that command; the connection goes on', async () => {
    const server = await extraServer({ maxElements: 1000 });
    const c = rawClient(server.url);
    await c.opened;
    const cases: [command: unknown, op: string, pattern: RegExp][] = [
      [['explode', 1, 2], 'remote', /unknown command "explode"/],
      [['unary', 2, 'frobnicate', 0], 'unary', /argument 1 is "frobnicate"; expected one of neg, abs/],
      [['binary', 3, 'add', 99, 98], 'binary', /unknown handle 99/],
      [['fill', 4, [1e6, 1e6], 0, 'f32'], 'fill', /shape \(at most 64 sizes, each 0\.\.1000\)/],
      [['fill', 5, [100, 100], 0, 'f32'], 'fill', /more than 1000 elements \(the server's maxElements\)/],
      [['fill', 6, [2], 0, 'f99'], 'fill', /unknown dtype "f99"/],
      [['fill', 7, [2], 0, 'f32', 'extra'], 'fill', /1 extra arguments/],
      [['fill', -1, [2], 0, 'f32'], 'fill', /output handles -1; expected a non-negative integer id/],
      [['fromData', 8, 'f32', [4], new Uint8Array(3)], 'fromData', /3 bytes for shape \[4\] of f32; expected 16/],
      [['slice', 9, 100, [0, 5, 1]], 'slice', /unknown handle 100/],
      [['random', 10, [2], ['cauchy'], 'f32', [1, 2, 3]], 'random', /distribution \["cauchy"\]/],
      [['arange', 11, 0, 1, 0, 'f32'], 'arange', /non-zero step/],
      [42, 'remote', /command \d+ is 42; expected \[name, \.\.\.arguments\]/],
      [['drop', 'all'], 'drop', /expected a list of handle ids/],
    ];
    for (const [command, op, pattern] of cases) {
      c.send([command]);
      const fail = await c.next('fail');
      assert.equal(fail[2], op, `op of ${JSON.stringify(command)}`);
      assert.match(String(fail[3]), pattern);
    }
    // Shapes and handles checked by the shape rules, before the backend sees them.
    c.send([
      ['fill', 20, [2, 3], 1, 'f32'],
      ['fill', 21, [4, 5], 1, 'f32'],
    ]);
    const rules: [command: unknown[], op: string, pattern: RegExp][] = [
      [['matmul', 22, 20, 21], 'matmul', /inner dimensions differ: lhs \[2, 3\] and rhs \[4, 5\]/],
      [['slice', 23, 20, [0, 2, 1, 2, 2, 1]], 'slice', /slice \{start: 2, size: 2, step: 1\} of dim 1 of size 3/],
      [['reshape', 24, 20, [7]], 'reshape', /cannot reshape \[2, 3\]/],
      [['permute', 25, 20, [0, 0]], 'permute', /expected a permutation/],
      [['fill', 20, [1], 0, 'f32'], 'fill', /output handle 20 is already in use/],
      [['where', 26, 20, 20, 20], 'where', /mask of dtype f32; expected bool/],
      [['reduce', 27, 'sum', 20, [0, 0]], 'sum', /repeat a dimension/],
    ];
    for (const [command, op, pattern] of rules) {
      c.send([command]);
      const fail = await c.next('fail');
      assert.equal(fail[2], op);
      assert.match(String(fail[3]), pattern);
    }
    // A read of a failed command's output names the failure; a healthy read works on the same connection.
    c.send([
      ['read', 22],
      ['read', 20],
      ['read', 12345],
    ]);
    const poisoned = await c.next('error');
    assert.equal(poisoned[3], 'matmul');
    const data = await c.next('data');
    assert.deepEqual([data[2], data[3]], ['f32', [2, 3]]);
    assert.match(String(data[4]), /^ *$/, 'padding');
    assert.deepEqual(Array.from(new Float32Array(new Uint8Array(data[5] as Uint8Array).buffer)), [1, 1, 1, 1, 1, 1]);
    const unknown = await c.next('error');
    assert.match(String(unknown[4]), /unknown handle 12345/);
    c.close();
    await c.closed;
    await stillServes(server);
  });

  it('fuzz: random commands and bytes never throw out of a session (best CPU engine)', () => {
    const replies: Uint8Array[] = [];
    const session = new Session(
      Device.cpu().backend,
      { maxMessageBytes: 1 << 20, maxElements: 4096, maxHandles: 100_000 },
      (m) => replies.push(m),
    );
    let seed = 12345;
    const rand = (n: number) => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n;
    const pick = <V>(xs: readonly V[]): V => xs[rand(xs.length)]!;
    // Handles 1..8 exist (f32, i32 and bool tensors of a few shapes), so ops do run on odd arguments.
    session.receive(
      encodeMessage([
        ['fill', 1, [2, 3], 1.5, 'f32'],
        ['fill', 2, [3], 2, 'i32'],
        ['fill', 3, [2, 3], 1, 'bool'],
        ['fill', 4, [], 7, 'f32'],
        ['fill', 5, [3, 2], -1, 'f32'],
        ['fill', 6, [2, 1], 0, 'i32'],
        ['fill', 7, [1, 3], 1, 'f64'],
        ['fill', 8, [0, 2], 0, 'f32'],
      ]),
    );
    const atoms: unknown[] = [
      0,
      1,
      2,
      3,
      5,
      8,
      -1,
      -7,
      2 ** 31,
      2 ** 53,
      1.5,
      NaN,
      Infinity,
      -0,
      '-0',
      null,
      true,
      'f32',
      'i32',
      'bool',
      'add',
      'sum',
      'argmax',
      'assign',
      'exp',
      'isnan',
      'eq',
      '',
      'x'.repeat(300),
    ];
    const value = (depth: number): unknown => {
      const k = rand(10);
      if (depth < 2 && k < 3) return Array.from({ length: rand(7) }, () => value(depth + 1));
      if (k === 3) return new Uint8Array(rand(40));
      if (k === 4) return 1 + rand(8);
      return pick(atoms);
    };
    const names = [...OP_COMMANDS, 'read', 'sync', 'drop', 'retain', 'nope'];
    for (let i = 0; i < 3000; i++) {
      let bytes: Uint8Array;
      if (rand(10) === 0) bytes = Uint8Array.from({ length: rand(30) }, () => rand(256));
      else
        bytes = encodeMessage(
          Array.from({ length: 1 + rand(3) }, () => [
            pick(names),
            rand(3) === 0 ? value(1) : 100 + rand(600),
            ...Array.from({ length: rand(6) }, () => value(1)),
          ]),
        );
      try {
        session.receive(bytes);
      } catch (e) {
        assert.ok(e instanceof ProtocolError, `frame ${i} threw ${String(e)}`);
      }
    }
    assert.ok(session.size <= 700, `handles ${session.size}`);
    assert.ok(replies.length > 1000, 'failures were reported');
    // Still serving: once the handles are dropped, fresh ops work (the reply to the last read:
    // replies to the fuzz's reads may still arrive, as they resolve asynchronously).
    const all = Array.from({ length: 800 }, (_, i) => i);
    session.receive(
      encodeMessage([
        ['drop', all],
        ['fill', 9000, [2, 3], 1.5, 'f32'],
        ['binaryScalar', 9001, 'mul', 9000, 2],
        ['read', 9001],
      ]),
    );
    return new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => {
      const data = replies
        .map((r) => new Decoder().decode(r) as unknown[])
        .filter((r) => r[0] === 'data')
        .at(-1);
      assert.ok(data, 'a data reply');
      assert.deepEqual(Array.from(new Float32Array(new Uint8Array(data[5] as Uint8Array).buffer)), [3, 3, 3, 3, 3, 3]);
    });
  });

  it("fuzz: well-typed ops with random shapes, dims and specs either run with the shape rule's result or fail with a BurnError", () => {
    const replies: Uint8Array[] = [];
    const session = new Session(
      Device.cpu().backend,
      { maxMessageBytes: 1 << 20, maxElements: 4096, maxHandles: 1e6 },
      (m) => replies.push(m),
    );
    let seed = 7;
    const rand = (n: number) => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n;
    const pick = <V>(xs: readonly V[]): V => xs[rand(xs.length)]!;
    const dtypes = ['f32', 'f64', 'i32', 'bool', 'u8', 'i64', 'f16'];
    const shape = () => Array.from({ length: rand(4) }, () => rand(4));
    const inputs = Array.from({ length: 40 }, (_, i) => i + 1);
    session.receive(encodeMessage(inputs.map((id) => ['fill', id, shape(), rand(5) - 1, pick(dtypes)])));
    const t = () => pick(inputs),
      int = () => rand(7) - 2;
    const specs = () =>
      Array.from({ length: 3 * rand(4) }, (_, i) => (i % 3 === 2 ? pick([1, 2, -1, -2]) : rand(5) - 1));
    const args: Record<Exclude<OpCommand, 'fromData' | 'sort'>, () => unknown[]> = {
      fill: () => [shape(), rand(5), pick(dtypes)],
      reshape: () => [t(), shape()],
      permute: () => [t(), Array.from({ length: rand(4) }, () => rand(3))],
      expand: () => [t(), shape()],
      slice: () => [t(), specs()],
      sliceAssign: () => [t(), specs(), t()],
      cat: () => [Array.from({ length: 1 + rand(3) }, t), int()],
      unary: () => [pick(UNARY_OPS), t()],
      predicate: () => [pick(PREDICATE_OPS), t()],
      binary: () => [pick(BINARY_OPS), t(), t()],
      compare: () => [pick(COMPARE_OPS), t(), t()],
      where: () => [t(), t(), t()],
      cast: () => [t(), pick(dtypes)],
      reduce: () => [pick(REDUCE_OPS), t(), Array.from({ length: rand(3) }, int)],
      argReduce: () => [pick(ARG_OPS), t(), int()],
      scan: () => [pick(SCAN_OPS), t(), int()],
      gather: () => [t(), int(), t()],
      scatter: () => [pick(SCATTER_OPS), t(), int(), t(), t()],
      matmul: () => [t(), t()],
      random: () => [
        shape(),
        pick([['default'], ['normal', 0, 1], ['uniform', 0, 2], ['bernoulli', 0.5]]),
        pick(dtypes),
        [rand(9), 2, 3],
      ],
      arange: () => [int(), int() * 3, pick([1, -1, 0.5, 2]), pick(dtypes)],
      binaryScalar: () => [pick(BINARY_OPS), t(), rand(5) - 2],
      compareScalar: () => [pick(COMPARE_OPS), t(), rand(3)],
      clamp: () => [t(), pick([null, 0, 1]), pick([null, 2, 0])],
      maskFill: () => [t(), t(), 3],
      select: () => [t(), int(), t()],
      selectAssign: () => [pick(SCATTER_OPS), t(), int(), t(), t()],
      softmax: () => [t(), int()],
      logSoftmax: () => [t(), int()],
      checkIndices: () => [t(), rand(5) - 2, rand(5), 'checkIndices', 'index ', ' is out of bounds'],
    };
    const names = Object.keys(args) as (keyof typeof args)[];
    let next = 1000;
    for (let f = 0; f < 400; f++) {
      const frame: unknown[] = Array.from({ length: 10 }, () => {
        const name = pick(names);
        return [name, next++, ...args[name]()];
      });
      frame.push(['sort', [next++, next++], t(), int(), rand(2) === 0]);
      session.receive(encodeMessage(frame));
    }
    const fails = replies.map((r) => new Decoder().decode(r) as unknown[]).filter((r) => r[0] === 'fail');
    assert.ok(fails.length > 500 && fails.length < 3500, `${fails.length} of 4400 commands failed`);
    for (const [, , op, message] of fails) {
      assert.doesNotMatch(
        String(message),
        /shape rule expects/,
        `${String(op)}: the backend disagreed with the shape rule`,
      );
      assert.match(
        String(message),
        /expected|out of bounds|not supported|cannot|repeat|needs|is not defined/,
        `${String(op)}: ${String(message)}`,
      );
    }
  });

  it('maxHandles bounds the live handles of a connection', async () => {
    const server = await extraServer({ maxHandles: 2 });
    const d = Device.remote(server.url);
    const a = Tensor.ones([2], d),
      b = Tensor.zeros([2], d);
    const c = a.add(b);
    await assert.rejects(
      c.toData(),
      isBurn(/more than 2 live handles \(the server's maxHandles\); free tensors first/, 'binary'),
    );
    b.dispose();
    assert.deepEqual(await values(a.mul(3)), [3, 3]);
  });

  it('a message over maxMessageBytes closes its connection; the server keeps running', async () => {
    const server = await extraServer({ maxMessageBytes: 1024 });
    const c = rawClient(server.url);
    await c.opened;
    c.send([['fromData', 1, 'u8', [4096], new Uint8Array(4096)]]);
    const { code } = await c.closed;
    assert.equal(code, 1009);
    await stillServes(server);
  });
});

describe('remote handles', () => {
  it('server handles stay flat over many ops with no user calls (freed when collected)', async () => {
    const d = remote();
    const x = Tensor.ones([16, 16], d);
    await d.sync();
    const base = remoteServer.stats().handles;
    let peak = 0;
    for (let round = 0; round < 3; round++) {
      let y = x;
      for (let i = 0; i < 300; i++) y = y.mul(0.5).add(x).tanh();
      assert.equal((await y.sum().toData()).shape[0], 1);
      peak = Math.max(peak, remoteServer.stats().handles);
      y = x;
      // Collected tensors are dropped in batches: finalizers run as tasks after a collection.
      for (let i = 0; i < 20 && remoteServer.stats().handles - base >= 50; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
        await d.sync();
      }
    }
    const handles = remoteServer.stats().handles;
    assert.ok(peak - base >= 300, `the loop held ${peak - base} handles at its peak`);
    assert.ok(handles - base < 50, `handles grew from ${base} to ${handles}`);
  });

  it('dispose and Tensor.scope free server handles at once; clone keeps its own', async () => {
    const d = remote();
    await d.sync();
    const base = remoteServer.stats().handles;
    const t = Tensor.ones([4], d);
    const clone = t.clone();
    await d.sync();
    assert.equal(remoteServer.stats().handles, base + 2);
    t.dispose();
    await d.sync();
    assert.equal(remoteServer.stats().handles, base + 1);
    assert.deepEqual(await values(clone), [1, 1, 1, 1]);
    const kept = Tensor.scope(() => clone.add(1).mul(2).exp().log().sum());
    await d.sync();
    assert.equal(remoteServer.stats().handles, base + 2, 'only the clone and the scope result remain');
    assert.deepEqual(await values(kept), [16]);
    // The module ops that run through the shared defaults free their intermediates too.
    const x = Tensor.ones([1, 1, 6, 6], d),
      w = Tensor.ones([2, 1, 3, 3], d);
    await d.sync();
    const before = remoteServer.stats().handles;
    const y = F.conv2d(x as Tensor<4>, w as Tensor<4>, undefined, {});
    await d.sync();
    assert.equal(remoteServer.stats().handles, before + 1);
    assert.deepEqual(
      await values(
        y.slice([
          [0, 1],
          [0, 1],
          [0, 1],
          [0, 1],
        ]),
      ),
      [9],
    );
  });
});

describe('remote close and reconnect', () => {
  it('reads after the server closed reject with a clear BurnError; Device.remote connects again', async () => {
    const server = await extraServer();
    const d = Device.remote(server.url);
    const t = Tensor.fromFloats([1, 2, 3], d).mul(2);
    assert.deepEqual(await values(t), [2, 4, 6]);
    await server.close();
    assert.equal(server.stats().connections, 0);
    const gone =
      /the connection to ws:\/\/127\.0\.0\.1:\d+ closed \(code 1001: server closing\); the tensors on remote\(ws:.*\) are gone/;
    await assert.rejects(t.toData(), isBurn(gone, 'remote'));
    assert.throws(() => t.add(1), isBurn(gone)); // later ops throw (the tensor API may name its op, `add`)
    await assert.rejects(d.sync(), isBurn(gone, 'remote'));
    // A device for a closed connection is replaced by a new one, here against a new server.
    const again = await extraServer();
    const d2 = Device.remote(again.url);
    assert.notEqual(d2, d);
    assert.deepEqual(await values(Tensor.fromFloats([1, 2], d2).add(1)), [2, 3]);
  });

  it('a pending read rejects when the connection drops; the client closing frees its server handles', async () => {
    const server = await extraServer();
    const d = Device.remote(server.url);
    const t = Tensor.ones([8], d).add(1);
    await d.sync();
    assert.equal(server.stats().connections, 1);
    assert.ok(server.stats().handles >= 2);
    const pending = t.toData();
    (d.backend as unknown as RemoteBackend).close();
    await assert.rejects(pending, isBurn(/closed by the client/, 'remote'));
    await until(() => server.stats().connections === 0);
    assert.deepEqual(server.stats(), { connections: 0, handles: 0 });
    assert.notEqual(Device.remote(server.url), d);
  });

  it('a server that cannot be reached makes reads reject with the reason', async () => {
    const server = await extraServer();
    const url = server.url;
    await server.close();
    const d = Device.remote(url);
    await assert.rejects(
      Tensor.ones([1], d).toData(),
      isBurn(/the connection to ws:\/\/127\.0\.0\.1:\d+ closed \(.*ECONNREFUSED/, 'remote'),
    );
  });
});

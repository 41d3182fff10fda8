// Security of the remote backend: what a hostile client can make the server
// hold (backpressure on replies, a byte budget for live tensors, bounded reply queues), who may
// connect (a token or an authenticate hook, an Origin allow-list, refusal to listen off-loopback
// without either), and what a hostile or dying server can do to a client (replies checked against
// the read they answer; pending requests reject when the connection dies, later ops throw).
// Every socket here is on 127.0.0.1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { after, describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import { WebSocket, WebSocketServer } from 'ws';
import { BurnError, Device, Distribution, Tensor, TensorData } from '../../src/index.js';
import { RemoteBackend, startServer, type RemoteServer, type ServerOptions } from '../../src/backends/remote/index.js';
import { encodeAligned, encodeMessage } from '../../src/backends/remote/protocol.js';
import { isLoopbackHost } from '../../src/backends/remote/server.js';
import { Session, type ReplyChannel } from '../../src/backends/remote/session.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const cpu = Device.cpu({ engine: 'js' });
const isBurn = (pattern: RegExp, op?: string) => (e: unknown) => {
  assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
  assert.match(e.message, pattern);
  if (op !== undefined) assert.equal(e.op, op);
  return true;
};
const servers: RemoteServer[] = [];
const server = async (options: ServerOptions = {}) => {
  const s = await startServer(cpu, 0, options);
  servers.push(s);
  return s;
};
const sockets: WebSocket[] = [];
after(async () => {
  for (const ws of sockets) ws.terminate();
  await Promise.all(servers.map((s) => s.close()));
});
/** A device on its own connection (not Device.remote's per-URL cache). */
const connect = (url: string, token?: string) =>
  new Device(new RemoteBackend(url, token === undefined ? {} : { token }) as never, `remote(${url})`);
const values = async (t: { toData(): Promise<TensorData> }) => Array.from((await t.toData()).toArray());
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Polls `condition` every 10 ms, up to `ms`; returns whether it held. */
async function poll(condition: () => boolean, ms = 2000): Promise<boolean> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited >= ms) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** A raw protocol client; `options` go to the `ws` constructor (headers, origin). */
function rawClient(
  url: string,
  options: { headers?: Record<string, string>; origin?: string; protocols?: string[] } = {},
) {
  const ws = new WebSocket(url, options.protocols ?? [], {
    headers: options.headers,
    origin: options.origin,
    perMessageDeflate: false,
  });
  sockets.push(ws);
  const replies: unknown[][] = [];
  const decoder = new Decoder();
  ws.on('message', (data: Buffer) => replies.push(decoder.decode(data) as unknown[]));
  ws.on('error', () => {});
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: ${res.statusCode}`)));
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return { ws, opened, closed, replies, send: (message: unknown) => ws.send(encodeMessage(message)) };
}

describe('remote server: what one client can make it hold', () => {
  it('a client that never reads is throttled: the replies of fill + 16 reads are not all buffered', async () => {
    const s = await server();
    const n = 2 ** 20; // 4 MiB of f32; 16 reads would queue 64 MiB of replies without backpressure
    const c = rawClient(s.url);
    await c.opened;
    c.ws.pause(); // the client stops reading its socket
    gc();
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    // What the server holds (collected garbage aside: copies already dropped do not count).
    const sample = () => {
      gc();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    };
    const frame = encodeMessage([['fill', 1, [n], 2, 'f32'], ...Array.from({ length: 16 }, () => ['read', 1])]);
    assert.ok(frame.byteLength < 200, `a ${frame.byteLength}-byte message`);
    c.ws.send(frame);
    await poll(() => {
      sample();
      return (s as Partial<RemoteServer>).usage?.().throttled === 1;
    }, 1000);
    await new Promise((resolve) => setTimeout(resolve, 50)); // a throttled server stays put
    sample();
    // The tensor (4 MiB) and at most 16 MiB of queued replies plus one; 64 MiB and more without backpressure.
    assert.ok(
      peak < 40 * 2 ** 20,
      `the server held ${(peak / 2 ** 20).toFixed(0)} MiB for a client that does not read`,
    );
    const usage = s.usage();
    assert.equal(usage.throttled, 1, 'the connection is throttled');
    assert.equal(usage.liveBytes, 4 * n, 'the live tensor');
    assert.ok(
      usage.queuedBytes <= 16 * 2 ** 20 + 4 * n + 1024,
      `queued ${usage.queuedBytes} bytes of replies; maxQueuedReplyBytes is 16 MiB`,
    );
    // Throttled, not broken: once the client reads, every reply comes, in order, with the values.
    c.ws.resume();
    assert.ok(await poll(() => c.replies.length >= 16, 5000), `${c.replies.length} of 16 replies`);
    c.replies.forEach((r, i) => {
      assert.deepEqual([r[0], r[1], r[2], r[3]], ['data', i + 1, 'f32', [n]]);
      const bytes = r[5] as Uint8Array;
      assert.equal(bytes.byteLength, 4 * n);
      assert.equal(new Float32Array(new Uint8Array(bytes.subarray(0, 8)).buffer)[1], 2);
    });
    c.replies.length = 0;
    assert.ok(await poll(() => s.usage().queuedBytes === 0 && s.usage().throttled === 0), JSON.stringify(s.usage()));
    c.ws.close();
    await c.closed;
    assert.deepEqual(s.usage(), { liveBytes: 0, queuedBytes: 0, queuedReplies: 0, throttled: 0 });
  });

  it("maxLiveBytes bounds the bytes of a connection's live tensors; the error names op, bytes, budget and option", async () => {
    const s = await server({ maxLiveBytes: 2 ** 20 });
    const d = connect(s.url);
    await assert.rejects(
      Tensor.zeros([512, 1024], d).toData(),
      isBurn(
        /needs 2097152 bytes for its output \[512, 1024\] f32; this connection holds 0 bytes of live tensors and its budget is 1048576 bytes \(startServer's maxLiveBytes option raises it; free tensors first\)/,
        'fill',
      ),
    );
    const a = Tensor.ones([150 * 1024], d); // 600 KiB
    assert.equal((await a.toData()).shape[0], 150 * 1024);
    await assert.rejects(
      a.add(a).toData(),
      isBurn(/needs 614400 bytes .* holds 614400 bytes .* budget is 1048576 bytes/, 'binary'),
    );
    await assert.rejects(
      Tensor.fromData(new TensorData(new Float32Array(150 * 1024), [150 * 1024]), d).toData(),
      isBurn(/maxLiveBytes/, 'fromData'),
    );
    await assert.rejects(
      Tensor.random([150 * 1024], Distribution.Default, d).toData(),
      isBurn(/maxLiveBytes/, 'random'),
    );
    assert.equal(s.usage().liveBytes, 614400);
    a.dispose();
    const b = Tensor.full([150 * 1024], 3, d);
    assert.deepEqual(await values(b.slice([[0, 2]])), [3, 3]);
    // Handles on one value (retain) count its bytes once.
    const clone = b.clone();
    await d.sync();
    assert.ok(s.usage().liveBytes <= 2 * 614400 + 8, `${s.usage().liveBytes} live bytes`);
    assert.deepEqual(await values(clone.slice([[5, 6]])), [3]);
  });

  it('an op that returns its input gives a handle of its own (dropping the input keeps it) and counts its bytes once', async () => {
    const replies: unknown[][] = [];
    const session = new Session(cpu.backend, { maxMessageBytes: 2 ** 20, maxElements: 2 ** 20, maxHandles: 100 }, (m) =>
      replies.push(new Decoder().decode(m) as unknown[]),
    );
    session.receive(
      encodeMessage([
        ['fill', 1, [2, 3], 1.5, 'f32'],
        ['cast', 2, 1, 'f32'],
        ['reshape', 3, 2, [2, 3]],
      ]),
    );
    const held = session.liveBytes;
    assert.ok(held >= 24 && held <= 48, `${held} live bytes for one [2, 3] f32 value and a reshape`);
    session.receive(
      encodeMessage([
        ['drop', [1]],
        ['read', 2],
        ['drop', [2]],
        ['read', 3],
      ]),
    );
    await poll(() => replies.length >= 2);
    assert.deepEqual(
      replies.map((r) => r[0]),
      ['data', 'data'],
      JSON.stringify(replies.map((r) => r.slice(0, 5))),
    );
    assert.deepEqual(
      Array.from(new Float32Array(new Uint8Array(replies[0]![5] as Uint8Array).buffer)),
      [1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
    );
    session.receive(encodeMessage([['drop', [3]]]));
    assert.equal(session.liveBytes, 0);
  });

  it('the default budget refuses a tensor over 1 GiB before allocating it', async () => {
    const s = await server();
    const d = connect(s.url);
    await assert.rejects(
      Tensor.zeros([2 ** 27 + 1], { device: d, dtype: 'f64' } as never).toData(),
      isBurn(/needs 1073741832 bytes .* budget is 1073741824 bytes/, 'fill'),
    );
    assert.equal(s.usage().liveBytes, 0);
  });

  it('maxQueuedReplies and maxQueuedReplyBytes: a session runs no command while its replies are backlogged', async () => {
    const sent: Uint8Array[] = [];
    const unwritten: (() => void)[] = [];
    const throttles: boolean[] = [];
    const channel: ReplyChannel = {
      send: (m, written) => {
        sent.push(m);
        unwritten.push(written);
      },
      throttle: (paused) => throttles.push(paused),
    };
    const session = new Session(
      cpu.backend,
      {
        maxMessageBytes: 2 ** 20,
        maxElements: 2 ** 20,
        maxHandles: 1000,
        maxQueuedReplies: 4,
        maxQueuedReplyBytes: 2 ** 20,
      },
      channel,
    );
    const frame = [['fill', 1, [4], 7, 'f32'], ...Array.from({ length: 20 }, () => ['read', 1])];
    session.receive(encodeMessage(frame));
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(sent.length, 4, 'four replies, then the session waits');
    assert.equal(session.queuedReplies, 4);
    assert.equal(session.throttled, true);
    assert.deepEqual(throttles, [true]);
    // More frames wait behind the backlog too (a flood of bad commands makes no replies while throttled).
    session.receive(encodeMessage(Array.from({ length: 1000 }, () => ['explode'])));
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(sent.length, 4);
    // The client reads: the session goes on, never with more than 4 replies outstanding.
    for (let round = 0; round < 2000 && (sent.length < 1021 || unwritten.length > 0); round++) {
      unwritten.splice(0, 2).forEach((w) => w());
      for (let i = 0; i < 3; i++) await tick();
      assert.ok(session.queuedReplies <= 4, `${session.queuedReplies} replies queued`);
    }
    const decoded = sent.map((m) => new Decoder().decode(m) as unknown[]);
    assert.equal(decoded.filter((r) => r[0] === 'data').length, 20);
    assert.equal(decoded.filter((r) => r[0] === 'fail').length, 1000);
    assert.equal(session.throttled, false);
    assert.equal(throttles.at(-1), false);

    // Bytes: reads of 64 KiB with a 100 KiB limit are answered two at a time.
    sent.length = 0;
    const bytes = new Session(
      cpu.backend,
      { maxMessageBytes: 2 ** 20, maxElements: 2 ** 20, maxHandles: 1000, maxQueuedReplyBytes: 100 * 1024 },
      channel,
    );
    unwritten.length = 0;
    bytes.receive(
      encodeMessage([
        ['fill', 1, [16 * 1024], 1, 'f32'],
        ['read', 1],
        ['read', 1],
        ['read', 1],
        ['read', 1],
      ]),
    );
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(sent.length, 2);
    assert.ok(
      bytes.queuedBytes >= 2 * 65536 && bytes.queuedBytes < 2 * 65536 + 1024,
      `${bytes.queuedBytes} bytes queued`,
    );
    unwritten.splice(0).forEach((w) => w());
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(sent.length, 4);
  });

  it('startServer checks the limits it is given', async () => {
    for (const name of ['maxLiveBytes', 'maxQueuedReplyBytes', 'maxQueuedReplies', 'maxConnections'] as const) {
      await assert.rejects(
        startServer(cpu, 0, { [name]: 0 }),
        isBurn(new RegExp(`${name} 0; expected an integer in 1\\.\\.`), 'startServer'),
      );
      await assert.rejects(startServer(cpu, 0, { [name]: 1.5 }), isBurn(new RegExp(`${name} 1\\.5`), 'startServer'));
    }
  });
});

describe('remote server: who may connect', () => {
  it('refuses to listen off-loopback without a token or an authenticate hook (before binding)', async () => {
    for (const host of ['192.0.2.1', 'burn-ts.invalid']) {
      await assert.rejects(
        startServer(cpu, 0, { host }),
        isBurn(
          new RegExp(
            `host '${host.replace(/\./g, '\\.')}' is not a loopback address.*pass \\{ token \\}.*Device\\.remote\\(url, \\{ token \\}\\).*or an authenticate hook`,
          ),
          'startServer',
        ),
      );
    }
    await assert.rejects(
      startServer(cpu, 0, { token: '' }),
      isBurn(/token ''; expected a non-empty string/, 'startServer'),
    );
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '[::1]'])
      assert.equal(isLoopbackHost(host), true, host);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '192.168.1.2',
      '::ffff:10.0.0.1',
      'example.com',
      'localhost.example.com',
      '128.0.0.1',
    ])
      assert.equal(isLoopbackHost(host), false, host);
  });

  it('a token: the right one connects; none or a wrong one is refused at the handshake (401)', async () => {
    const token = 'correct horse battery staple';
    const s = await server({ token });
    assert.deepEqual(await values(Tensor.fromFloats([1, 2], connect(s.url, token)).mul(2)), [2, 4]);
    for (const bad of [undefined, 'wrong', token.slice(0, -1), `${token}!`]) {
      const d = connect(s.url, bad);
      const t = Tensor.ones([2], d);
      await assert.rejects(
        t.toData(),
        isBurn(/the connection to ws:\/\/127\.0\.0\.1:\d+ closed \(Unexpected server response: 401\)/, 'remote'),
      );
      assert.throws(() => t.add(1), isBurn(/closed \(Unexpected server response: 401\)/), 'later ops throw');
    }
    // Device.remote takes the token; the `Authorization: Bearer` header works for other clients.
    assert.deepEqual(await values(Tensor.ones([1], Device.remote(s.url, { token }))), [1]);
    const raw = rawClient(s.url, { headers: { authorization: `Bearer ${token}` } });
    await raw.opened;
    raw.ws.close();
    await assert.rejects(
      rawClient(s.url, { headers: { authorization: 'Bearer nope' } }).opened,
      /handshake refused: 401/,
    );
    // The refused ones never had a session: the two devices' connections remain.
    assert.ok(await poll(() => s.stats().connections === 2), `${s.stats().connections} connections`);
  });

  it('an authenticate hook decides (async, may throw); a token and a hook must both pass', async () => {
    const seen: string[] = [];
    const s = await server({
      authenticate: async (req: IncomingMessage) => {
        seen.push(req.socket.remoteAddress ?? '');
        if (req.headers['x-throw']) throw new Error('hook failed');
        return req.headers['x-user'] === 'alice';
      },
    });
    await rawClient(s.url, { headers: { 'x-user': 'alice' } }).opened;
    await assert.rejects(rawClient(s.url, { headers: { 'x-user': 'mallory' } }).opened, /handshake refused: 401/);
    await assert.rejects(
      rawClient(s.url, { headers: { 'x-user': 'alice', 'x-throw': '1' } }).opened,
      /handshake refused: 401/,
    );
    assert.ok(seen.length === 3 && seen.every((a) => a === '127.0.0.1'), String(seen));
    const both = await server({ token: 'tok', authenticate: (req) => req.headers['x-user'] === 'alice' });
    await rawClient(both.url, { headers: { 'x-user': 'alice', authorization: 'Bearer tok' } }).opened;
    await assert.rejects(
      rawClient(both.url, { headers: { 'x-user': 'bob', authorization: 'Bearer tok' } }).opened,
      /401/,
    );
    await assert.rejects(rawClient(both.url, { headers: { 'x-user': 'alice' } }).opened, /401/);
  });

  it("Origin: browsers' pages are refused (403) unless allowed; clients without an Origin are not affected", async () => {
    // On the default (loopback, no token) server too: any web page could otherwise drive it.
    const open = await server();
    await assert.rejects(rawClient(open.url, { origin: 'https://evil.example' }).opened, /handshake refused: 403/);
    await rawClient(open.url).opened;
    const s = await server({ allowedOrigins: ['https://app.example', 'http://localhost:5173'] });
    await rawClient(s.url, { origin: 'https://app.example' }).opened;
    await rawClient(s.url, { origin: 'http://localhost:5173' }).opened;
    for (const origin of ['https://evil.example', 'https://app.example.evil', 'http://app.example', 'null']) {
      await assert.rejects(rawClient(s.url, { origin }).opened, /handshake refused: 403/, origin);
    }
    const any = await server({ allowedOrigins: ['*'], token: 't' });
    await rawClient(any.url, { origin: 'https://anything.example', headers: { authorization: 'Bearer t' } }).opened;
    await assert.rejects(rawClient(any.url, { origin: 'https://anything.example' }).opened, /401/);
    await assert.rejects(
      startServer(cpu, 0, { allowedOrigins: ['https://a.example/'] }),
      isBurn(
        /allowedOrigins entry 'https:\/\/a\.example\/'; expected an origin such as 'https:\/\/app\.example\.com' or '\*'/,
        'startServer',
      ),
    );
  });
});

describe('remote server: how many may connect', () => {
  it('maxConnections: a handshake beyond is refused (503) until a connection closes', async () => {
    const s = await server({ maxConnections: 2 });
    const a = rawClient(s.url),
      b = rawClient(s.url);
    await Promise.all([a.opened, b.opened]);
    await assert.rejects(rawClient(s.url).opened, /handshake refused: 503/);
    a.ws.close();
    await a.closed;
    assert.ok(await poll(() => s.stats().connections === 1));
    await rawClient(s.url).opened;
  });
});

/** A hostile server: answers each read with `answer(seq, command)`. */
async function hostileServer(answer: (seq: number, command: unknown[]) => Uint8Array | undefined) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) => {
    let seq = 0;
    ws.on('message', (data: Buffer) => {
      for (const command of new Decoder().decode(data) as unknown[][]) {
        const reply = answer(seq++, command);
        if (reply) ws.send(reply);
      }
    });
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}

describe('remote client: a hostile or dying server', () => {
  it('replies that do not match the read (dtype, shape, bytes, kind) reject that request with a BurnError', {
    timeout: 10_000,
  }, async () => {
    const f32 = (n: number) => new Uint8Array(new Float32Array(n).fill(1).buffer);
    let mode = 'ok';
    const hostile = await hostileServer((seq, [name]) => {
      if (name === 'sync')
        return encodeMessage(mode === 'data-for-sync' ? ['data', seq, 'f32', [2, 3], '', f32(6)] : ['synced', seq]);
      if (name !== 'read') return undefined;
      switch (mode) {
        case 'dtype':
          return encodeAligned(['data', seq, 'f64', [2, 3]], new Uint8Array(48));
        case 'shape':
          return encodeAligned(['data', seq, 'f32', [3, 2]], f32(6));
        case 'bytes':
          return encodeAligned(['data', seq, 'f32', [2, 3]], f32(5));
        case 'not-bytes':
          return encodeMessage(['data', seq, 'f32', [2, 3], '', 'xx']);
        case 'synced':
          return encodeMessage(['synced', seq]);
        default:
          return encodeAligned(['data', seq, 'f32', [2, 3]], f32(6));
      }
    });
    try {
      const d = connect(hostile.url);
      const t = Tensor.ones([2, 3], d);
      const cases: [string, RegExp][] = [
        [
          'dtype',
          /the server answered the read of a \[2, 3\] f32 tensor with f64 data of shape \[2, 3\]; expected f32 \[2, 3\]/,
        ],
        ['shape', /with f32 data of shape \[3, 2\]; expected f32 \[2, 3\]/],
        ['bytes', /with 20 bytes; expected 24/],
        ['not-bytes', /with "xx"; expected 24 bytes/],
        ['synced', /the server answered the read of a \[2, 3\] f32 tensor with 'synced'/],
      ];
      for (const [m, pattern] of cases) {
        mode = m;
        await assert.rejects(t.toData(), isBurn(new RegExp(`${pattern.source}.*remote\\(ws://127`), 'remote'), m);
      }
      mode = 'data-for-sync';
      await assert.rejects(d.sync(), isBurn(/the server answered a sync with 'data'/, 'remote'));
      mode = 'ok';
      assert.deepEqual(await values(t), [1, 1, 1, 1, 1, 1], 'an honest reply is accepted');
    } finally {
      await hostile.close();
    }
  });

  it('a frame claiming more than 2 GiB closes the connection before it is buffered (the read rejects)', {
    timeout: 10_000,
  }, async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    wss.on('connection', (ws) =>
      ws.once('message', () => {
        // A binary frame header with a 64-bit length of 3 GiB, and no payload behind it.
        (ws as unknown as { _socket: { write(b: Uint8Array): void } })._socket.write(
          Uint8Array.of(0x82, 127, 0, 0, 0, 0, 0xc0, 0, 0, 0),
        );
      }),
    );
    try {
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
      const read = Tensor.ones([2], connect(url)).toData();
      await assert.rejects(
        read,
        isBurn(/the connection to ws:\/\/127\.0\.0\.1:\d+ closed \(Max payload size exceeded\)/, 'remote'),
      );
    } finally {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });

  it('a server killed mid-read: the pending read and sync reject with a BurnError naming the URL; later ops throw', {
    timeout: 10_000,
  }, async () => {
    // A plain server in a child process that takes commands and never answers, then is killed.
    const script = `
      const { WebSocketServer } = require('ws');
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 }, () => console.log('port ' + wss.address().port));
      wss.on('connection', (ws) => ws.on('message', () => console.log('message')));`;
    const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      assert.ok(await poll(() => /port \d+/.test(out), 5000), 'the child server started');
      const url = `ws://127.0.0.1:${/port (\d+)/.exec(out)![1]}`;
      const d = connect(url);
      const t = Tensor.ones([4], d);
      const read = t.toData();
      const sync = d.sync();
      assert.ok(await poll(() => out.includes('message'), 5000), 'the read reached the server');
      const start = Date.now();
      child.kill('SIGKILL');
      const gone = new RegExp(`the connection to ${url.replace(/[/.]/g, '\\$&')} closed \\(`);
      await assert.rejects(read, isBurn(gone, 'remote'));
      await assert.rejects(sync, isBurn(gone, 'remote'));
      assert.ok(Date.now() - start < 2000, `rejected after ${Date.now() - start} ms`);
      // (The tensor API may name its own op: `mul`, `ones`.)
      assert.throws(() => t.mul(2), isBurn(gone));
      assert.throws(() => Tensor.ones([1], d), isBurn(gone));
      await assert.rejects(t.toData(), isBurn(gone, 'remote'));
    } finally {
      child.kill('SIGKILL');
    }
  });
});

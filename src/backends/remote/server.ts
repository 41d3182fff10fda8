import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import { BlockList, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import { BurnError } from '../../core/errors.js';
import { DEFAULT_LIMITS, encodeMessage, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX } from './protocol.js';
import { ProtocolError, Session, type ReplyChannel } from './session.js';

/**
 * Options of {@link startServer}.
 *
 * **Who may connect.** A server bound to a loopback address (the default `127.0.0.1`) accepts
 * any local process unless `token` or `authenticate` is given; bound to any other address it
 * refuses to start without one of them. `token` is compared in constant time with the one the
 * client presents (`Device.remote(url, { token })` sends it as a WebSocket subprotocol; other
 * clients may send `Authorization: Bearer <token>`). `authenticate` sees the HTTP upgrade request
 * (headers, `socket.remoteAddress`); with both, both must pass. A request with an `Origin` header
 * (every browser page sends one) is refused unless the origin is in `allowedOrigins` (default
 * none), on loopback too: otherwise any web page the user opens could drive the server.
 * Refusals happen at the WebSocket handshake (403 for an origin, 401 for credentials), before a
 * session exists. The server speaks plain `ws://`: off one machine, put it behind TLS (`wss://`,
 * e.g. a reverse proxy) or the token travels in clear.
 *
 * **What one client can make it hold.** `maxLiveBytes` bounds the bytes of a connection's live
 * tensors (checked before an op runs, so nothing larger is allocated); `maxQueuedReplyBytes` and
 * `maxQueuedReplies` bound its replies waiting for the client to read them (or being prepared):
 * at either limit its commands wait and its socket is not read until the client catches up, so a
 * client that never reads holds at most about `maxLiveBytes + maxQueuedReplyBytes` plus one
 * reply; `maxMessageBytes` bounds one message from it, `maxElements` one tensor, `maxHandles` its
 * handles, and `maxConnections` how many connections there are.
 */
export interface ServerOptions {
  /** The interface to listen on (default `127.0.0.1`: this machine only; `0.0.0.0` for every interface, which needs `token` or `authenticate`). */
  readonly host?: string;
  /** The shared secret clients must present (`Device.remote(url, { token })`); e.g. `randomBytes(32).toString('base64url')`. */
  readonly token?: string;
  /** Decides whether an upgrade request may connect (false, a rejection or a throw refuses it with 401). */
  readonly authenticate?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /** Origins (`https://app.example.com`, or `'*'` for any) whose browser pages may connect (default: none). */
  readonly allowedOrigins?: readonly string[];
  /** Largest accepted message in bytes (default 256 MiB); a larger one closes its connection (code 1009). */
  readonly maxMessageBytes?: number;
  /** Most elements of one tensor (default 2^28); an op whose output is larger fails. */
  readonly maxElements?: number;
  /** Most live tensor handles of one connection (default 2^20). */
  readonly maxHandles?: number;
  /** Most bytes of one connection's live tensors (default 1 GiB); an op whose outputs would pass it fails, naming this option. */
  readonly maxLiveBytes?: number;
  /** Bytes of replies queued for one connection (not yet read by it, or being prepared) at which its commands wait (default 16 MiB). */
  readonly maxQueuedReplyBytes?: number;
  /** Replies queued for one connection at which its commands wait (default 1024). */
  readonly maxQueuedReplies?: number;
  /** Most open connections (default 64); a handshake beyond is refused with 503. */
  readonly maxConnections?: number;
}

/** Counters of a running server. */
export interface ServerStats {
  /** Open connections. */
  readonly connections: number;
  /** Live tensor handles, over all connections. */
  readonly handles: number;
}

/** What the connections make the server hold, summed over them. */
export interface ServerUsage {
  /** Bytes of live tensors. */
  readonly liveBytes: number;
  /** Bytes of replies being prepared or not yet read by their clients. */
  readonly queuedBytes: number;
  /** Replies being prepared or not yet read by their clients. */
  readonly queuedReplies: number;
  /** Connections whose commands wait because their replies are backlogged. */
  readonly throttled: number;
}

/** A running remote-backend server. */
export interface RemoteServer {
  /** The port it listens on (the one chosen by the system when started with port 0). */
  readonly port: number;
  /** `ws://host:port`, for `Device.remote`. */
  readonly url: string;
  /** Connection and handle counters. */
  stats(): ServerStats;
  /** Bytes held for the connections (live tensors, queued replies) and how many are throttled. */
  usage(): ServerUsage;
  /** Lets the process exit while the server still listens (as `net.Server.unref`). */
  unref(): RemoteServer;
  /** Closes every connection (their handles are freed) and stops listening. */
  close(): Promise<void>;
}

/** Milliseconds a closing server waits for a client to answer its close frame. */
const CLOSE_GRACE_MS = 1000;

/**
 * What {@link startServer} serves: a `Device` (from `burn-ts`), of which only the backend is used.
 * Declared here, structurally, because the remote backend sits below the device layer.
 */
export interface ServedDevice {
  /** The backend that runs the clients' ops. */
  readonly backend: Backend<TensorPrimitive>;
}

/** Default of `ServerOptions.maxConnections`. */
const DEFAULT_MAX_CONNECTIONS = 64;

/**
 * Starts a server of the remote backend (Burn's `burn-remote` server): clients connect with
 * `Device.remote('ws://host:port')` and their tensor ops run on `device` (any device; each
 * connection has its own handle table, freed when it closes). `port` 0 picks a free port.
 * Messages are validated before they reach the backend: a malformed or hostile message fails
 * that command (or closes that connection) and never stops the server. {@link ServerOptions}
 * says who may connect (a token or hook, required off loopback; an Origin allow-list) and what
 * one connection may make the server hold (its limits and their defaults).
 */
export async function startServer(
  device: ServedDevice,
  port: number,
  options: ServerOptions = {},
): Promise<RemoteServer> {
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new BurnError('startServer', `port ${port}; expected an integer in 0..65535`);
  const limits = {
    maxMessageBytes: positive(
      'maxMessageBytes',
      options.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
      2 ** 31 - 1,
    ),
    maxElements: positive('maxElements', options.maxElements ?? DEFAULT_LIMITS.maxElements, 2 ** 32),
    maxHandles: positive('maxHandles', options.maxHandles ?? DEFAULT_LIMITS.maxHandles, 2 ** 32),
    maxLiveBytes: positive(
      'maxLiveBytes',
      options.maxLiveBytes ?? DEFAULT_LIMITS.maxLiveBytes,
      Number.MAX_SAFE_INTEGER,
    ),
    maxQueuedReplyBytes: positive(
      'maxQueuedReplyBytes',
      options.maxQueuedReplyBytes ?? DEFAULT_LIMITS.maxQueuedReplyBytes,
      Number.MAX_SAFE_INTEGER,
    ),
    maxQueuedReplies: positive(
      'maxQueuedReplies',
      options.maxQueuedReplies ?? DEFAULT_LIMITS.maxQueuedReplies,
      2 ** 32,
    ),
  };
  const maxConnections = positive('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, 2 ** 20);
  const host = options.host ?? '127.0.0.1';
  const admit = admission(options, host);
  const backend = device.backend;
  const sessions = new Set<Session<TensorPrimitive>>();
  const sockets = new Map<WebSocket, Socket>();
  const ended = new Set<Promise<void>>();
  let unref = false;
  let closing: Promise<void> | undefined;

  const http: Server = createServer((_req, res) => {
    res
      .writeHead(426, { 'content-type': 'text/plain' })
      .end('burn-ts remote server: connect with a WebSocket (Device.remote)\n');
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxMessageBytes,
    perMessageDeflate: false,
    // The token's subprotocol is never selected (echoed); a client offering the protocol gets it.
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  wss.on('error', () => {
    // Errors of the underlying server surface through `listen` below; never crash the process.
  });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    void admit(req).then((refusal) => {
      if (refusal) refuse(socket, refusal.status, refusal.message);
      else if (closing) refuse(socket, 503, 'the server is closing');
      // (handleUpgrade registers the connection synchronously, so concurrent handshakes cannot pass this together.)
      else if (sockets.size >= maxConnections)
        refuse(socket, 503, `the server has ${maxConnections} connections open (startServer's maxConnections)`);
      else wss.handleUpgrade(req, socket, head, (ws) => connected(ws, req));
    });
  });

  function connected(ws: WebSocket, req: IncomingMessage): void {
    if (unref) req.socket.unref();
    sockets.set(ws, req.socket);
    const end = new Promise<void>((resolve) =>
      ws.once('close', () => {
        ended.delete(end);
        resolve();
      }),
    );
    ended.add(end);
    const channel: ReplyChannel = {
      send: (message, written) => {
        if (ws.readyState !== ws.OPEN) written();
        // The callback runs once the socket has taken the bytes (or failed): a client that does not read delays it.
        else ws.send(message, () => written());
      },
      // A session that waits for its replies to drain stops reading the socket: the client's
      // further messages stay in the kernel's buffers and then in the client (TCP backpressure).
      throttle: (paused) => (paused ? ws.pause() : ws.resume()),
    };
    const session = new Session(backend, limits, channel);
    sessions.add(session);
    const violation = (message: string) => {
      session.close();
      try {
        ws.send(encodeMessage(['fatal', message]));
      } finally {
        ws.close(1008, 'protocol violation');
      }
    };
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        violation('text frames are not part of the protocol; expected binary MessagePack frames');
        return;
      }
      // A plain Uint8Array view (not a Buffer, whose `slice` does not copy), as the decoder's `bin` values then are.
      const buffer = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : data;
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      try {
        session.receive(bytes);
      } catch (e) {
        violation(
          e instanceof ProtocolError ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    });
    ws.on('error', () => {
      // E.g. a message over maxMessageBytes: ws closes the connection (code 1009) itself.
    });
    ws.on('close', () => {
      sockets.delete(ws);
      sessions.delete(session);
      session.close();
    });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) =>
      reject(new BurnError('startServer', `cannot listen on ${host}:${port}: ${e.message}`));
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      http.on('error', () => {});
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  if (!options.token && !options.authenticate && !isLoopbackHost(address.address)) {
    // `host` named loopback but resolved elsewhere: never serve without credentials.
    await new Promise<void>((resolve) => http.close(() => resolve()));
    throw new BurnError('startServer', offLoopback(`${host} (bound to ${address.address})`));
  }
  const actual = address.port;

  const server: RemoteServer = {
    port: actual,
    url: `ws://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${actual}`,
    stats: () => ({ connections: sockets.size, handles: [...sessions].reduce((n, s) => n + s.size, 0) }),
    usage: () => {
      let liveBytes = 0,
        queuedBytes = 0,
        queuedReplies = 0,
        throttled = 0;
      for (const s of sessions) {
        liveBytes += s.liveBytes;
        queuedBytes += s.queuedBytes;
        queuedReplies += s.queuedReplies;
        if (s.throttled) throttled++;
      }
      return { liveBytes, queuedBytes, queuedReplies, throttled };
    },
    unref: () => {
      unref = true;
      http.unref();
      for (const socket of sockets.values()) socket.unref();
      return server;
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const ws of sockets.keys()) {
          ws.close(1001, 'server closing');
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
        }
        wss.close();
        const stopped = new Promise<void>((done) => http.close(() => done()));
        void Promise.all([stopped, ...ended]).then(() => resolve());
      })),
  };
  return server;
}

function positive(name: string, value: number, max: number): number {
  if (!(Number.isInteger(value) && value > 0 && value <= max))
    throw new BurnError('startServer', `${name} ${value}; expected an integer in 1..${max}`);
  return value;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True for a host that only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (and
 * IPv4-mapped loopback). Any other name is not: it may resolve to any interface.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.toLowerCase() === 'localhost') return true;
  try {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(h)) return LOOPBACK.check(h, 'ipv4');
    if (h.includes(':')) return LOOPBACK.check(h, 'ipv6');
  } catch {
    // Not an address BlockList parses.
  }
  return false;
}

function offLoopback(host: string): string {
  return `host '${host}' is not a loopback address and neither a token nor an authenticate hook was given: anyone who can reach it could run ops and hold its memory; pass { token } (clients connect with Device.remote(url, { token })) or an authenticate hook, or bind to 127.0.0.1`;
}

interface Refusal {
  readonly status: 401 | 403;
  readonly message: string;
}

/** Checks the options about who may connect; returns the check of one upgrade request. */
function admission(options: ServerOptions, host: string): (req: IncomingMessage) => Promise<Refusal | undefined> {
  const { token, authenticate, allowedOrigins = [] } = options;
  if (token !== undefined && (typeof token !== 'string' || token === ''))
    throw new BurnError('startServer', `token ${token === '' ? "''" : typeof token}; expected a non-empty string`);
  if (authenticate !== undefined && typeof authenticate !== 'function')
    throw new BurnError(
      'startServer',
      `authenticate of type ${typeof authenticate}; expected a function (request) => boolean | Promise<boolean>`,
    );
  for (const o of allowedOrigins) {
    if (o !== '*' && !isOrigin(o))
      throw new BurnError(
        'startServer',
        `allowedOrigins entry '${o}'; expected an origin such as 'https://app.example.com' or '*'`,
      );
  }
  if (token === undefined && authenticate === undefined && !isLoopbackHost(host))
    throw new BurnError('startServer', offLoopback(host));
  const anyOrigin = allowedOrigins.includes('*');
  const origins = new Set(allowedOrigins);
  const digest = token === undefined ? undefined : sha256(token);
  return async (req) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !anyOrigin && !origins.has(origin))
      return { status: 403, message: `origin '${origin.slice(0, 200)}' is not allowed (startServer's allowedOrigins)` };
    if (digest) {
      const presented = presentedToken(req);
      // Digests of equal length: the comparison takes the same time whatever the token presented.
      if (presented === undefined || !timingSafeEqual(sha256(presented), digest))
        return { status: 401, message: 'a valid token is required (Device.remote(url, { token }))' };
    }
    if (authenticate) {
      let ok = false;
      try {
        ok = (await authenticate(req)) === true;
      } catch {
        ok = false;
      }
      if (!ok) return { status: 401, message: 'not authenticated' };
    }
    return undefined;
  };
}

function isOrigin(o: string): boolean {
  try {
    return new URL(o).origin === o;
  } catch {
    return false;
  }
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The token of an `Authorization: Bearer` header or of the token subprotocol. */
function presentedToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer +(.+)$/i.exec(auth);
    if (m) return m[1]!;
  }
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',')) {
      const value = p.trim();
      if (value.startsWith(TOKEN_SUBPROTOCOL_PREFIX))
        return Buffer.from(value.slice(TOKEN_SUBPROTOCOL_PREFIX.length), 'base64url').toString('utf8');
    }
  }
  return undefined;
}

/** Answers an upgrade request with an HTTP error and closes its socket. */
function refuse(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(status === 401 ? ['WWW-Authenticate: Bearer realm="burn-ts"'] : []),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

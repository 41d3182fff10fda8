import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import type { Device } from '../../device/device.js';
import { BurnError } from '../../tensor/errors.js';
import { DEFAULT_LIMITS, encodeMessage } from './protocol.js';
import { ProtocolError, Session } from './session.js';

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The interface to listen on (default `127.0.0.1`: this machine only; `0.0.0.0` for every interface). */
  readonly host?: string;
  /** Largest accepted message in bytes (default 256 MiB); a larger one closes its connection. */
  readonly maxMessageBytes?: number;
  /** Most elements of one tensor (default 2^28); an op whose output is larger fails. */
  readonly maxElements?: number;
  /** Most live tensor handles of one connection (default 2^20). */
  readonly maxHandles?: number;
}

/** Counters of a running server. */
export interface ServerStats {
  /** Open connections. */
  readonly connections: number;
  /** Live tensor handles, over all connections. */
  readonly handles: number;
}

/** A running remote-backend server. */
export interface RemoteServer {
  /** The port it listens on (the one chosen by the system when started with port 0). */
  readonly port: number;
  /** `ws://host:port`, for `Device.remote`. */
  readonly url: string;
  /** Connection and handle counters. */
  stats(): ServerStats;
  /** Lets the process exit while the server still listens (as `net.Server.unref`). */
  unref(): RemoteServer;
  /** Closes every connection (their handles are freed) and stops listening. */
  close(): Promise<void>;
}

/** Milliseconds a closing server waits for a client to answer its close frame. */
const CLOSE_GRACE_MS = 1000;

/**
 * Starts a server of the remote backend (Burn's `burn-remote` server): clients connect with
 * `Device.remote('ws://host:port')` and their tensor ops run on `device` (any device; each
 * connection has its own handle table, freed when it closes). `port` 0 picks a free port.
 * Messages are validated before they reach the backend: a malformed or hostile message fails
 * that command (or closes that connection) and never stops the server.
 */
export async function startServer(device: Device, port: number, options: ServerOptions = {}): Promise<RemoteServer> {
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new BurnError('startServer', `port ${port}; expected an integer in 0..65535`);
  const limits = {
    maxMessageBytes: positive('maxMessageBytes', options.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes, 2 ** 31 - 1),
    maxElements: positive('maxElements', options.maxElements ?? DEFAULT_LIMITS.maxElements, 2 ** 32),
    maxHandles: positive('maxHandles', options.maxHandles ?? DEFAULT_LIMITS.maxHandles, 2 ** 32),
  };
  const host = options.host ?? '127.0.0.1';
  const backend = device.backend as Backend<TensorPrimitive>;
  const sessions = new Set<Session<TensorPrimitive>>();
  const sockets = new Map<WebSocket, Socket>();
  const ended = new Set<Promise<void>>();
  let unref = false;
  let closing: Promise<void> | undefined;

  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('burn-ts remote server: connect with a WebSocket (Device.remote)\n');
  });
  const wss = new WebSocketServer({ server: http, maxPayload: limits.maxMessageBytes, perMessageDeflate: false });
  wss.on('error', () => {
    // Errors of the underlying server surface through `listen` below; never crash the process.
  });
  wss.on('connection', (ws, req) => {
    if (unref) req.socket.unref();
    sockets.set(ws, req.socket);
    const end = new Promise<void>((resolve) => ws.once('close', () => {
      ended.delete(end);
      resolve();
    }));
    ended.add(end);
    const session = new Session(backend, limits, (message) => {
      if (ws.readyState === ws.OPEN) ws.send(message);
    });
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
      const buffer = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      try {
        session.receive(bytes);
      } catch (e) {
        violation(e instanceof ProtocolError ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`);
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
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(new BurnError('startServer', `cannot listen on ${host}:${port}: ${e.message}`));
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      http.on('error', () => {});
      resolve();
    });
  });
  const actual = (http.address() as AddressInfo).port;

  const server: RemoteServer = {
    port: actual,
    url: `ws://${host.includes(':') ? `[${host}]` : host}:${actual}`,
    stats: () => ({ connections: sockets.size, handles: [...sessions].reduce((n, s) => n + s.size, 0) }),
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
  if (!(Number.isInteger(value) && value > 0 && value <= max)) throw new BurnError('startServer', `${name} ${value}; expected an integer in 1..${max}`);
  return value;
}

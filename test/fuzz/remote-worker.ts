// The worker of remote-frames.test.ts: a remote-backend server on 127.0.0.1 (an ephemeral port)
// over the CPU's js engine, with small limits. Its backend is wrapped so that any exception other
// than a BurnError raised while the server runs a client's command is reported to the test (the
// session turns it into a well-formed reply, which would hide it). A worker, so that a frame that
// makes the server loop forever is caught as a hang and a crash does not take the test down.
import { parentPort } from 'node:worker_threads';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { startServer, type ServerStats } from '../../src/backends/remote/index.js';
import { BurnError, Device } from '../../src/index.js';
import { describeThrown } from './arbitraries.js';

/** The limits of the fuzzed server (the stated bounds of what a client may make it hold). */
export const FUZZ_SERVER_LIMITS = {
  maxElements: 1 << 16,
  maxLiveBytes: 16 << 20,
  maxMessageBytes: 4 << 20,
  maxHandles: 4096,
} as const;

/** A request: `stats` returns the server's counters and the internal errors seen since the last one. */
export interface RemoteRequest {
  readonly id: number;
  readonly cmd: 'url' | 'stats';
}

/** The reply. */
export interface RemoteReply {
  readonly id: number;
  readonly url: string;
  /** Random per worker: a different one means the server was restarted (it died). */
  readonly instance: number;
  readonly stats: ServerStats;
  readonly internal: readonly string[];
}

const internal: string[] = [];
const note = (method: string | symbol, e: unknown) => {
  if (!(e instanceof BurnError) && internal.length < 20)
    internal.push(
      `backend.${String(method)}: ${describeThrown(e)}\n${e instanceof Error ? (e.stack ?? '').split('\n').slice(1, 5).join('\n') : ''}`,
    );
};
const inner = Device.cpu({ engine: 'js' }).backend as Backend<TensorPrimitive>;
// Every method call of the backend goes through here; results and BurnErrors pass unchanged.
const watched = new Proxy(inner, {
  get(target, method) {
    const v = Reflect.get(target, method, target) as unknown;
    if (typeof v !== 'function') return v;
    return (...args: unknown[]) => {
      try {
        const out = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (out instanceof Promise)
          return out.catch((e: unknown) => {
            note(method, e);
            throw e;
          });
        return out;
      } catch (e) {
        note(method, e);
        throw e;
      }
    };
  },
});
const server = await startServer(new Device(watched, 'cpu(js, watched)'), 0, FUZZ_SERVER_LIMITS);
const instance = Math.floor(Math.random() * 2 ** 31);

parentPort!.on('message', (req: RemoteRequest) => {
  const reply: RemoteReply = {
    id: req.id,
    url: server.url,
    instance,
    stats: server.stats(),
    internal: internal.splice(0),
  };
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });

/**
 * `burn-ts/remote`: the remote backend (Burn's `burn-remote`). {@link startServer} runs tensor ops
 * for clients over WebSocket on any device; clients use `Device.remote('ws://host:port')` from
 * `burn-ts`, whose ops stay synchronous (shapes are computed on the client) and whose reads are
 * awaited. See ./protocol.ts for the wire format.
 *
 * Security: the server listens on 127.0.0.1 by default and refuses to listen elsewhere without a
 * `token` (clients: `Device.remote(url, { token })`) or an `authenticate` hook; browser pages
 * connect only from `allowedOrigins`. Each connection is bounded in live tensor bytes
 * (`maxLiveBytes`), queued replies (`maxQueuedReplyBytes`, `maxQueuedReplies`: a client that does
 * not read is throttled, not buffered for), message size, elements, handles, and the server in
 * connections (`ServerOptions` has each limit and its default). The client checks every reply
 * against its request and rejects pending requests, naming the URL and the reason, when the
 * connection dies.
 */
export {
  startServer,
  type RemoteServer,
  type ServedDevice,
  type ServerOptions,
  type ServerStats,
  type ServerUsage,
} from './server.js';
export {
  RemoteBackend,
  RemoteTensor,
  type RemoteOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './client.js';

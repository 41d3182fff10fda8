/**
 * `burn-ts/remote`: the remote backend (Burn's `burn-remote`). {@link startServer} runs tensor ops
 * for clients over WebSocket on any device; clients use `Device.remote('ws://host:port')` from
 * `burn-ts`, whose ops stay synchronous (shapes are computed on the client) and whose reads are
 * awaited. See ./protocol.ts for the wire format.
 */
export { startServer, type RemoteServer, type ServerOptions, type ServerStats } from './server.js';
export { RemoteBackend, RemoteTensor, type RemoteOptions, type WebSocketConstructor, type WebSocketLike } from './client.js';

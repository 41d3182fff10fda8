/**
 * `burn-ts/remote` in a browser (package.json's `browser` condition): the client only. A page
 * connects with `Device.remote('ws://host:port')` over the browser's WebSocket; the server
 * (`startServer`) is Node-only.
 */
export {
  RemoteBackend,
  RemoteTensor,
  type RemoteOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './client.js';

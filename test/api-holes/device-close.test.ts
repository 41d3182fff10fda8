// A remote device can be closed through the public API (`device.close()`), against
// the in-process server the remote tests use: the server frees the client's handles, later reads
// and ops fail with a clear BurnError, Device.remote(url) connects again; autodiff over a remote
// device closes it too; on local devices close() changes nothing.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Tensor, type TensorData } from '../../src/index.js';
import { startServer } from '../../src/backends/remote/index.js';

const js = Device.cpu({ engine: 'js' });
const server = await startServer(js, 0);
after(async () => {
  await server.close();
});
const values = async (t: { toData(): Promise<TensorData> }) => Array.from((await t.toData()).toArray());
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition not reached in 2 s');
};
const closedByClient = (e: unknown) => {
  assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
  assert.match(
    e.message,
    /the connection to ws:\/\/127\.0\.0\.1:\d+ was closed by the client; the tensors on remote\(ws:.*\) are gone \(Device\.remote\(url\) connects again\)/,
  );
  return true;
};

describe('Device.close', () => {
  it('closes a remote device: handles freed on the server, later reads and ops refused, a new device on reconnect', async () => {
    const d = Device.remote(server.url);
    const t = Tensor.fromFloats([1, 2, 3], d).mul(2);
    assert.deepEqual(await values(t), [2, 4, 6]);
    assert.equal(server.stats().connections, 1);
    assert.ok(server.stats().handles >= 1);
    d.close();
    await until(() => server.stats().connections === 0);
    assert.deepEqual(server.stats(), { connections: 0, handles: 0 });
    await assert.rejects(t.toData(), closedByClient);
    assert.throws(() => t.add(1), closedByClient);
    await assert.rejects(d.sync(), closedByClient);
    d.close(); // twice: nothing
    const again = Device.remote(server.url);
    assert.notEqual(again, d);
    assert.deepEqual(await values(Tensor.fromFloats([1, 2], again).add(1)), [2, 3]);
    again.close();
    await until(() => server.stats().connections === 0);
  });

  it('a read pending at close rejects; closing the autodiff device closes the remote device under it', async () => {
    const d = Device.remote(server.url);
    const ad = d.autodiff();
    const x = Tensor.fromFloats([1, 2], ad).requireGrad();
    const y = x.mul(x).sum();
    await ad.sync();
    const pending = y.toData();
    ad.close();
    await assert.rejects(pending, closedByClient);
    await until(() => server.stats().connections === 0);
    assert.notEqual(Device.remote(server.url), d);
    Device.remote(server.url).close();
  });

  it('does nothing on a local device', async () => {
    const t = Tensor.fromFloats([1, 2], js);
    js.close();
    js.autodiff().close();
    assert.deepEqual(await values(t.add(1)), [2, 3]);
    assert.equal(Device.cpu({ engine: 'js' }), js);
  });
});

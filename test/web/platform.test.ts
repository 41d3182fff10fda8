// The browser counterparts of Node's files, exercised in Node where they can be: fetch-based
// loading (fetchModule, loadOnnx with an http URL) against a local server, HTTP errors naming the
// URL, the in-memory metric logger, IndexedDbStorage's message where there is no IndexedDB, and
// requireNodeBuiltin's message. The page side runs in bundle.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BurnError, Device, Tensor } from '../../src/index.js';
import { LinearConfig } from '../../src/nn/index.js';
import { loadOnnx } from '../../src/onnx/index.js';
import { requireNodeBuiltin } from '../../src/platform/node-builtin.js';
import { fetchModule, IndexedDbStorage } from '../../src/store/index.js';
import { InMemoryMetricLogger } from '../../src/train/index.js';

const device = Device.cpu({ engine: 'js' });
const fixtures = new URL('../api-contract/fixtures/', import.meta.url);
const tiny = JSON.parse(readFileSync(new URL('tiny.json', fixtures), 'utf8')) as {
  input: number[][][][];
  output: number[][];
};

describe('fetch-based loading over http', () => {
  let server: Server;
  let base: string;
  const saved = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
  const files: Record<string, Uint8Array> = {
    '/model.bpk': saved.toBytes(),
    '/tiny.onnx': readFileSync(new URL('tiny.onnx', fixtures)),
  };

  before(async () => {
    server = createServer((req, res) => {
      const body = files[req.url ?? ''];
      res.writeHead(body ? 200 : 404);
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => server.close());

  it('fetchModule loads a burnpack from a URL into a module, in place', async () => {
    const fresh = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
    const loaded = await fetchModule(fresh, `${base}/model.bpk`);
    assert.equal(loaded, fresh);
    assert.deepEqual(loaded.weight.val().toDataSync().toArray(), saved.weight.val().toDataSync().toArray());
    assert.deepEqual(loaded.bias!.val().toDataSync().toArray(), saved.bias!.val().toDataSync().toArray());
    const byUrl = await fetchModule(
      new LinearConfig({ dInput: 3, dOutput: 2 }).init(device),
      new URL('/model.bpk', base),
    );
    assert.deepEqual(byUrl.weight.val().toDataSync().toArray(), saved.weight.val().toDataSync().toArray());
  });

  it('an HTTP error is a BurnError naming the URL and the status', async () => {
    await assert.rejects(
      fetchModule(new LinearConfig({ dInput: 3, dOutput: 2 }).init(device), `${base}/missing.bpk`),
      (e: Error) => {
        assert.ok(e instanceof BurnError);
        assert.equal(e.message, `fetchModule: cannot fetch '${base}/missing.bpk': HTTP 404 Not Found`);
        return true;
      },
    );
    await assert.rejects(
      loadOnnx(`${base}/missing.onnx`, device),
      /^BurnError: loadOnnx: cannot fetch 'http:\/\/127\.0\.0\.1:\d+\/missing\.onnx': HTTP 404 Not Found$/,
    );
    await assert.rejects(
      fetchModule(new LinearConfig({ dInput: 3, dOutput: 2 }).init(device), 'http://127.0.0.1:1/x.bpk'),
      /^BurnError: fetchModule: cannot fetch 'http:\/\/127\.0\.0\.1:1\/x\.bpk': /,
    );
  });

  it('loadOnnx fetches an http URL (a string or a URL) and runs the model as from a file', async () => {
    for (const source of [`${base}/tiny.onnx`, new URL('/tiny.onnx', base)]) {
      const model = await loadOnnx(source, device);
      const { logits } = model.run({ image: Tensor.fromFloats(tiny.input, device) });
      const got = logits!.toDataSync().toArray(),
        want = tiny.output.flat();
      assert.equal(got.length, want.length);
      want.forEach((w, i) =>
        assert.ok(Math.abs(got[i]! - w) <= 1e-4 * Math.max(1, Math.abs(w)), `[${i}] ${got[i]} vs ${w}`),
      );
    }
  });
});

describe('InMemoryMetricLogger', () => {
  it('reads back entries and epoch values as the file logger does', () => {
    const logger = new InMemoryMetricLogger();
    logger.log('train', 1, { name: 'Loss', formatted: '', serialized: '2,1' });
    logger.log('train', 1, { name: 'Loss', formatted: '', serialized: '1,3' });
    logger.log('train', 1, { name: 'Loss', formatted: '', serialized: '' });
    logger.log('valid', 1, { name: 'Loss', formatted: '', serialized: '4,2' });
    logger.log('valid', 1, { name: 'Loss', formatted: '', serialized: '0.5,final' });
    logger.flush();
    assert.deepEqual(logger.read('train', 1, 'Loss'), [
      { value: 2, count: 1 },
      { value: 1, count: 3 },
    ]);
    assert.equal(logger.epochValue('train', 1, 'Loss'), (2 * 1 + 1 * 3) / 4);
    assert.equal(logger.epochValue('valid', 1, 'Loss'), 0.5);
    assert.ok(Number.isNaN(logger.epochValue('train', 2, 'Loss')));
    assert.deepEqual(logger.read('train', 2, 'Accuracy'), []);
  });
});

describe('browser-only and Node-only features say where they work', () => {
  it('IndexedDbStorage without IndexedDB (Node) is a BurnError pointing at files', async () => {
    await assert.rejects(
      IndexedDbStorage.open('x'),
      /^BurnError: IndexedDbStorage\.open: IndexedDB is not available here \(browsers and workers have it; in Node use files: saveFile\/loadFile\)$/,
    );
  });

  it('requireNodeBuiltin returns the module in Node, and outside Node names the feature', () => {
    assert.equal(typeof requireNodeBuiltin<typeof import('node:path')>('node:path', 'op', 'paths').join, 'function');
    const proc = globalThis.process;
    const versions = Object.getOwnPropertyDescriptor(proc, 'versions')!;
    const get = proc.getBuiltinModule;
    try {
      // A page: no process.versions.node, no getBuiltinModule.
      Object.defineProperty(proc, 'versions', { value: {}, configurable: true });
      (proc as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      assert.throws(
        () => requireNodeBuiltin('node:fs', 'loadOnnx', 'loading a model from a file path'),
        /^BurnError: loadOnnx: loading a model from a file path is only available in Node\.js \(in a browser, pass bytes or a URL to fetch\)$/,
      );
    } finally {
      Object.defineProperty(proc, 'versions', versions);
      proc.getBuiltinModule = get;
    }
  });
});

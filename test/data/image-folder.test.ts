// ImageFolderDataset (Burn's vision ImageFolderDataset): classification from root/<class>/*,
// multi-label and segmentation items; PNG, JPEG and BMP files generated here and decoded by the
// pure-JavaScript decoders; corrupt images give a BurnError naming the file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import { decodeImage, ImageFolderDataset, readImage } from '../../src/data/index.js';

const require = createRequire(import.meta.url);
const { PNG } = require('pngjs') as { PNG: { sync: { write(png: { width: number; height: number; data: Uint8Array }, options: Record<string, unknown>): Buffer } } };
const jpeg = require('jpeg-js') as { encode(img: { width: number; height: number; data: Uint8Array }, quality: number): { data: Uint8Array } };

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
  const data = options.colorType === 0 || options.colorType === 2 ? pixels.map((v, i) => (i % 4 === 3 ? 255 : v)) : pixels;
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
    assert.deepEqual([...gray.data], [...rgba(3, 2)].filter((_, i) => i % 4 === 0));
    const graya = readImage(join(dir, 'graya.png'));
    assert.equal(graya.channels, 2);
    assert.deepEqual([...graya.data], [...rgba(3, 2)].filter((_, i) => i % 4 === 0 || i % 4 === 3));
    // 16-bit gray keeps 16 bits.
    const wide = new Uint16Array([1000, 1000, 1000, 65535, 65000, 65000, 65000, 65535]);
    writeFileSync(join(dir, 'gray16.png'), PNG.sync.write({ width: 2, height: 1, data: new Uint8Array(wide.buffer) }, { colorType: 0, bitDepth: 16, inputColorType: 6 }));
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
      for (const [k, want] of [200, 100, 50].entries()) assert.ok(Math.abs(c.data[p * 3 + k]! - want) <= 3, `pixel ${p} channel ${k}: ${c.data[p * 3 + k]}`);
    }
    // A one-component (gray) JPEG, made by Pillow: Image.new('L', (4, 2)) with these pixels, quality 100.
    const grayJpeg = Buffer.from(GRAY_JPEG, 'base64');
    const g = decodeImage(grayJpeg, 'gray.jpg');
    assert.deepEqual([g.width, g.height, g.channels], [4, 2, 1]);
    [0, 40, 80, 120, 160, 200, 240, 255].forEach((v, p) => assert.ok(Math.abs(g.data[p]! - v) <= 2, `gray pixel ${p}: ${g.data[p]} vs ${v}`));
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
    assert.throws(() => decodeImage(good.subarray(0, 40), 'cut.png'), burnError(/^decodeImage: cut\.png is not a valid PNG/));
    const flipped = Uint8Array.from(good);
    flipped[good.length - 20] ^= 0xff;
    assert.throws(() => decodeImage(flipped, 'crc.png'), burnError(/^decodeImage: crc\.png is not a valid PNG: /));
    jpg(join(dir, 'ok.jpg'), 16, 16, [1, 2, 3]);
    const j = readFileSync(join(dir, 'ok.jpg'));
    assert.throws(() => decodeImage(j.subarray(0, 200), 'cut.jpg'), burnError(/^decodeImage: cut\.jpg is not a valid JPEG/));
    assert.throws(() => decodeImage(new TextEncoder().encode('hello'), 'text.png'), burnError(/text\.png is not a PNG, JPEG or BMP image \(first bytes: 68 65 6c 6c\)/));
    assert.throws(() => decodeImage(new Uint8Array(0), 'empty.png'), burnError(/first bytes: none, the file is empty/));
    assert.throws(() => decodeImage(new Uint8Array([0x42, 0x4d, 0, 0]), 'x.bmp'), burnError(/x\.bmp is not a valid BMP: 4 bytes; the headers alone take 54/));
    bmp(join(dir, 'b.bmp'), 5, 3, 24);
    assert.throws(() => decodeImage(readFileSync(join(dir, 'b.bmp')).subarray(0, 70), 'short.bmp'), burnError(/short\.bmp is not a valid BMP: truncated/));
    assert.throws(() => readImage(join(dir, 'nope.png')), burnError(/cannot read .*nope\.png/));
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
    assert.deepEqual(all.map((x) => x.imagePath), [join(tree, 'cat', 'a.png'), join(tree, 'cat', 'b.jpg'), join(tree, 'dog', 'D.PNG'), join(tree, 'dog', 'c.bmp'), join(tree, 'zoo', 'bird', 'e.png')]);
    assert.deepEqual(all.map((x) => x.annotation), [1, 1, 2, 2, 0].map((label) => ({ kind: 'label', label })));
    const a = all[0]!;
    assert.deepEqual([a.imageWidth, a.imageHeight, a.channels, a.depth], [3, 2, 3, 8]);
    assert.deepEqual([...a.image], rgbOf(3, 2));
    assert.equal(all[3]!.channels, 3);
    assert.deepEqual([...all[3]!.image], rgbOf(5, 3));
    assert.equal(d.get(5), undefined);
    assert.deepEqual(ImageFolderDataset.newClassification(tree, { extensions: ['png'] }).toArray().map((x) => x.imagePath.split('/').pop()), ['a.png', 'D.PNG', 'e.png']);
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
    assert.deepEqual(s.get(1)!.annotation, { kind: 'segmentationMask', mask: [0, 1, 2, 2, 1, 0] }, 'an RGB mask reads its first channel');
  });

  it('names what is wrong', () => {
    assert.throws(() => ImageFolderDataset.newClassification(join(root, 'absent')), burnError(/^ImageFolderDataset\.newClassification: cannot read the folder .*absent/));
    assert.throws(() => ImageFolderDataset.newClassification(tree, { extensions: ['gif'] }), burnError(/extension 'gif' is not supported; expected some of bmp, jpg, jpeg, png/));
    assert.throws(() => ImageFolderDataset.newClassificationWithItems([['x/a.gif', 'cat']], ['cat']), burnError(/x\/a\.gif: extension 'gif' is not supported/));
    assert.throws(() => ImageFolderDataset.newClassificationWithItems([[join(tree, 'cat', 'a.png'), 'cow']], ['cat', 'dog']), burnError(/a\.png: class 'cow' is not among the classes \[cat, dog\]/));
    assert.throws(() => ImageFolderDataset.newMultilabelClassificationWithItems([[join(tree, 'cat', 'a.png'), ['cat', 'cow']]], ['cat']), burnError(/class 'cow'/));
    const bad = join(root, 'bad');
    mkdirSync(join(bad, 'cat'), { recursive: true });
    writeFileSync(join(bad, 'cat', 'broken.png'), 'GIF89a, not a png');
    const d = ImageFolderDataset.newClassification(bad);
    assert.throws(() => d.get(0), burnError(/^decodeImage: .*broken\.png is not a PNG, JPEG or BMP image/));
  });
});

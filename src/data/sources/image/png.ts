import { createRequire } from 'node:module';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { BurnError } from '../../../core/errors.js';
import { fromRgba, type DecodedImage } from './decoded.js';
import { checkPixels } from './limits.js';

interface PngImage {
  width: number;
  height: number;
  data: Uint8Array | Uint16Array;
}
interface PngJs {
  PNG: { sync: { read(buffer: Uint8Array, options?: { skipRescale?: boolean }): PngImage } };
}

let pngjs: PngJs | undefined;

/** True when `bytes` start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
}

/** Samples per pixel of each PNG color type. */
const SAMPLES: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** The Adam7 passes: x start, y start, x step, y step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The bytes the filtered scanlines of an interlaced image take (each pass's rows, each with its filter byte). */
function interlacedSize(width: number, height: number, bitsPerPixel: number): number {
  let size = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = width > x0 ? Math.ceil((width - x0) / dx) : 0;
    const h = height > y0 ? Math.ceil((height - y0) / dy) : 0;
    if (w > 0 && h > 0) size += h * (Math.ceil((w * bitsPerPixel) / 8) + 1);
  }
  return size;
}

/**
 * Checks that the IDAT data of an interlaced PNG inflates to no more than the image needs.
 * pngjs bounds the inflation of non-interlaced images by their size, but inflates interlaced ones
 * without a limit, so a small file could expand to gigabytes.
 */
function checkInterlacedData(
  bytes: Uint8Array,
  file: string,
  width: number,
  height: number,
  depth: number,
  colorType: number,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at, false);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === 'IDAT') parts.push(bytes.subarray(at + 8, Math.min(at + 8 + length, bytes.length)));
    if (type === 'IEND') break;
    at += 12 + length;
  }
  const channels = SAMPLES[colorType] ?? 4;
  const need = interlacedSize(width, height, channels * Math.min(depth, 16));
  try {
    inflateSync(Buffer.concat(parts), { maxOutputLength: Math.max(1, need), finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BurnError(
        'decodeImage',
        `${file} is not a valid PNG: its image data inflates to more than the ${need} bytes a ${width}x${height} interlaced image of ${channels} channel(s) at ${depth} bits needs`,
      );
    }
    // Other faults are pngjs's to report, with its own words.
  }
}

/**
 * Decodes a PNG with pngjs (pure JavaScript), keeping its channels as the `image` crate does:
 * gray → 1, gray + alpha (or a transparent color) → 2, RGB → 3, RGBA → 4; palette images become RGB
 * (RGBA when some entry is transparent); 16-bit images keep 16 bits, 1/2/4-bit gray scale to 8.
 * An image over `maxPixels` is refused from its header, before anything is decoded.
 */
export function decodePng(bytes: Uint8Array, file: string, maxPixels: number): DecodedImage {
  if (bytes.length < 33 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR')
    throw new BurnError('decodeImage', `${file} is not a valid PNG: no IHDR header`);
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = header.getUint32(16, false);
  const height = header.getUint32(20, false);
  checkPixels(file, width, height, maxPixels);
  const depth = bytes[24]!;
  const colorType = bytes[25]!;
  if (bytes[28] === 1) checkInterlacedData(bytes, file, width, height, depth, colorType);
  pngjs ??= createRequire(import.meta.url)('pngjs') as PngJs;
  let png: PngImage & { transColor?: unknown };
  try {
    png = pngjs.PNG.sync.read(
      bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      { skipRescale: depth === 16 },
    );
  } catch (e) {
    throw new BurnError('decodeImage', `${file} is not a valid PNG: ${(e as Error).message}`);
  }
  const pixels = png.width * png.height;
  const wide = depth === 16;
  const rgba = png.data;
  const make = (n: number) => (wide ? new Uint16Array(n) : new Uint8Array(n)) as typeof rgba;
  let pick: number[];
  if (colorType === 0) pick = png.transColor ? [0, 3] : [0];
  else if (colorType === 4) pick = [0, 3];
  else if (colorType === 2) pick = png.transColor ? [0, 1, 2, 3] : [0, 1, 2];
  else if (colorType === 6) pick = [0, 1, 2, 3];
  else {
    let opaque = true;
    for (let p = 0; p < pixels && opaque; p++) opaque = rgba[p * 4 + 3] === 255;
    pick = opaque ? [0, 1, 2] : [0, 1, 2, 3];
  }
  return {
    width: png.width,
    height: png.height,
    channels: pick.length as 1 | 2 | 3 | 4,
    depth: wide ? 16 : 8,
    data: fromRgba(rgba, pixels, pick, make),
  };
}

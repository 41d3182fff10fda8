import { createRequire } from 'node:module';
import { BurnError } from '../../../tensor/errors.js';
import { fromRgba, type DecodedImage } from './decoded.js';

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

/**
 * Decodes a PNG with pngjs (pure JavaScript), keeping its channels as the `image` crate does:
 * gray → 1, gray + alpha (or a transparent color) → 2, RGB → 3, RGBA → 4; palette images become RGB
 * (RGBA when some entry is transparent); 16-bit images keep 16 bits, 1/2/4-bit gray scale to 8.
 */
export function decodePng(bytes: Uint8Array, file: string): DecodedImage {
  if (bytes.length < 33 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') throw new BurnError('decodeImage', `${file} is not a valid PNG: no IHDR header`);
  const depth = bytes[24]!;
  const colorType = bytes[25]!;
  pngjs ??= createRequire(import.meta.url)('pngjs') as PngJs;
  let png: PngImage & { transColor?: unknown };
  try {
    png = pngjs.PNG.sync.read(bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { skipRescale: depth === 16 });
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
  return { width: png.width, height: png.height, channels: pick.length as 1 | 2 | 3 | 4, depth: wide ? 16 : 8, data: fromRgba(rgba, pixels, pick, make) };
}

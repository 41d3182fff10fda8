import { BurnError } from '../../../core/errors.js';
import type { DecodedImage } from './decoded.js';
import { checkPixels } from './limits.js';

/** True when `bytes` start with the BMP signature `BM`. */
export function isBmp(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d;
}

/**
 * Decodes an uncompressed BMP (8-bit palette, 24-bit BGR or 32-bit BGRA; bottom-up or top-down):
 * RGB (3 channels), or RGBA for 32-bit images. An image over `maxPixels` is refused from its
 * header, before anything is decoded.
 */
export function decodeBmp(bytes: Uint8Array, file: string, maxPixels: number): DecodedImage {
  const bad = (why: string): BurnError => new BurnError('decodeImage', `${file} is not a valid BMP: ${why}`);
  if (bytes.length < 54) throw bad(`${bytes.length} bytes; the headers alone take 54`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  const width = view.getInt32(18, true);
  const rawHeight = view.getInt32(22, true);
  const bits = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  if (headerSize < 40) throw bad(`header size ${headerSize}; expected a BITMAPINFOHEADER (40 bytes or more)`);
  if (compression !== 0 && !(compression === 3 && bits === 32))
    throw bad(`compression ${compression}; only uncompressed images are supported`);
  if (bits !== 8 && bits !== 24 && bits !== 32) throw bad(`${bits} bits per pixel; expected 8, 24 or 32`);
  const height = Math.abs(rawHeight);
  if (width <= 0 || height === 0) throw bad(`size ${width}x${rawHeight}`);
  checkPixels(file, width, height, maxPixels);
  const stride = Math.ceil((width * bits) / 32) * 4;
  if (offset + stride * height > bytes.length)
    throw bad(
      `truncated: ${width}x${height} at ${bits} bits need ${offset + stride * height} bytes, the file has ${bytes.length}`,
    );
  const channels = bits === 32 ? 4 : 3;
  const out = new Uint8Array(width * height * channels);
  const paletteAt = 14 + headerSize;
  for (let y = 0; y < height; y++) {
    const row = offset + (rawHeight > 0 ? height - 1 - y : y) * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      let b: number, g: number, r: number;
      if (bits === 8) {
        const p = paletteAt + 4 * bytes[row + x]!;
        if (p + 2 >= offset) throw bad(`palette index ${bytes[row + x]} is outside the palette`);
        [b, g, r] = [bytes[p]!, bytes[p + 1]!, bytes[p + 2]!];
      } else {
        const p = row + x * (bits / 8);
        [b, g, r] = [bytes[p]!, bytes[p + 1]!, bytes[p + 2]!];
        if (bits === 32) out[o + 3] = bytes[p + 3]!;
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
    }
  }
  return { width, height, channels, depth: 8, data: out };
}

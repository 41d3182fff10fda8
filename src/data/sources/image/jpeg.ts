import { createRequire } from 'node:module';
import { BurnError } from '../../../tensor/errors.js';
import { fromRgba, type DecodedImage } from './decoded.js';

interface JpegJs {
  decode(data: Uint8Array, options: { useTArray: true; formatAsRGBA: boolean; tolerantDecoding: boolean }): { width: number; height: number; data: Uint8Array };
}

let jpegjs: JpegJs | undefined;

/** True when `bytes` start with the JPEG SOI marker. */
export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** The number of color components in the JPEG's frame header (1 gray, 3 color), or 0 when absent. */
function components(bytes: Uint8Array): number {
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return 0;
    const marker = bytes[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return bytes[i + 9]!;
    i += 2 + ((bytes[i + 2]! << 8) | bytes[i + 3]!);
  }
  return 0;
}

/** Decodes a baseline or progressive JPEG with jpeg-js (pure JavaScript): gray → 1 channel, color → 3. */
export function decodeJpeg(bytes: Uint8Array, file: string): DecodedImage {
  jpegjs ??= createRequire(import.meta.url)('jpeg-js') as JpegJs;
  let img: { width: number; height: number; data: Uint8Array };
  try {
    img = jpegjs.decode(bytes, { useTArray: true, formatAsRGBA: true, tolerantDecoding: false });
  } catch (e) {
    throw new BurnError('decodeImage', `${file} is not a valid JPEG: ${(e as Error).message}`);
  }
  if (img.width === 0 || img.height === 0) throw new BurnError('decodeImage', `${file} is not a valid JPEG: no image data`);
  const gray = components(bytes) === 1;
  const pick = gray ? [0] : [0, 1, 2];
  return { width: img.width, height: img.height, channels: gray ? 1 : 3, depth: 8, data: fromRgba(img.data, img.width * img.height, pick, (n) => new Uint8Array(n)) };
}

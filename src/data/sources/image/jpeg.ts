import { createRequire } from 'node:module';
import { BurnError } from '../../../core/errors.js';
import { fromRgba, type DecodedImage } from './decoded.js';
import { checkPixels } from './limits.js';

interface JpegJs {
  decode(
    data: Uint8Array,
    options: {
      useTArray: true;
      formatAsRGBA: boolean;
      tolerantDecoding: boolean;
      maxResolutionInMP: number;
      maxMemoryUsageInMB: number;
    },
  ): { width: number; height: number; data: Uint8Array };
}

let jpegjs: JpegJs | undefined;

/** True when `bytes` start with the JPEG SOI marker. */
export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** The frame header of a JPEG (its first SOF segment): size and number of color components (1 gray, 3 color). */
interface JpegFrame {
  readonly width: number;
  readonly height: number;
  readonly components: number;
}

/** Finds the frame header among the segments before the image data; `undefined` when there is none. */
function frameOf(bytes: Uint8Array): JpegFrame | undefined {
  let i = 2;
  while (i + 1 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    // Fill bytes (0xff) and markers without a length (TEM, RSTn, SOI).
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda || i + 3 >= bytes.length) return undefined; // EOI or SOS: no frame before the data
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 >= bytes.length) return undefined;
      return {
        height: (bytes[i + 5]! << 8) | bytes[i + 6]!,
        width: (bytes[i + 7]! << 8) | bytes[i + 8]!,
        components: bytes[i + 9]!,
      };
    }
    i += 2 + ((bytes[i + 2]! << 8) | bytes[i + 3]!);
  }
  return undefined;
}

/**
 * Decodes a baseline or progressive JPEG with jpeg-js (pure JavaScript): gray → 1 channel, color
 * → 3. An image over `maxPixels` is refused from its frame header, before anything is decoded
 * (and jpeg-js is given the same limit, for a frame header this reader does not find).
 */
export function decodeJpeg(bytes: Uint8Array, file: string, maxPixels: number): DecodedImage {
  const frame = frameOf(bytes);
  if (frame) checkPixels(file, frame.width, frame.height, maxPixels);
  jpegjs ??= createRequire(import.meta.url)('jpeg-js') as JpegJs;
  let img: { width: number; height: number; data: Uint8Array };
  try {
    // jpeg-js's own memory cap (512 MB by default) raised for images the pixel limit allows: coefficients, planes and RGBA take about 16 bytes per pixel.
    const memoryMB = Math.max(512, Math.ceil((maxPixels * 16) / 2 ** 20));
    img = jpegjs.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      tolerantDecoding: false,
      maxResolutionInMP: maxPixels / 1e6,
      maxMemoryUsageInMB: memoryMB,
    });
  } catch (e) {
    throw new BurnError('decodeImage', `${file} is not a valid JPEG: ${(e as Error).message}`);
  }
  if (img.width === 0 || img.height === 0)
    throw new BurnError('decodeImage', `${file} is not a valid JPEG: no image data`);
  const gray = frame?.components === 1;
  const pick = gray ? [0] : [0, 1, 2];
  return {
    width: img.width,
    height: img.height,
    channels: gray ? 1 : 3,
    depth: 8,
    data: fromRgba(img.data, img.width * img.height, pick, (n) => new Uint8Array(n)),
  };
}

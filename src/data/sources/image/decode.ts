import { readFileSync } from 'node:fs';
import { BurnError } from '../../../core/errors.js';
import { decodeBmp, isBmp } from './bmp.js';
import type { DecodedImage } from './decoded.js';
import { decodeJpeg, isJpeg } from './jpeg.js';
import { maxPixelsOf, type ImageDecodeOptions } from './limits.js';
import { decodePng, isPng } from './png.js';

export type { DecodedImage } from './decoded.js';

/**
 * Decodes PNG, JPEG or BMP bytes (recognised by their signature, not the file name) with pure
 * JavaScript decoders; a `BurnError` names `file` and what is wrong. An image of more than
 * `options.maxPixels` pixels (default `DEFAULT_MAX_PIXELS`) is refused from its header, before
 * anything is decoded.
 */
export function decodeImage(bytes: Uint8Array, file: string, options: ImageDecodeOptions = {}): DecodedImage {
  const maxPixels = maxPixelsOf('decodeImage', options);
  if (isPng(bytes)) return decodePng(bytes, file, maxPixels);
  if (isJpeg(bytes)) return decodeJpeg(bytes, file, maxPixels);
  if (isBmp(bytes)) return decodeBmp(bytes, file, maxPixels);
  const head = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new BurnError(
    'decodeImage',
    `${file} is not a PNG, JPEG or BMP image (first bytes: ${head || 'none, the file is empty'})`,
  );
}

/** Reads and decodes an image file (`options` as {@link decodeImage}). */
export function readImage(path: string, options: ImageDecodeOptions = {}): DecodedImage {
  maxPixelsOf('decodeImage', options);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new BurnError('decodeImage', `cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeImage(bytes, path, options);
}

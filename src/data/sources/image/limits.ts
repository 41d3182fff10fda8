import { BurnError } from '../../../core/errors.js';

/**
 * The default of {@link ImageDecodeOptions.maxPixels}: 2^26 pixels (8192 × 8192). Decoding goes
 * through an RGBA buffer, so an image at the limit takes about 0.5 GB while it is decoded.
 */
export const DEFAULT_MAX_PIXELS = 2 ** 26;

/** Options of the image decoders (`decodeImage`, `readImage`, `ImageFolderDataset`). */
export interface ImageDecodeOptions {
  /**
   * The most pixels (width × height) an image may have; default {@link DEFAULT_MAX_PIXELS}.
   * Checked from the file's header before anything is decoded, so a small file declaring a huge
   * image is refused without allocating it.
   */
  readonly maxPixels?: number;
}

/** The pixel limit of `options`, checked (a `BurnError` for `op` when it is not a positive integer). */
export function maxPixelsOf(op: string, options: ImageDecodeOptions): number {
  const max = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  if (!Number.isSafeInteger(max) || max < 1) throw new BurnError(op, `maxPixels ${max}; expected a positive integer`);
  return max;
}

/** Throws a `BurnError` naming `file`, its size and the limit when a `width` × `height` image is over `max` pixels. */
export function checkPixels(file: string, width: number, height: number, max: number): void {
  if (width * height > max) {
    throw new BurnError(
      'decodeImage',
      `${file} is ${width}x${height} pixels (${width * height}), over the limit of ${max} pixels; pass a larger maxPixels option to decode it`,
    );
  }
}

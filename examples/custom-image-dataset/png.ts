// Grayscale PNG files for the examples, written with pngjs (a dependency of burn-ts's image decoding).
import { createRequire } from 'node:module';

/** The slice of pngjs's API used here (the package ships no type declarations). */
interface PngSync {
  write(
    png: { width: number; height: number; data: Uint8Array },
    options: { colorType: number; inputColorType: number; inputHasAlpha: boolean },
  ): Buffer;
}
const { PNG } = createRequire(import.meta.url)('pngjs') as { PNG: { sync: PngSync } };

/** Encodes `pixels` (`height * width` bytes, row-major) as an 8-bit grayscale PNG file. */
export function encodeGrayPng(width: number, height: number, pixels: Uint8Array): Buffer {
  if (pixels.length !== width * height)
    throw new Error(`encodeGrayPng: ${pixels.length} pixels for ${width}x${height}`);
  // colorType 0 = grayscale; the input is one byte per pixel with no alpha.
  return PNG.sync.write({ width, height, data: pixels }, { colorType: 0, inputColorType: 0, inputHasAlpha: false });
}

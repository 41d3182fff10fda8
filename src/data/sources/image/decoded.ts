/** A decoded image: interleaved channels, row-major, `width * height * channels` values. */
export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA. */
  readonly channels: 1 | 2 | 3 | 4;
  /** Bits per value: 8 (`Uint8Array`) or 16 (`Uint16Array`). */
  readonly depth: 8 | 16;
  readonly data: Uint8Array | Uint16Array;
}

/** Keeps `channels` of every pixel of an RGBA buffer (`pick` lists the RGBA offsets to keep). */
export function fromRgba<T extends Uint8Array | Uint16Array>(
  rgba: T,
  pixels: number,
  pick: readonly number[],
  make: (n: number) => T,
): T {
  const out = make(pixels * pick.length);
  for (let p = 0, o = 0; p < pixels; p++) for (const c of pick) out[o++] = rgba[p * 4 + c]!;
  return out;
}

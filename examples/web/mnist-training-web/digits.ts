/// <reference lib="dom" />
// The page's side of digits.bin (see digits-asset.ts for the layout): fetched once, gunzipped
// with the browser's DecompressionStream (unless the server already decoded it), checked.

/** Images (count × 784 bytes, 0–255) and labels of one split. */
export interface DigitSplit {
  readonly count: number;
  readonly images: Uint8Array;
  readonly labels: Uint8Array;
}

/** The offline MNIST digits, split as burn-ts's MnistDataset splits them. */
export interface Digits {
  readonly train: DigitSplit;
  readonly test: DigitSplit;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Fetches and unpacks `url` (default: digits.bin next to the page). */
export async function loadDigits(url = new URL('./digits.bin', document.baseURI)): Promise<Digits> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} failed: HTTP ${response.status}`);
  const bytes = await gunzip(new Uint8Array(await response.arrayBuffer()));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== 'BMNS' || view.getUint32(4, true) !== 1)
    throw new Error(`${url.href}: not a version-1 digits file (magic '${magic}')`);
  const trainCount = view.getUint32(8, true),
    testCount = view.getUint32(12, true);
  const expected = 16 + (trainCount + testCount) * 785;
  if (bytes.length !== expected)
    throw new Error(`${url.href}: ${bytes.length} bytes; expected ${expected} for ${trainCount} + ${testCount} digits`);
  let offset = 16;
  const take = (n: number): Uint8Array => bytes.subarray(offset, (offset += n));
  const train = { count: trainCount, images: take(trainCount * 784), labels: take(trainCount) };
  const test = { count: testCount, images: take(testCount * 784), labels: take(testCount) };
  return { train, test };
}

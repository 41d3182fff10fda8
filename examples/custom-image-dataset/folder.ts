// Builds the image folder the example trains on: Fashion-MNIST images written as PNG files, one
// folder per class, as a dataset downloaded as image files would be laid out.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset, MnistItem } from 'burn-ts/data';
import { encodeGrayPng } from './png.ts';

/** Fashion-MNIST's classes; the number prefix keeps the sorted folder order equal to the label order. */
export const CLASSES = [
  '0-t-shirt',
  '1-trouser',
  '2-pullover',
  '3-dress',
  '4-coat',
  '5-sandal',
  '6-shirt',
  '7-sneaker',
  '8-bag',
  '9-ankle-boot',
] as const;

/**
 * Writes the first `perClass` images of each class of `dataset` to `dir/<class>/<index>.png`; a
 * folder already written with the same count is kept. Returns the number of files.
 */
export function writeImageFolder(dir: string, dataset: Dataset<MnistItem>, perClass: number): number {
  const marker = join(dir, '.complete');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === String(perClass)) return perClass * CLASSES.length;
  for (const name of CLASSES) mkdirSync(join(dir, name), { recursive: true });
  const counts = new Array<number>(CLASSES.length).fill(0);
  let written = 0;
  for (let i = 0; i < dataset.len() && written < perClass * CLASSES.length; i++) {
    const item = dataset.get(i)!;
    if (counts[item.label]! >= perClass) continue;
    const pixels = Uint8Array.from(item.image.flat());
    writeFileSync(join(dir, CLASSES[item.label]!, `${String(i).padStart(5, '0')}.png`), encodeGrayPng(28, 28, pixels));
    counts[item.label]! += 1;
    written++;
  }
  writeFileSync(marker, String(perClass));
  return written;
}

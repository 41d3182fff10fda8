// A dataset of the page's own, reopened in Web Workers by its factory `openSquares`. Each item
// says where it was loaded, so the test can tell workers from the main thread.
import { DatasetBase, type WorkerRecipe } from '../../../src/data/index.browser.js';

/** One item: its index, its square, and where it was loaded. */
export interface Square {
  readonly i: number;
  readonly square: number;
  readonly row: number[];
  readonly loadedIn: 'worker' | 'page';
}

/** `len` squares; `factory` names the export a worker opens it with. */
export class Squares extends DatasetBase<Square> {
  constructor(
    private readonly n: number,
    private readonly factory = 'openSquares',
  ) {
    super();
  }

  get(index: number): Square | undefined {
    if (index >= this.n) return undefined;
    const inPage = typeof (globalThis as { document?: unknown }).document !== 'undefined';
    return {
      i: index,
      square: index * index,
      row: Array.from({ length: 20 }, (_, k) => index + k / 2),
      loadedIn: inPage ? 'page' : 'worker',
    };
  }

  len(): number {
    return this.n;
  }

  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: this.factory, args: { n: this.n } };
  }
}

/** The factory the worker module registers. */
export function openSquares(args: { n: number }): Squares {
  return new Squares(args.n);
}

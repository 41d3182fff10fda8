import { readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { BurnError } from '../../core/errors.js';
import { DatasetBase } from '../dataset/dataset.js';
import type { WorkerRecipe } from '../dataset/recipe.js';
import { readImage } from './image/decode.js';
import { maxPixelsOf, type ImageDecodeOptions } from './image/limits.js';

/** The image file extensions an image folder reads (Burn's `SUPPORTED_FILES`), compared case-insensitively. */
export const IMAGE_EXTENSIONS: readonly string[] = ['bmp', 'jpg', 'jpeg', 'png'];

/** The annotation of an image (Burn's `Annotation`). */
export type Annotation =
  | { readonly kind: 'label'; readonly label: number }
  | { readonly kind: 'multiLabel'; readonly labels: readonly number[] }
  | { readonly kind: 'segmentationMask'; readonly mask: readonly number[] };

/** An item of an {@link ImageFolderDataset} (Burn's `ImageDatasetItem`). */
export interface ImageDatasetItem {
  /** Interleaved channels, row-major: `imageHeight * imageWidth * channels` values. */
  readonly image: Uint8Array | Uint16Array;
  readonly imageWidth: number;
  readonly imageHeight: number;
  /** 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA, as stored in the file. */
  readonly channels: 1 | 2 | 3 | 4;
  /** 8 (`Uint8Array`) or 16 bits per value (`Uint16Array`). */
  readonly depth: 8 | 16;
  readonly annotation: Annotation;
  readonly imagePath: string;
}

/** An annotation before class names are mapped to indices (what travels to workers). */
type RawAnnotation =
  | { readonly kind: 'label'; readonly name: string }
  | { readonly kind: 'multiLabel'; readonly names: readonly string[] }
  | { readonly kind: 'segmentationMask'; readonly maskPath: string };

interface RawItem {
  readonly imagePath: string;
  readonly annotation: RawAnnotation;
}

function checkExtension(op: string, path: string, extensions: readonly string[] = IMAGE_EXTENSIONS): void {
  const ext = extname(path).slice(1).toLowerCase();
  if (!extensions.includes(ext))
    throw new BurnError(op, `${path}: extension '${ext}' is not supported; expected one of ${extensions.join(', ')}`);
}

/** What a folder walk found: the files, and the paths that led to a folder already read. */
interface Walk {
  readonly files: string[];
  readonly visited: Set<string>;
  readonly revisits: string[];
}

/**
 * Lists the files under `dir`, following symbolic links but reading each real folder once (by
 * its real path), in sorted order: a link cycle, or folders linked many times over, cannot make
 * the walk loop or grow exponentially.
 */
function walk(op: string, dir: string, state: Walk, top: boolean): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (e) {
    if (!top) return; // vanished since it was stat'ed: skipped, as an entry that cannot be stat'ed
    throw new BurnError(op, `cannot read the folder ${dir}: ${(e as Error).message}`);
  }
  if (state.visited.has(real)) {
    state.revisits.push(dir);
    return;
  }
  state.visited.add(real);
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (e) {
    throw new BurnError(op, `cannot read the folder ${dir}: ${(e as Error).message}`);
  }
  for (const name of entries) {
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(op, path, state, false);
    else if (st.isFile()) state.files.push(path);
  }
}

/** The files under `root` (see {@link walk}); one warning lists the paths skipped because they lead to a folder already read. */
function listFiles(op: string, root: string): string[] {
  const state: Walk = { files: [], visited: new Set(), revisits: [] };
  walk(op, root, state, true);
  const n = state.revisits.length;
  if (n > 0) {
    const shown = state.revisits.slice(0, 3).join(', ') + (n > 3 ? ', …' : '');
    process.emitWarning(
      `${op}: ${root}: ${n} path${n === 1 ? ' leads' : 's lead'} through symbolic links to folders already read (${shown}); each folder was read once, at its first path`,
      { code: 'BURN_IMAGE_FOLDER_LINKS' },
    );
  }
  return state.files;
}

/**
 * Images on disk with their annotations (Burn's vision `ImageFolderDataset`): classification from
 * a `root/<class>/<image>` tree, multi-label classification, and segmentation masks. Images are
 * decoded on each `get` (PNG, JPEG, BMP, by pure-JavaScript decoders); a corrupt file gives a
 * `BurnError` naming it. Only paths are held in memory, and in data loader workers each worker
 * decodes its own images.
 */
export class ImageFolderDataset extends DatasetBase<ImageDatasetItem> {
  private readonly classIndex: ReadonlyMap<string, number>;
  /** The pixel limit of every image and mask read (see {@link ImageDecodeOptions}). */
  readonly maxPixels: number;

  private constructor(
    private readonly items: readonly RawItem[],
    readonly classes: readonly string[],
    options: ImageDecodeOptions,
    op = 'ImageFolderDataset',
  ) {
    super();
    this.maxPixels = maxPixelsOf(op, options);
    this.classIndex = new Map(classes.map((c, i) => [c, i]));
    for (const item of items) {
      const names =
        item.annotation.kind === 'label'
          ? [item.annotation.name]
          : item.annotation.kind === 'multiLabel'
            ? item.annotation.names
            : [];
      for (const name of names) {
        if (!this.classIndex.has(name))
          throw new BurnError(
            'ImageFolderDataset',
            `${item.imagePath}: class '${name}' is not among the classes [${classes.join(', ')}]`,
          );
      }
    }
  }

  /**
   * Classification from `root/<class>/…/<image>`: every image (by extension, case-insensitive, in
   * any depth of sub-folder) labelled by the name of its folder; classes are the sorted folder
   * names; items are sorted by path. `maxPixels` limits the size of each image (see
   * {@link ImageDecodeOptions}).
   */
  static newClassification(
    root: string,
    options: { readonly extensions?: readonly string[] } & ImageDecodeOptions = {},
  ): ImageFolderDataset {
    const op = 'ImageFolderDataset.newClassification';
    const extensions = (options.extensions ?? IMAGE_EXTENSIONS).map((e) => e.toLowerCase().replace(/^\./, ''));
    for (const e of extensions)
      if (!IMAGE_EXTENSIONS.includes(e))
        throw new BurnError(op, `extension '${e}' is not supported; expected some of ${IMAGE_EXTENSIONS.join(', ')}`);
    maxPixelsOf(op, options);
    const files = listFiles(op, root);
    const images = files.filter((f) => extensions.includes(extname(f).slice(1).toLowerCase())).sort();
    const items = images.map(
      (imagePath): RawItem => ({ imagePath, annotation: { kind: 'label', name: basename(dirname(imagePath)) } }),
    );
    const classes = [...new Set(items.map((i) => (i.annotation as { name: string }).name))].sort();
    return new ImageFolderDataset(items, classes, options, op);
  }

  /** Classification from `[imagePath, className]` pairs; `classes` gives the label of each name (its index). */
  static newClassificationWithItems(
    items: readonly (readonly [string, string])[],
    classes: readonly string[],
    options: ImageDecodeOptions = {},
  ): ImageFolderDataset {
    const op = 'ImageFolderDataset.newClassificationWithItems';
    return new ImageFolderDataset(
      items.map(([imagePath, name]) => {
        checkExtension(op, imagePath);
        return { imagePath, annotation: { kind: 'label', name } };
      }),
      classes,
      options,
      op,
    );
  }

  /** Multi-label classification from `[imagePath, classNames]` pairs. */
  static newMultilabelClassificationWithItems(
    items: readonly (readonly [string, readonly string[]])[],
    classes: readonly string[],
    options: ImageDecodeOptions = {},
  ): ImageFolderDataset {
    const op = 'ImageFolderDataset.newMultilabelClassificationWithItems';
    return new ImageFolderDataset(
      items.map(([imagePath, names]) => {
        checkExtension(op, imagePath);
        return { imagePath, annotation: { kind: 'multiLabel', names: [...names] } };
      }),
      classes,
      options,
      op,
    );
  }

  /**
   * Segmentation from `[imagePath, maskPath]` pairs: the mask is an image whose first channel
   * holds each pixel's class index (`classes` names them).
   */
  static newSegmentationWithItems(
    items: readonly (readonly [string, string])[],
    classes: readonly string[],
    options: ImageDecodeOptions = {},
  ): ImageFolderDataset {
    const op = 'ImageFolderDataset.newSegmentationWithItems';
    return new ImageFolderDataset(
      items.map(([imagePath, maskPath]) => {
        checkExtension(op, imagePath);
        checkExtension(op, maskPath);
        return { imagePath, annotation: { kind: 'segmentationMask', maskPath } };
      }),
      classes,
      options,
      op,
    );
  }

  get(index: number): ImageDatasetItem | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.items.length) return undefined;
    const raw = this.items[index]!;
    const img = readImage(raw.imagePath, { maxPixels: this.maxPixels });
    return {
      image: img.data,
      imageWidth: img.width,
      imageHeight: img.height,
      channels: img.channels,
      depth: img.depth,
      annotation: this.annotation(raw),
      imagePath: raw.imagePath,
    };
  }

  private annotation(raw: RawItem): Annotation {
    const a = raw.annotation;
    if (a.kind === 'label') return { kind: 'label', label: this.classIndex.get(a.name)! };
    if (a.kind === 'multiLabel') return { kind: 'multiLabel', labels: a.names.map((n) => this.classIndex.get(n)!) };
    const mask = readImage(a.maskPath, { maxPixels: this.maxPixels });
    if (mask.width === 0) throw new BurnError('ImageFolderDataset.get', `${a.maskPath}: empty mask`);
    const values: number[] = new Array(mask.width * mask.height);
    for (let p = 0; p < values.length; p++) values[p] = mask.data[p * mask.channels]!;
    return { kind: 'segmentationMask', mask: values };
  }

  len(): number {
    return this.items.length;
  }

  /** Workers receive the paths and annotations and decode the images themselves. */
  workerRecipe(): WorkerRecipe {
    return {
      module: import.meta.url,
      export: 'openImageFolderDataset',
      args: { items: this.items, classes: this.classes, maxPixels: this.maxPixels },
    };
  }

  /** @internal Rebuilds a dataset from its recipe's arguments. */
  static fromRecipe(args: RecipeArgs): ImageFolderDataset {
    return new ImageFolderDataset(args.items, args.classes, { maxPixels: args.maxPixels });
  }
}

/** What travels to a data loader worker. */
interface RecipeArgs {
  items: RawItem[];
  classes: string[];
  maxPixels: number;
}

/**
 * Worker factory of {@link ImageFolderDataset}.
 * @public a data loader worker imports it by the name its recipe gives.
 */
export function openImageFolderDataset(args: RecipeArgs): ImageFolderDataset {
  return ImageFolderDataset.fromRecipe(args);
}

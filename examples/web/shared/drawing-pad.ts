/// <reference lib="dom" />
// A canvas to draw a digit on with a mouse, a pen or a finger (pointer events), and the
// conversion of the drawing to an MNIST-style input: the ink's bounding box scaled to fit 20×20,
// placed in a 28×28 image so that its center of mass is at the center, as MNIST's digits are.
// The 28×28 result is drawn on a second canvas: what the model sees, and what tests read back.

/** Size of the box the digit is scaled into, and of the image (MNIST's 20 and 28). */
const BOX = 20;
const SIZE = 28;

/** The drawing surface: white strokes on black. */
export class DrawingPad {
  private drawing = false;
  private last: { x: number; y: number } | undefined;
  private ink = false;
  private readonly listeners: (() => void)[] = [];
  /** Increments on every change of the drawing (so a caller can tell which drawing a result belongs to). */
  version = 0;

  constructor(
    readonly canvas: HTMLCanvasElement,
    readonly lineWidth = Math.round(canvas.width / 14),
  ) {
    canvas.style.touchAction = 'none';
    canvas.addEventListener('pointerdown', (e) => {
      canvas.setPointerCapture(e.pointerId);
      this.drawing = true;
      this.last = this.point(e);
      this.stroke(this.last, this.last);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!this.drawing) return;
      const p = this.point(e);
      this.stroke(this.last ?? p, p);
      this.last = p;
    });
    const end = (): void => {
      this.drawing = false;
      this.last = undefined;
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    this.clear();
  }

  /** Calls `listener` after every change of the drawing. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Whether anything has been drawn since the last clear. */
  get empty(): boolean {
    return !this.ink;
  }

  /** Wipes the drawing. */
  clear(): void {
    const ctx = this.context();
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    this.ink = false;
    this.changed();
  }

  private context(): CanvasRenderingContext2D {
    return this.canvas.getContext('2d', { willReadFrequently: true })!;
  }

  private point(e: PointerEvent): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect();
    return {
      x: ((e.clientX - rect.left) * this.canvas.width) / rect.width,
      y: ((e.clientY - rect.top) * this.canvas.height) / rect.height,
    };
  }

  private stroke(from: { x: number; y: number }, to: { x: number; y: number }): void {
    const ctx = this.context();
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = this.lineWidth;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(to.x, to.y);
    ctx.stroke();
    this.ink = true;
    this.changed();
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /**
   * Draws the MNIST-style 28×28 image of the drawing on `target` (a 28×28 canvas) and returns its
   * grayscale pixels (0–255, row-major), or undefined when nothing is drawn.
   */
  toMnist(target: HTMLCanvasElement): Uint8ClampedArray | undefined {
    const out = target.getContext('2d', { willReadFrequently: true })!;
    out.fillStyle = '#000';
    out.fillRect(0, 0, SIZE, SIZE);
    const { width, height } = this.canvas;
    const data = this.context().getImageData(0, 0, width, height).data;
    let x0 = width,
      y0 = height,
      x1 = -1,
      y1 = -1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (data[(y * width + x) * 4]! > 0) {
          x0 = Math.min(x0, x);
          x1 = Math.max(x1, x);
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
      }
    }
    if (x1 < 0) return undefined;
    // Scale the bounding box to fit BOX×BOX (keeping the aspect ratio), centered in the image.
    const w = x1 - x0 + 1,
      h = y1 - y0 + 1;
    const scale = BOX / Math.max(w, h);
    const sw = w * scale,
      sh = h * scale;
    const scratch = document.createElement('canvas');
    scratch.width = scratch.height = SIZE;
    const sctx = scratch.getContext('2d', { willReadFrequently: true })!;
    sctx.fillStyle = '#000';
    sctx.fillRect(0, 0, SIZE, SIZE);
    sctx.imageSmoothingEnabled = true;
    sctx.imageSmoothingQuality = 'high';
    sctx.drawImage(this.canvas, x0, y0, w, h, (SIZE - sw) / 2, (SIZE - sh) / 2, sw, sh);
    // Then shift it so that its center of mass is the image's center (whole pixels: no blur).
    const box = sctx.getImageData(0, 0, SIZE, SIZE).data;
    let mass = 0,
      mx = 0,
      my = 0;
    for (let i = 0; i < SIZE * SIZE; i++) {
      const v = box[i * 4]!;
      mass += v;
      mx += v * (i % SIZE);
      my += v * Math.floor(i / SIZE);
    }
    const dx = mass > 0 ? Math.round((SIZE - 1) / 2 - mx / mass) : 0;
    const dy = mass > 0 ? Math.round((SIZE - 1) / 2 - my / mass) : 0;
    out.drawImage(scratch, dx, dy);
    return readGray(target);
  }
}

/** The red channel of a canvas as grayscale pixels (0–255, row-major): the image a model gets. */
export function readGray(canvas: HTMLCanvasElement): Uint8ClampedArray {
  const rgba = canvas
    .getContext('2d', { willReadFrequently: true })!
    .getImageData(0, 0, canvas.width, canvas.height).data;
  const gray = new Uint8ClampedArray(canvas.width * canvas.height);
  for (let i = 0; i < gray.length; i++) gray[i] = rgba[i * 4]!;
  return gray;
}

/// <reference lib="dom" />
// The live learning curves on a canvas: the training loss (left axis) and the training batch
// accuracy (right axis, 0–100 %) against the step, both smoothed, and the validation accuracy of
// each epoch as dots.

interface Point {
  readonly step: number;
  readonly value: number;
}

/** A loss/accuracy chart drawn on `canvas`; redraws at most once per frame. */
export class LearningChart {
  private readonly loss: Point[] = [];
  private readonly accuracy: Point[] = [];
  private readonly valid: Point[] = [];
  private smoothLoss: number | undefined;
  private smoothAccuracy: number | undefined;
  private pending = false;

  constructor(
    readonly canvas: HTMLCanvasElement,
    public totalSteps: number,
  ) {
    this.draw();
  }

  /** Number of points drawn (the tests check that the curves grow). */
  get points(): number {
    return this.loss.length;
  }

  /** Adds a training step (smoothed with an exponential moving average). */
  addStep(step: number, loss: number, accuracy: number): void {
    this.smoothLoss = this.smoothLoss === undefined ? loss : 0.9 * this.smoothLoss + 0.1 * loss;
    this.smoothAccuracy = this.smoothAccuracy === undefined ? accuracy : 0.9 * this.smoothAccuracy + 0.1 * accuracy;
    this.loss.push({ step, value: this.smoothLoss });
    this.accuracy.push({ step, value: this.smoothAccuracy });
    this.request();
  }

  /** Adds a validation accuracy (%). */
  addValid(step: number, accuracy: number): void {
    this.valid.push({ step, value: accuracy });
    this.request();
  }

  /** Forgets every point (a new run). */
  reset(totalSteps: number): void {
    this.totalSteps = totalSteps;
    this.loss.length = this.accuracy.length = this.valid.length = 0;
    this.smoothLoss = this.smoothAccuracy = undefined;
    this.request();
  }

  private request(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  /** Draws everything now. */
  draw(): void {
    const ctx = this.canvas.getContext('2d')!;
    const { width, height } = this.canvas;
    const left = 44,
      right = 44,
      top = 12,
      bottom = 26;
    const w = width - left - right,
      h = height - top - bottom;
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.font = '11px system-ui, sans-serif';
    const maxLoss = Math.max(0.5, ...this.loss.map((p) => p.value));
    const x = (step: number): number => left + (w * step) / Math.max(1, this.totalSteps);
    const yLoss = (v: number): number => top + h * (1 - v / maxLoss);
    const yAcc = (v: number): number => top + h * (1 - v / 100);
    // Grid and axes.
    ctx.strokeStyle = '#dee2e6';
    ctx.fillStyle = '#495057';
    for (let i = 0; i <= 4; i++) {
      const y = top + (h * i) / 4;
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(left + w, y);
      ctx.stroke();
      ctx.textAlign = 'right';
      ctx.fillText((maxLoss * (1 - i / 4)).toFixed(2), left - 4, y + 4);
      ctx.textAlign = 'left';
      ctx.fillText(`${100 - 25 * i}%`, left + w + 4, y + 4);
    }
    ctx.textAlign = 'right';
    ctx.fillText(`step (of ${this.totalSteps})`, left + w, height - 6);
    const line = (points: Point[], y: (v: number) => number, color: string): void => {
      if (points.length === 0) return;
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      points.forEach((p, i) => (i === 0 ? ctx.moveTo(x(p.step), y(p.value)) : ctx.lineTo(x(p.step), y(p.value))));
      ctx.stroke();
      ctx.lineWidth = 1;
    };
    line(this.loss, yLoss, '#1971c2');
    line(this.accuracy, yAcc, '#2f9e44');
    ctx.fillStyle = '#e8590c';
    for (const p of this.valid) {
      ctx.beginPath();
      ctx.arc(x(p.step), yAcc(p.value), 4, 0, 2 * Math.PI);
      ctx.fill();
    }
    // Legend, under the plot (the curves fill its corners).
    const legend: [string, string][] = [
      ['#1971c2', 'train loss'],
      ['#2f9e44', 'train accuracy'],
      ['#e8590c', 'validation accuracy'],
    ];
    ctx.textAlign = 'left';
    legend.forEach(([color, label], i) => {
      const lx = left + i * 130;
      ctx.fillStyle = color;
      ctx.fillRect(lx, height - 15, 10, 10);
      ctx.fillStyle = '#212529';
      ctx.fillText(label, lx + 14, height - 6);
    });
  }
}

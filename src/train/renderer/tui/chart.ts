/** One line of a chart: runs of text with an optional color. */
export type ChartSegment = { readonly text: string; readonly color?: string };

/** A series to draw: points `(x, y)` joined by lines, in one color. */
export interface ChartSeries {
  readonly points: readonly (readonly [number, number])[];
  readonly color: string;
}

/** A rendered chart: the plot rows (braille characters) and the ranges they cover. */
export interface BrailleChart {
  readonly rows: ChartSegment[][];
  readonly xRange: readonly [number, number];
  readonly yRange: readonly [number, number];
}

// Bit of each dot in a braille cell (2 columns × 4 rows), Unicode U+2800 block order.
const DOT_BITS = [
  [0x01, 0x08],
  [0x02, 0x10],
  [0x04, 0x20],
  [0x40, 0x80],
] as const;

/**
 * Draws line series as a braille chart of `width × height` character cells (each cell holds 2×4
 * dots). Consecutive points are joined by straight lines; where series overlap, the later one's
 * color wins. Non-finite values are skipped (they break the line).
 */
export function brailleChart(series: readonly ChartSeries[], width: number, height: number): BrailleChart {
  const w = Math.max(1, Math.floor(width)),
    h = Math.max(1, Math.floor(height));
  const finite = series.flatMap((s) => s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)));
  let [x0, x1] = finite.length ? [Math.min(...finite.map((p) => p[0])), Math.max(...finite.map((p) => p[0]))] : [0, 1];
  let [y0, y1] = finite.length ? [Math.min(...finite.map((p) => p[1])), Math.max(...finite.map((p) => p[1]))] : [0, 1];
  if (x1 === x0) {
    x0 -= 0.5;
    x1 += 0.5;
  }
  if (y1 === y0) {
    const pad = Math.abs(y0) * 0.05 || 0.5;
    y0 -= pad;
    y1 += pad;
  }
  const dotsX = w * 2,
    dotsY = h * 4;
  const bits = new Uint8Array(w * h);
  const colors: (string | undefined)[] = new Array(w * h).fill(undefined);
  const toDot = (x: number, y: number): [number, number] => [
    Math.round(((x - x0) / (x1 - x0)) * (dotsX - 1)),
    Math.round(((y1 - y) / (y1 - y0)) * (dotsY - 1)),
  ];
  const plot = (dx: number, dy: number, color: string) => {
    if (dx < 0 || dy < 0 || dx >= dotsX || dy >= dotsY) return;
    const cell = Math.floor(dy / 4) * w + Math.floor(dx / 2);
    bits[cell]! |= DOT_BITS[dy % 4]![dx % 2]!;
    colors[cell] = color;
  };
  for (const s of series) {
    let prev: [number, number] | undefined;
    for (const [x, y] of s.points) {
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        prev = undefined;
        continue;
      }
      const cur = toDot(x, y);
      if (prev) line(prev, cur, (dx, dy) => plot(dx, dy, s.color));
      else plot(cur[0], cur[1], s.color);
      prev = cur;
    }
  }
  const rows: ChartSegment[][] = [];
  for (let r = 0; r < h; r++) {
    const row: ChartSegment[] = [];
    let text = '',
      color: string | undefined;
    for (let c = 0; c < w; c++) {
      const i = r * w + c;
      const ch = bits[i] ? String.fromCharCode(0x2800 + bits[i]!) : ' ';
      const cc = bits[i] ? colors[i] : color;
      if (cc !== color && text) {
        row.push(color ? { text, color } : { text });
        text = '';
      }
      color = cc;
      text += ch;
    }
    if (text) row.push(color ? { text, color } : { text });
    rows.push(row);
  }
  return { rows, xRange: [x0, x1], yRange: [y0, y1] };
}

/** Bresenham's line between two dots (both ends included). */
function line([ax, ay]: [number, number], [bx, by]: [number, number], plot: (x: number, y: number) => void): void {
  const dx = Math.abs(bx - ax),
    dy = -Math.abs(by - ay);
  const sx = ax < bx ? 1 : -1,
    sy = ay < by ? 1 : -1;
  let err = dx + dy,
    x = ax,
    y = ay;
  for (;;) {
    plot(x, y);
    if (x === bx && y === by) return;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y += sy;
    }
  }
}

/** A chart row as plain text (for tests and logs). */
export function rowText(row: readonly ChartSegment[]): string {
  return row.map((s) => s.text).join('');
}

// A scatter plot in text (Burn's example draws one with the textplots crate).

/** Options of {@link scatter}: the plot's size in characters and the range of both axes. */
export interface ScatterOptions {
  width: number;
  height: number;
  min: number;
  max: number;
}

/** Points `[x, y]` drawn as `·` (one point), `•` (a few) or `█` (many) on a square range, y = x dotted. */
export function scatter(
  points: ReadonlyArray<readonly [number, number]>,
  { width, height, min, max }: ScatterOptions,
): string {
  const counts = Array.from({ length: height }, () => new Array<number>(width).fill(0));
  const cell = (v: number, n: number): number =>
    Math.min(n - 1, Math.max(0, Math.floor(((v - min) / (max - min)) * n)));
  for (const [x, y] of points) counts[height - 1 - cell(y, height)]![cell(x, width)]! += 1;
  const rows = counts.map((row, r) =>
    row
      .map((c, col) =>
        c === 0
          ? height - 1 - r === cell(min + ((col + 0.5) / width) * (max - min), height)
            ? '.'
            : ' '
          : c === 1
            ? '·'
            : c < 5
              ? '•'
              : '█',
      )
      .join(''),
  );
  const label = (v: number): string => v.toFixed(1).padStart(4);
  return [
    ...rows.map((row, r) => `${r === 0 ? label(max) : r === height - 1 ? label(min) : '    '} |${row}`),
    `     +${'-'.repeat(width)}`,
    `      ${min.toFixed(1)}${'expected'.padStart(width / 2)}${max.toFixed(1).padStart(width / 2 - 3)}   (predicted on the vertical axis)`,
  ].join('\n');
}

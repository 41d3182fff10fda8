import { SPLIT_COLORS } from './colors.js';
import { nodeFs } from './logger.js';
import type { MetricHistory } from './renderer/base.js';

/** Options of {@link learningCurvesSvg}. */
export interface LearningCurvesOptions {
  /**
   * Which metrics get a logarithmic value axis (default: losses, i.e. names containing "loss",
   * whose decreases span decades). An axis stays linear when a value is not positive.
   */
  readonly logScale?: (name: string) => boolean;
}

const isLoss = (name: string): boolean => /loss/i.test(name);

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** The value axis: a position in [0, 1] for a value, and the tick values. */
interface Axis {
  readonly at: (v: number) => number;
  readonly ticks: readonly number[];
  readonly log: boolean;
}

function linearAxis(lo: number, hi: number): Axis {
  if (hi === lo) {
    hi += 0.5;
    lo -= 0.5;
  }
  return { at: (v) => (v - lo) / (hi - lo), ticks: [0, 1, 2, 3, 4].map((i) => lo + ((hi - lo) * i) / 4), log: false };
}

function logAxis(lo: number, hi: number): Axis {
  let a = Math.log10(lo),
    b = Math.log10(hi);
  if (b - a < 1e-9) {
    a -= 0.5;
    b += 0.5;
  }
  return {
    at: (v) => (Math.log10(v) - a) / (b - a),
    ticks: [0, 1, 2, 3, 4].map((i) => 10 ** (a + ((b - a) * i) / 4)),
    log: true,
  };
}

/**
 * One metric's learning curves (per epoch, one per split present) as an SVG panel at (x, y): the
 * title and the legend in a header row above the plotting area, so they never cover a curve.
 */
function panel(
  name: string,
  series: { split: 'train' | 'valid'; values: number[] }[],
  log: boolean,
  x: number,
  y: number,
  w: number,
  h: number,
): string {
  const all = series.flatMap((s) => s.values.filter(Number.isFinite));
  const epochs = Math.max(1, ...series.map((s) => s.values.length));
  const lo = all.length > 0 ? Math.min(...all) : 0,
    hi = all.length > 0 ? Math.max(...all) : 1;
  const axis = log && lo > 0 ? logAxis(lo, hi) : linearAxis(lo, hi);
  const left = x + 56,
    right = x + w - 12,
    top = y + 40,
    bottom = y + h - 32;
  const px = (e: number) => (epochs === 1 ? (left + right) / 2 : left + ((e - 1) / (epochs - 1)) * (right - left));
  const py = (v: number) => bottom - axis.at(v) * (bottom - top);
  const parts = [
    `<text x="${left}" y="${y + 18}" font-size="14" font-weight="bold">${esc(name)}</text>`,
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#888"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#888"/>`,
  ];
  for (const v of axis.ticks) {
    parts.push(`<text x="${left - 6}" y="${py(v) + 4}" text-anchor="end" font-size="10">${v.toPrecision(3)}</text>`);
    parts.push(`<line x1="${left}" y1="${py(v)}" x2="${right}" y2="${py(v)}" stroke="#eee"/>`);
  }
  for (let e = 1; e <= epochs; e++)
    parts.push(`<text x="${px(e)}" y="${bottom + 14}" text-anchor="middle" font-size="10">${e}</text>`);
  parts.push(
    `<text x="${(left + right) / 2}" y="${bottom + 28}" text-anchor="middle" font-size="11">epoch${axis.log ? ' (log scale)' : ''}</text>`,
  );
  for (const s of series) {
    const pts = s.values
      .map((v, i) => [i + 1, v] as const)
      .filter(([, v]) => Number.isFinite(v) && (!axis.log || v > 0));
    if (pts.length === 0) continue;
    parts.push(
      `<polyline fill="none" stroke="${SPLIT_COLORS[s.split]}" stroke-width="2" points="${pts.map(([e, v]) => `${px(e).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const [e, v] of pts)
      parts.push(
        `<circle cx="${px(e).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${SPLIT_COLORS[s.split]}"><title>${s.split} epoch ${e}: ${v}</title></circle>`,
      );
  }
  // The legend: right-aligned in the header row, one entry per split drawn.
  let lx = right;
  for (const s of [...series].reverse()) {
    const label = `— ${s.split}`;
    lx -= 8 + 7 * label.length;
    parts.push(`<text x="${lx}" y="${y + 30}" font-size="11" fill="${SPLIT_COLORS[s.split]}">${label}</text>`);
  }
  return parts.join('\n');
}

/** The learning curves of every metric as one SVG document (one panel per metric; losses on a log axis). */
export function learningCurvesSvg(history: MetricHistory, options: LearningCurvesOptions = {}): string {
  const logScale = options.logScale ?? isLoss;
  const names = [...new Set([...history.train.keys(), ...history.valid.keys()])];
  const w = 420,
    h = 270,
    cols = Math.min(2, Math.max(1, names.length));
  const rows = Math.max(1, Math.ceil(names.length / cols));
  const panels = names.map((name, i) =>
    panel(
      name,
      (['train', 'valid'] as const)
        .filter((s) => history[s].has(name))
        .map((split) => ({ split, values: history[split].get(name)! })),
      logScale(name),
      (i % cols) * w,
      Math.floor(i / cols) * h,
      w,
      h,
    ),
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${cols * w}" height="${rows * h}" viewBox="0 0 ${cols * w} ${rows * h}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${panels.join('\n')}\n</svg>\n`;
}

/** A self-contained HTML page with the curves and a table of the per-epoch values. */
export function learningCurvesHtml(history: MetricHistory, higherIsBetter: ReadonlyMap<string, boolean>): string {
  const rows: string[] = [];
  for (const split of ['train', 'valid'] as const) {
    for (const [name, values] of history[split]) {
      rows.push(
        `<tr><td>${split}</td><td>${esc(name)}${higherIsBetter.get(name) === false ? ' (lower is better)' : ''}</td>${values.map((v) => `<td>${Number.isFinite(v) ? v.toPrecision(5) : 'n/a'}</td>`).join('')}</tr>`,
      );
    }
  }
  const epochs = Math.max(0, ...[...history.train.values(), ...history.valid.values()].map((v) => v.length));
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>burn-ts learning curves</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:nth-child(-n+2){text-align:left}</style>
</head><body>
<h1>Learning curves</h1>
${learningCurvesSvg(history)}
<h2>Per-epoch values</h2>
<table><tr><th>split</th><th>metric</th>${Array.from({ length: epochs }, (_, i) => `<th>epoch ${i + 1}</th>`).join('')}</tr>
${rows.join('\n')}
</table>
</body></html>
`;
}

/** Writes `learning-curves.svg` and `learning-curves.html` into the artifact directory. */
export function writeLearningCurves(
  dir: string,
  history: MetricHistory,
  higherIsBetter: ReadonlyMap<string, boolean>,
): void {
  if (history.train.size === 0 && history.valid.size === 0) return;
  const fs = nodeFs('writeLearningCurves') as unknown as {
    mkdirSync(p: string, o: { recursive: boolean }): void;
    writeFileSync(p: string, d: string): void;
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(`${dir}/learning-curves.svg`, learningCurvesSvg(history));
  fs.writeFileSync(`${dir}/learning-curves.html`, learningCurvesHtml(history, higherIsBetter));
}

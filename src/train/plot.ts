import { nodeFs } from './logger.js';
import type { MetricHistory } from './renderer/base.js';

const COLORS = { train: '#1f77b4', valid: '#ff7f0e' } as const;

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** One metric's learning curves (train and valid per epoch) as an SVG panel at (x, y). */
function panel(name: string, series: { split: 'train' | 'valid'; values: number[] }[], x: number, y: number, w: number, h: number): string {
  const all = series.flatMap((s) => s.values.filter(Number.isFinite));
  const epochs = Math.max(1, ...series.map((s) => s.values.length));
  let lo = Math.min(...all), hi = Math.max(...all);
  if (!Number.isFinite(lo)) { lo = 0; hi = 1; }
  if (hi === lo) { hi += 0.5; lo -= 0.5; }
  const left = x + 56, right = x + w - 12, top = y + 28, bottom = y + h - 32;
  const px = (e: number) => (epochs === 1 ? (left + right) / 2 : left + ((e - 1) / (epochs - 1)) * (right - left));
  const py = (v: number) => bottom - ((v - lo) / (hi - lo)) * (bottom - top);
  const parts = [
    `<text x="${x + w / 2}" y="${y + 18}" text-anchor="middle" font-size="14" font-weight="bold">${esc(name)}</text>`,
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#888"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#888"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    parts.push(`<text x="${left - 6}" y="${py(v) + 4}" text-anchor="end" font-size="10">${v.toPrecision(3)}</text>`);
    parts.push(`<line x1="${left}" y1="${py(v)}" x2="${right}" y2="${py(v)}" stroke="#eee"/>`);
  }
  for (let e = 1; e <= epochs; e++) parts.push(`<text x="${px(e)}" y="${bottom + 14}" text-anchor="middle" font-size="10">${e}</text>`);
  parts.push(`<text x="${(left + right) / 2}" y="${bottom + 28}" text-anchor="middle" font-size="11">epoch</text>`);
  for (const s of series) {
    const pts = s.values.map((v, i) => [i + 1, v] as const).filter(([, v]) => Number.isFinite(v));
    if (pts.length === 0) continue;
    parts.push(`<polyline fill="none" stroke="${COLORS[s.split]}" stroke-width="2" points="${pts.map(([e, v]) => `${px(e).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`);
    for (const [e, v] of pts) parts.push(`<circle cx="${px(e).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${COLORS[s.split]}"><title>${s.split} epoch ${e}: ${v}</title></circle>`);
  }
  parts.push(`<text x="${right - 90}" y="${top + 4}" font-size="11" fill="${COLORS.train}">— train</text><text x="${right - 40}" y="${top + 4}" font-size="11" fill="${COLORS.valid}">— valid</text>`);
  return parts.join('\n');
}

/** The learning curves of every metric as one SVG document (one panel per metric). */
export function learningCurvesSvg(history: MetricHistory): string {
  const names = [...new Set([...history.train.keys(), ...history.valid.keys()])];
  const w = 420, h = 260, cols = Math.min(2, Math.max(1, names.length));
  const rows = Math.max(1, Math.ceil(names.length / cols));
  const panels = names.map((name, i) => panel(name, (['train', 'valid'] as const).filter((s) => history[s].has(name)).map((split) => ({ split, values: history[split].get(name)! })), (i % cols) * w, Math.floor(i / cols) * h, w, h));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${cols * w}" height="${rows * h}" viewBox="0 0 ${cols * w} ${rows * h}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${panels.join('\n')}\n</svg>\n`;
}

/** A self-contained HTML page with the curves and a table of the per-epoch values. */
export function learningCurvesHtml(history: MetricHistory, higherIsBetter: ReadonlyMap<string, boolean>): string {
  const rows: string[] = [];
  for (const split of ['train', 'valid'] as const) {
    for (const [name, values] of history[split]) {
      rows.push(`<tr><td>${split}</td><td>${esc(name)}${higherIsBetter.get(name) === false ? ' (lower is better)' : ''}</td>${values.map((v) => `<td>${Number.isFinite(v) ? v.toPrecision(5) : 'n/a'}</td>`).join('')}</tr>`);
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
export function writeLearningCurves(dir: string, history: MetricHistory, higherIsBetter: ReadonlyMap<string, boolean>): void {
  if (history.train.size === 0 && history.valid.size === 0) return;
  const fs = nodeFs('writeLearningCurves') as unknown as { mkdirSync(p: string, o: { recursive: boolean }): void; writeFileSync(p: string, d: string): void };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(`${dir}/learning-curves.svg`, learningCurvesSvg(history));
  fs.writeFileSync(`${dir}/learning-curves.html`, learningCurvesHtml(history, higherIsBetter));
}

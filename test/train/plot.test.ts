// Learning-curve plots and the summary: the legend sits outside the curves,
// losses use a log scale, the learning rate is a training-only setting (no validation curve, no
// "best" row), and the files use the dashboard's colors.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Device } from '../../src/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import { SPLIT_COLORS as DASHBOARD_COLORS } from '../../src/train/renderer/tui/app.js';
import {
  AccuracyMetric,
  CliRenderer,
  Learner,
  LearningRateMetric,
  learningCurvesSvg,
  LossMetric,
  SupervisedTraining,
  TrainingSummary,
  type MetricHistory,
} from '../../src/train/index.js';
import { TinyClassifier, TinyLoader, tinyData } from './helpers.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The numbers of attribute `name` on the elements matching `tag` in an SVG string. */
const attrs = (svg: string, tag: RegExp, name: string): number[] =>
  [...svg.matchAll(new RegExp(`<${tag.source}[^>]*\\b${name}="([-\\d.]+)"`, 'g'))].map((m) => Number(m[1]));

describe('learning-curve plots', () => {
  it('the legend is above the plotting area, not over the curves', () => {
    const history: MetricHistory = {
      train: new Map([['Accuracy', [10, 50, 90]]]),
      valid: new Map([['Accuracy', [20, 40, 95]]]),
    };
    const svg = learningCurvesSvg(history);
    const legend = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)"[^>]*>— (train|valid)<\/text>/g)].map((m) =>
      Number(m[1]),
    );
    assert.equal(legend.length, 2);
    const gridTop = Math.min(...attrs(svg, /line/, 'y1'));
    const pointsTop = Math.min(...attrs(svg, /circle/, 'cy'));
    for (const y of legend) assert.ok(y < gridTop && y < pointsTop, `legend at y=${y}, plot from y=${gridTop}`);
  });

  it('losses are drawn on a log scale (values a decade apart are evenly spaced); other metrics stay linear', () => {
    const history: MetricHistory = {
      train: new Map([
        ['Loss', [1, 0.1, 0.01]],
        ['Accuracy', [1, 0.1, 0.01]],
      ]),
      valid: new Map(),
    };
    const svg = learningCurvesSvg(history);
    const [loss, acc] = svg.split('font-weight="bold">Accuracy</text>') as [string, string];
    assert.match(loss, /font-weight="bold">Loss<\/text>/);
    assert.match(loss, /log scale/);
    assert.doesNotMatch(acc, /log scale/);
    const [a, b, c] = attrs(loss, /circle/, 'cy') as [number, number, number];
    assert.ok(Math.abs(b - a - (c - b)) < 0.2, `log scale: ${a}, ${b}, ${c}`);
    const [d, e, f] = attrs(acc, /circle/, 'cy') as [number, number, number];
    assert.ok(Math.abs(e - d - 10 * (f - e)) < 1, `linear scale: ${d}, ${e}, ${f}`);
    // A loss that is not positive everywhere falls back to a linear axis.
    assert.doesNotMatch(learningCurvesSvg({ train: new Map([['Loss', [1, 0, -1]]]), valid: new Map() }), /log scale/);
  });

  it("uses the dashboard's split colors", () => {
    const svg = learningCurvesSvg({ train: new Map([['Loss', [2, 1]]]), valid: new Map([['Loss', [3, 2]]]) });
    const strokes = [...svg.matchAll(/<polyline[^>]*stroke="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(strokes, [DASHBOARD_COLORS.train, DASHBOARD_COLORS.valid]);
  });

  it('the learning rate is tracked on the training split only, without a "best" row in the summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burn-plot-'));
    dirs.push(dir);
    const device = Device.cpu({ engine: 'js' }).autodiff();
    device.seed(3);
    const out: string[] = [];
    const result = await new SupervisedTraining(
      dir,
      new TinyLoader(tinyData(32, 1), 16, device),
      new TinyLoader(tinyData(16, 2), 16, device),
    )
      .metrics([new AccuracyMetric(), new LossMetric(), new LearningRateMetric()])
      .numEpochs(2)
      .summary()
      .renderer(new CliRenderer({ write: (l) => out.push(l), intervalMs: 0 }))
      .launch(new Learner(new TinyClassifier(device), new SgdConfig({}).init<TinyClassifier>(), 0.5));
    assert.deepEqual(readdirSync(join(dir, 'train', 'epoch-2')).sort(), [
      'Accuracy.log',
      'Learning_Rate.log',
      'Loss.log',
    ]);
    assert.deepEqual(readdirSync(join(dir, 'valid', 'epoch-2')).sort(), ['Accuracy.log', 'Loss.log']);
    assert.deepEqual(
      result.summary.metrics.map((m) => `${m.split} ${m.name}`),
      ['train Accuracy', 'train Loss', 'valid Accuracy', 'valid Loss'],
    );
    assert.doesNotMatch(result.summary.toString(), /Learning Rate/);
    assert.doesNotMatch(out.filter((l) => /^\[valid\]/.test(l)).join('\n'), /Learning Rate/);
    const svg = readFileSync(join(dir, 'learning-curves.svg'), 'utf8');
    const lrPanel = svg.slice(svg.indexOf('font-weight="bold">Learning Rate</text>'));
    assert.equal((lrPanel.match(/<polyline/g) ?? []).length, 1);
    assert.doesNotMatch(lrPanel.split('font-weight="bold">')[1] ?? '', /— valid/);
    assert.ok(result.summary instanceof TrainingSummary);
  });
});

// The terminal dashboard: its pieces (braille chart, state with ETA), the ink component rendered
// with ink's test renderer (screen text and key handling), and a real training run under a
// pseudo-terminal (tmux): progress, metric names and values, the plot, arrow keys and `q`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createElement } from 'react';
import { render } from 'ink-testing-library';
import { Dashboard, type DashboardAction } from '../../src/train/renderer/tui/app.js';
import { brailleChart, rowText } from '../../src/train/renderer/tui/chart.js';
import {
  DashboardState,
  formatDuration,
  FULL_POINTS,
  MetricTrack,
  RECENT_POINTS,
} from '../../src/train/renderer/tui/state.js';

const BRAILLE = /[\u2801-\u28ff]/;

describe('braille chart', () => {
  it('draws a rising line from the bottom-left to the top-right cell', () => {
    const chart = brailleChart(
      [
        {
          points: [
            [0, 0],
            [1, 1],
          ],
          color: 'red',
        },
      ],
      4,
      2,
    );
    assert.deepEqual(chart.xRange, [0, 1]);
    assert.deepEqual(chart.yRange, [0, 1]);
    const rows = chart.rows.map(rowText);
    assert.equal(rows.length, 2);
    assert.ok([...rows[1]!][0] !== ' ' && [...rows[0]!][3] !== ' ', rows.join('|'));
    // The bottom-left dot of the first cell (bit 0x40) and the top-right dot of the last (0x08) are set.
    assert.ok((rows[1]!.charCodeAt(0) - 0x2800) & 0x40);
    assert.ok((rows[0]!.charCodeAt(3) - 0x2800) & 0x08);
    assert.equal(chart.rows[0]!.find((s) => s.text.trim())!.color, 'red');
  });
  it('a flat series sits mid-height; non-finite points break the line; empty input is blank', () => {
    const flat = brailleChart(
      [
        {
          points: [
            [0, 5],
            [1, 5],
          ],
          color: 'blue',
        },
      ],
      3,
      3,
    ).rows.map(rowText);
    assert.equal(flat[0]!.trim(), '');
    assert.ok(BRAILLE.test(flat[1]!));
    assert.equal(flat[2]!.trim(), '');
    const broken = brailleChart(
      [
        {
          points: [
            [0, 0],
            [1, Number.NaN],
            [2, 0],
          ],
          color: 'x',
        },
      ],
      6,
      1,
    ).rows.map(rowText)[0]!;
    assert.equal(broken[2], ' ', broken);
    assert.deepEqual(brailleChart([], 5, 2).rows.map(rowText), ['     ', '     ']);
  });
});

describe('dashboard state', () => {
  it('tracks progress, ETA per split and for the run, and metric values', () => {
    let now = 0;
    const s = new DashboardState(() => now);
    s.update('train', { name: 'Loss', formatted: '', value: 2, unit: undefined, batch: 2, higherIsBetter: false });
    s.render({ split: 'train', epoch: 1, epochTotal: 2, iteration: 1, itemsProcessed: 10, itemsTotal: 100 });
    now = 1000;
    s.update('train', { name: 'Loss', formatted: '', value: 1.5, unit: undefined, batch: 1, higherIsBetter: false });
    s.render({ split: 'train', epoch: 1, epochTotal: 2, iteration: 2, itemsProcessed: 20, itemsTotal: 100 });
    assert.equal(s.fraction('train'), 0.2);
    assert.equal(s.eta('train'), 8); // 10 items/s since the first step, 80 left
    assert.equal(s.eta('valid'), undefined);
    assert.equal(s.totalFraction(), 0.1);
    assert.equal(s.totalEta(), 9);
    const loss = s.tracks.get('Loss')!;
    assert.equal(loss.display('train'), '1.500');
    assert.equal(loss.display('valid'), '-');
    assert.deepEqual(loss.recent.train, [
      [0, 2],
      [1, 1],
    ]);
    assert.deepEqual(loss.full.train, [
      [0.1, 2],
      [0.2, 1],
    ]);
    s.epochEnd('train', 1, { train: new Map([['Loss', [1.25]]]), valid: new Map() });
    assert.equal(loss.display('train'), '1.250');
    assert.deepEqual(loss.epochs.train, [1.25]);
  });
  it('cycles metrics and plot kinds; keeps bounded point buffers', () => {
    const s = new DashboardState();
    for (const name of ['A', 'B', 'C']) s.update('train', { name, formatted: '', value: 1, unit: '%' });
    s.selectMetric(-1);
    assert.equal(s.selectedTrack()!.name, 'C');
    s.selectMetric(2);
    assert.equal(s.selectedTrack()!.name, 'B');
    assert.equal(s.kind, 'full');
    s.cyclePlot();
    assert.equal(s.kind, 'recent');
    s.cyclePlot();
    assert.equal(s.kind, 'epochs');
    s.cyclePlot(-1);
    assert.equal(s.kind, 'recent');
    const t = new MetricTrack('x', undefined, true);
    for (let i = 0; i < 3000; i++) t.push('train', i, i / 3000);
    assert.equal(t.recent.train.length, RECENT_POINTS);
    assert.ok(
      t.full.train.length < 2 * FULL_POINTS && t.full.train.length >= FULL_POINTS / 2,
      `${t.full.train.length}`,
    );
    assert.equal(formatDuration(3725), '1h 02m 05s');
    assert.equal(formatDuration(65), '1m 05s');
    assert.equal(formatDuration(undefined), '---');
  });
});

/** A state after one epoch of training and part of its validation. */
function sampleState(): DashboardState {
  const s = new DashboardState();
  for (let i = 1; i <= 8; i++) {
    s.update('train', {
      name: 'Loss',
      formatted: '',
      value: 1 / i,
      unit: undefined,
      batch: 1 / i,
      higherIsBetter: false,
    });
    s.update('train', { name: 'Accuracy', formatted: '', value: 50 + i, unit: '%', batch: 50 + i });
    s.render({ split: 'train', epoch: 1, epochTotal: 3, iteration: i, itemsProcessed: 8 * i, itemsTotal: 64 });
  }
  s.epochEnd('train', 1, {
    train: new Map([
      ['Loss', [0.34]],
      ['Accuracy', [54.5]],
    ]),
    valid: new Map(),
  });
  s.update('valid', { name: 'Loss', formatted: '', value: 0.4, unit: undefined, batch: 0.4, higherIsBetter: false });
  s.update('valid', { name: 'Accuracy', formatted: '', value: 62.5, unit: '%', batch: 62.5 });
  s.render({ split: 'valid', epoch: 1, epochTotal: 3, iteration: 1, itemsProcessed: 8, itemsTotal: 16 });
  return s;
}

describe('dashboard component (ink test renderer)', () => {
  it('shows progress, metric values for both splits and a plot; arrow keys and q dispatch actions', async () => {
    const state = sampleState();
    const actions: DashboardAction[] = [];
    const view = render(
      createElement(Dashboard, { state, columns: 100, rows: 40, onAction: (a: DashboardAction) => actions.push(a) }),
    );
    const frame = view.lastFrame()!;
    assert.match(frame, /Progress/);
    assert.match(frame, /Train .*100\.0% epoch 1\/3 64\/64 ETA 0s/);
    assert.match(frame, /Valid .* 50\.0% epoch 1\/3 8\/16 ETA/);
    assert.match(frame, /Total .*ETA/);
    assert.match(frame, /Mode Validating {2}Epoch 1\/3 {2}Iteration 1/);
    assert.match(frame, /Metric +Train +Valid/);
    assert.match(frame, /▶ Loss +0\.340 +0\.400/);
    assert.match(frame, /Accuracy +54\.500 % +62\.500 %/);
    assert.match(frame, /Loss \(full history, lower is better\) ■ train ■ valid/);
    assert.ok(BRAILLE.test(frame), 'the plot has braille dots');
    assert.match(frame, /epoch 0\.125 +epoch 1/);
    assert.match(frame, /q stop/);
    for (const key of ['\u001B[C', '\u001B[D', '\u001B[B', '\u001B[A', 'q', '\u0003']) {
      view.stdin.write(key);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(actions, ['next-metric', 'previous-metric', 'next-plot', 'previous-plot', 'stop', 'interrupt']);
    state.selectMetric(1);
    state.cyclePlot();
    view.rerender(createElement(Dashboard, { state, columns: 100, rows: 40, onAction: () => {} }));
    assert.match(view.lastFrame()!, /Accuracy \(recent iterations, higher is better\)/);
    assert.match(view.lastFrame()!, /▶ Accuracy/);
    state.cyclePlot();
    state.stopping = 'Stopping: finishing the step';
    view.rerender(createElement(Dashboard, { state, columns: 100, rows: 40, onAction: () => {} }));
    assert.match(view.lastFrame()!, /Accuracy \(per epoch, higher is better\)/);
    assert.match(view.lastFrame()!, /Stopping: finishing the step/);
    view.unmount();
  });
});

// --- A real training run under tmux --------------------------------------------------------------

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('dashboard in a pseudo-terminal (tmux)', {
  skip: hasTmux ? false : 'tmux is not installed (apt-get install tmux)',
}, () => {
  it('renders live training and stops gracefully on q', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burn-tui-'));
    dirs.push(dir);
    const session = `burn-tui-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-t', session, '-S', '-200');
    // CI variables make ink print only the last frame; the pane is a real terminal without them.
    const command = `cd ${root} && env -u CI -u GITHUB_ACTIONS -u NODE_OPTIONS BURN_NO_DASHBOARD=0 ${process.execPath} --import tsx test/train/dashboard-run.ts ${dir} 200 25; sleep 120`;
    tmux('new-session', '-d', '-s', session, '-x', '110', '-y', '50', command);
    try {
      // Live: progress bars with ETA, the metric table with values, the plot (after an epoch).
      const live = await waitFor('the dashboard after epoch 2', () => {
        const s = screen();
        return /Train .*epoch [3-9]\/200/.test(s) && /Valid .*epoch/.test(s) ? s : undefined;
      });
      assert.match(live, /Progress/);
      assert.match(live, /Train +[█░]+ +\d+\.\d% epoch \d+\/200 \d+\/256 ETA/);
      assert.match(live, /Total +[█░]+ +\d+\.\d% ETA/);
      assert.match(live, /Mode (Training|Validating) +Epoch \d+\/200 +Iteration \d+/);
      assert.match(live, /▶ Accuracy +\d+\.\d{3} % +\d+\.\d{3} %/);
      assert.match(live, /Loss +\d\.\d{3} +\d\.\d{3}/);
      assert.match(live, /Accuracy \(full history, higher is better\)/);
      assert.ok(BRAILLE.test(live), 'the plot shows braille dots');
      // → switches the plotted metric, ↓ the plot kind.
      tmux('send-keys', '-t', session, 'Right');
      await waitFor(
        'the Loss plot',
        () => (/Loss \(full history, lower is better\)/.test(screen()) ? true : undefined),
        20_000,
      );
      tmux('send-keys', '-t', session, 'Down');
      await waitFor(
        'the recent plot',
        () => (/Loss \(recent iterations, lower is better\)/.test(screen()) ? true : undefined),
        20_000,
      );
      // q: the loop finishes its step, writes the checkpoint, prints the summary and returns.
      tmux('send-keys', '-t', session, 'q');
      const result = await waitFor(
        'launch() to return',
        () =>
          existsSync(join(dir, 'result.json'))
            ? (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { epochs: number; stopped: string })
            : undefined,
        60_000,
      );
      assert.equal(result.stopped, 'stopped from the dashboard');
      assert.ok(result.epochs >= 2 && result.epochs < 200, `stopped after epoch ${result.epochs}`);
      assert.ok(existsSync(join(dir, `checkpoint/model-${result.epochs}.bpk`)), 'checkpoint of the stopped epoch');
      const final = await waitFor(
        'the summary',
        () => (/Training Summary/.test(screen()) ? screen() : undefined),
        20_000,
      );
      assert.match(final, /Mode Done/);
      assert.match(final, new RegExp(`Total epochs: ${result.epochs}`));
      assert.match(final, /\| Train \| Accuracy \|/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  });
});

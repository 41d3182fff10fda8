import { Box, Text, useInput, useStdin } from 'ink';
import { SPLIT_COLORS } from '../../colors.js';
import type { Split } from '../../logger.js';
import { brailleChart, type ChartSeries } from './chart.js';
import { formatDuration, type DashboardState, type MetricTrack } from './state.js';

/** What a key press asks the dashboard to do. */
export type DashboardAction = 'stop' | 'interrupt' | 'next-metric' | 'previous-metric' | 'next-plot' | 'previous-plot';

/** Props of {@link Dashboard}. */
export interface DashboardProps {
  readonly state: DashboardState;
  /** Terminal size. */
  readonly columns: number;
  readonly rows: number;
  /** Called on `q` (stop), Ctrl-C (stop; a second one exits), ←/→ (metric) and ↑/↓ (plot kind). */
  readonly onAction: (action: DashboardAction) => void;
}

// Split colors: the plot files use the same (Burn's TUI: train light red, valid light blue).
export { SPLIT_COLORS };
const SPLIT_LABEL: Record<Split, string> = { train: 'Train', valid: 'Valid' };

/** The training dashboard: progress with ETA, metric values, a plot per metric, controls. */
export function Dashboard({ state, columns, rows, onAction }: DashboardProps) {
  const { isRawModeSupported } = useStdin();
  useInput((input, key) => {
    if (input === 'q' || input === 'Q') onAction('stop');
    else if (key.ctrl && input === 'c') onAction('interrupt');
    else if (key.rightArrow) onAction('next-metric');
    else if (key.leftArrow) onAction('previous-metric');
    else if (key.downArrow) onAction('next-plot');
    else if (key.upArrow) onAction('previous-plot');
  }, { isActive: isRawModeSupported === true });
  const width = Math.max(40, columns);
  const inner = width - 4;
  const names = state.names();
  // Fit the terminal (an ink frame taller than it redraws the whole screen): 17 fixed lines + one per metric.
  const chartHeight = Math.max(3, Math.min(16, rows - 17 - names.length));
  return (
    <Box flexDirection="column" width={width}>
      <Box borderStyle="round" flexDirection="column" paddingX={1}>
        <Text bold>Progress</Text>
        <SplitGauge state={state} split="train" width={inner} />
        <SplitGauge state={state} split="valid" width={inner} />
        <Gauge label="Total" fraction={state.totalFraction()} color="yellow" width={inner} right={`ETA ${formatDuration(state.totalEta())}`} />
        <StatusLine state={state} />
      </Box>
      <Box borderStyle="round" flexDirection="column" paddingX={1}>
        <MetricTable state={state} width={inner} />
      </Box>
      <Box borderStyle="round" flexDirection="column" paddingX={1}>
        <Plot track={state.selectedTrack()} state={state} width={inner} height={chartHeight} />
      </Box>
      <Text dimColor> q stop · ←/→ metric · ↑/↓ plot (full history, recent, per epoch)</Text>
    </Box>
  );
}

function Gauge({ label, fraction, color, width, right }: { label: string; fraction: number; color: string; width: number; right: string }) {
  const pct = `${(100 * fraction).toFixed(1).padStart(5)}%`;
  const barWidth = Math.max(5, width - 8 - pct.length - right.length - 3);
  const filled = Math.round(fraction * barWidth);
  return (
    <Box>
      <Text>{label.padEnd(7)}</Text>
      <Text color={color}>{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(barWidth - filled)}</Text>
      <Text> {pct} {right}</Text>
    </Box>
  );
}

function SplitGauge({ state, split, width }: { state: DashboardState; split: Split; width: number }) {
  const p = state.splits[split]?.progress;
  if (!p) return <Text>{SPLIT_LABEL[split].padEnd(7)}<Text dimColor>waiting</Text></Text>;
  const right = `epoch ${p.epoch}/${p.epochTotal} ${p.itemsProcessed}/${p.itemsTotal} ETA ${formatDuration(state.eta(split))}`;
  return <Gauge label={SPLIT_LABEL[split]} fraction={state.fraction(split)} color={SPLIT_COLORS[split]} width={width} right={right} />;
}

function StatusLine({ state }: { state: DashboardState }) {
  const p = state.splits[state.current]?.progress;
  const mode = state.finished ? 'Done' : state.current === 'train' ? 'Training' : 'Validating';
  return (
    <Text>
      <Text color="yellow" bold>Mode </Text>{mode}
      {p ? <Text>  <Text color="yellow" bold>Epoch </Text>{p.epoch}/{p.epochTotal}  <Text color="yellow" bold>Iteration </Text>{p.iteration}</Text> : null}
      <Text>  <Text color="yellow" bold>Elapsed </Text>{formatDuration(state.elapsed())}</Text>
      {state.stopping ? <Text color="yellow">  {state.stopping}</Text> : null}
    </Text>
  );
}

function MetricTable({ state, width }: { state: DashboardState; width: number }) {
  const tracks = [...state.tracks.values()];
  if (tracks.length === 0) return <Text dimColor>No metrics yet</Text>;
  const selected = state.selectedTrack();
  const col = Math.max(12, Math.floor((width - 2) / 3));
  return (
    <Box flexDirection="column">
      <Text bold>{'  '}{'Metric'.padEnd(col)}<Text color={SPLIT_COLORS.train}>{'Train'.padEnd(col)}</Text><Text color={SPLIT_COLORS.valid}>Valid</Text></Text>
      {tracks.map((t) => (
        <Text key={t.name} inverse={t === selected}>
          {t === selected ? '▶ ' : '  '}{clip(t.name, col - 1).padEnd(col)}{clip(t.display('train'), col - 1).padEnd(col)}{clip(t.display('valid'), col - 1)}
        </Text>
      ))}
    </Box>
  );
}

function Plot({ track, state, width, height }: { track: MetricTrack | undefined; state: DashboardState; width: number; height: number }) {
  if (!track) return <Text dimColor>No plot yet</Text>;
  const names = state.names();
  const points = (s: Split) => (state.kind === 'full' ? track.full[s] : state.kind === 'recent' ? track.recent[s] : track.epochs[s].map((v, i) => [i + 1, v] as const));
  const series: ChartSeries[] = (['train', 'valid'] as const).map((s) => ({ points: points(s), color: SPLIT_COLORS[s] }));
  const labelWidth = 10;
  const chart = brailleChart(series, width - labelWidth - 1, height);
  const [y0, y1] = chart.yRange, [x0, x1] = chart.xRange;
  const xLeft = state.kind === 'recent' ? `iteration ${Math.round(x0)}` : `epoch ${trimNum(x0)}`;
  const xRight = state.kind === 'recent' ? `${Math.round(x1)}` : `epoch ${trimNum(x1)}`;
  const title = { full: 'full history', recent: 'recent iterations', epochs: 'per epoch' }[state.kind];
  return (
    <Box flexDirection="column">
      <Text>
        <Text dimColor>◀ </Text>
        {names.map((n, i) => <Text key={n} bold={n === track.name} underline={n === track.name} dimColor={n !== track.name}>{n}{i < names.length - 1 ? ' │ ' : ''}</Text>)}
        <Text dimColor> ▶</Text>
      </Text>
      <Text>
        <Text bold>{track.name}</Text><Text dimColor> ({title}{track.higherIsBetter ? ', higher is better' : ', lower is better'}) </Text>
        <Text color={SPLIT_COLORS.train}>■ train </Text><Text color={SPLIT_COLORS.valid}>■ valid</Text>
      </Text>
      {chart.rows.map((row, r) => (
        <Text key={r}>
          <Text dimColor>{(r === 0 ? axisLabel(y1) : r === chart.rows.length - 1 ? axisLabel(y0) : '').padStart(labelWidth - 1)}│</Text>
          {row.map((seg, i) => <Text key={i} {...(seg.color ? { color: seg.color } : {})}>{seg.text}</Text>)}
        </Text>
      ))}
      <Text dimColor>{' '.repeat(labelWidth)}{xLeft}{' '.repeat(Math.max(1, width - labelWidth - xLeft.length - xRight.length - 1))}{xRight}</Text>
    </Box>
  );
}

function axisLabel(v: number): string {
  return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : trimNum(Number(v.toPrecision(4)));
}

function trimNum(v: number): string {
  return String(Math.round(v * 1000) / 1000);
}

function clip(text: string, n: number): string {
  return text.length <= n ? text : `${text.slice(0, Math.max(1, n - 1))}…`;
}

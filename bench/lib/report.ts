/**
 * The table: one row per case (three for a training step: forward, backward, backward ÷
 * forward), one column per implementation (median and spread in the row's unit), then burn-ts's
 * speed relative to the fastest peer and the project's target, if any.
 */
import { checksumsAgree } from './data.js';
import { unitOf, valueOf } from './metric.js';
import { summarize, type Summary } from './stats.js';
import { referenceFigures, type BenchCase, type Measured, type Outcome, type Target } from './types.js';

/** The outcomes of one case, by implementation name. */
export interface CaseResult {
  readonly case: BenchCase;
  readonly outcomes: ReadonlyMap<string, Outcome>;
}

/** Formats a number with 3 significant digits (no exponent for the usual ranges). */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}

/** Half the inter-quartile range relative to the median, in percent. */
export function spreadPercent(s: Summary): number {
  return s.median > 0 ? ((s.q3 - s.q1) / 2 / s.median) * 100 : 0;
}

/**
 * One row of the table: which samples of an outcome it summarizes and how a median becomes the
 * printed value. A case has one row; a `step` case has three.
 */
export interface RowView {
  /** The row's label. */
  readonly title: string;
  readonly unit: string;
  /** The samples the row summarizes (undefined when the outcome lacks them). */
  samples(o: Measured): readonly number[] | undefined;
  /** The printed value of a summarized sample. */
  value(x: number): number;
  /** True when the samples are seconds, so a speed ratio to peers makes sense. */
  readonly isTime: boolean;
  readonly target?: Target | readonly Target[];
}

/** Backward ÷ forward of each step, pairing the two phases of the same run. */
function stepRatios(o: Measured): number[] | undefined {
  const f = o.phases?.['forward'];
  const b = o.phases?.['backward'];
  return f && b ? f.map((t, i) => b[i]! / t) : undefined;
}

/** The rows of a case. */
export function rowViews(c: BenchCase): RowView[] {
  if (c.metric.kind === 'step') {
    const ms = (x: number): number => x * 1e3;
    return [
      { title: `${c.title}: forward`, unit: 'ms', samples: (o) => o.phases?.['forward'], value: ms, isTime: true },
      { title: `${c.title}: backward`, unit: 'ms', samples: (o) => o.phases?.['backward'], value: ms, isTime: true },
      {
        title: `${c.title}: backward ÷ forward`,
        unit: 'ratio',
        samples: stepRatios,
        value: (x) => x,
        isTime: false,
        ...(c.target && { target: c.target }),
      },
    ];
  }
  return [
    {
      title: c.title,
      unit: unitOf(c).unit,
      samples: (o) => o.samples,
      value: (x) => valueOf(c, x),
      isTime: true,
      ...(c.target && { target: c.target }),
    },
  ];
}

/** The whole-case view (every sample, the case's unit): what `--json`'s ratios use. */
function caseView(c: BenchCase): RowView {
  return { title: c.title, unit: unitOf(c).unit, samples: (o) => o.samples, value: (x) => valueOf(c, x), isTime: true };
}

/** Median of a row's samples, or undefined for n/a. */
function medianOf(o: Outcome | undefined, view: RowView): number | undefined {
  const xs = o?.ok ? view.samples(o) : undefined;
  return xs && xs.length > 0 ? summarize(xs).median : undefined;
}

/** The medians of each row of a case, in the row's unit, by implementation (for `--json`). */
export function rowValues(r: CaseResult): { title: string; unit: string; values: Record<string, number> }[] {
  return rowViews(r.case).map((view) => {
    const values: Record<string, number> = {};
    for (const [name, o] of r.outcomes) {
      const m = medianOf(o, view);
      if (m !== undefined) values[name] = view.value(m);
    }
    return { title: view.title, unit: view.unit, values };
  });
}

/** Every `burn-ts…` column is an engine of burn-ts itself, never a peer to compare with. */
function isPeer(name: string): boolean {
  return !name.startsWith('burn-ts');
}

/** The fastest peer of a row (smallest median time; default: the whole case) and burn-ts's speed relative to it. */
export function ratioToBestPeer(
  r: CaseResult,
  burn: string,
  view: RowView = caseView(r.case),
): { peer: string; ratio: number } | undefined {
  const b = medianOf(r.outcomes.get(burn), view);
  // A difference of times (decorator cases) can be 0 or negative in noise: no ratio then.
  if (b === undefined || b <= 0) return undefined;
  let best: { peer: string; t: number } | undefined;
  for (const [name, o] of r.outcomes) {
    if (name === burn || !isPeer(name)) continue;
    const t = medianOf(o, view);
    if (t !== undefined && t > 0 && (!best || t < best.t)) best = { peer: name, t };
  }
  return best && { peer: best.peer, ratio: best.t / b };
}

/** Burn-ts's speed relative to each peer (peer time ÷ burn-ts time: above 1, burn-ts is faster). */
export function ratiosToPeers(r: CaseResult, burn: string): Record<string, number> {
  const view = caseView(r.case);
  const b = medianOf(r.outcomes.get(burn), view);
  const out: Record<string, number> = {};
  if (b === undefined || b <= 0) return out;
  for (const [name, o] of r.outcomes) {
    const t = medianOf(o, view);
    if (name !== burn && isPeer(name) && t !== undefined && t > 0) out[name] = t / b;
  }
  return out;
}

/** One line for the progress log: each row's median and spread, and the sample count. */
export function describeOutcome(c: BenchCase, o: Outcome): string {
  if (!o.ok) return `n/a (${o.reason})`;
  const parts = rowViews(c).map((view) => {
    const xs = view.samples(o);
    if (!xs || xs.length === 0) return `${view.unit} n/a`;
    const s = summarize(xs);
    const label = view.title.startsWith(`${c.title}: `) ? `${view.title.slice(c.title.length + 2)} ` : '';
    return `${label}${fmt(view.value(s.median))} ${view.unit} ±${spreadPercent(s).toFixed(0)}%`;
  });
  const decorated = o.phases?.['decorated'];
  const plain = o.phases?.['plain'];
  if (decorated && plain)
    parts.push(
      `(autodiff ${fmt(summarize(decorated).median * 1e6)} µs/op, plain ${fmt(summarize(plain).median * 1e6)} µs/op)`,
    );
  return `${parts.join(', ')} (${o.samples.length} samples)`;
}

function firstChecksum(r: CaseResult): Measured['checksum'] {
  for (const o of r.outcomes.values()) if (o.ok && o.checksum) return o.checksum;
  return undefined;
}

/**
 * A target's cell text: the bound, ✓/✗/? against this run's figure — the column's value, its
 * speed ÷ a peer's, or its value ÷ a reference figure — and where the target comes from.
 */
function describeTarget(r: CaseResult, view: RowView, t: Target, burnOutcome: Outcome | undefined): string {
  const m = medianOf(t.impl === undefined ? burnOutcome : r.outcomes.get(t.impl), view);
  let v = m === undefined ? undefined : view.value(m);
  let what = '';
  if (t.peer !== undefined) {
    const p = medianOf(r.outcomes.get(t.peer), view);
    v = m === undefined || p === undefined || m <= 0 ? undefined : view.isTime ? p / m : m / p;
    what = `× ${t.peer} `;
  } else if (t.reference !== undefined) {
    const ref = referenceFigures.get(t.reference);
    v = v === undefined || ref === undefined || ref <= 0 ? undefined : v / ref;
    what = `of ${t.reference} `;
  }
  const mark = v === undefined ? '?' : (t.cmp === '<=' ? v <= t.value : v >= t.value) ? '✓' : '✗';
  const reached = v === undefined || (t.peer === undefined && t.reference === undefined) ? '' : ` ${v.toPrecision(2)}`;
  return `${t.cmp === '<=' ? '≤' : '≥'} ${t.value} ${what}${mark}${reached} (${t.source}${t.impl === undefined ? '' : `, ${t.impl}`})`;
}

/** Renders the table (markdown) and its footnotes. */
export function renderTable(results: readonly CaseResult[], implNames: readonly string[], burn: string): string {
  const notes: string[] = [];
  const noteFor = (text: string): string => {
    let i = notes.indexOf(text);
    if (i < 0) i = notes.push(text) - 1;
    return `[${i + 1}]`;
  };
  const header = ['case', 'unit', ...implNames, `${burn} ÷ best peer (speed)`, 'target (goal)'];
  const rows: string[][] = [];
  for (const r of results) {
    const burnOutcome = r.outcomes.get(burn);
    const reference = burnOutcome?.ok ? burnOutcome.checksum : firstChecksum(r);
    for (const view of rowViews(r.case)) {
      const cells = implNames.map((name) => {
        const o = r.outcomes.get(name);
        if (!o) return '–';
        if (!o.ok) return `n/a ${noteFor(`${name}: ${o.reason}`)}`;
        const xs = view.samples(o);
        if (!xs || xs.length === 0) return `n/a ${noteFor(`${name}: no ${view.unit} samples for ${r.case.id}`)}`;
        const s = summarize(xs);
        let cell = `${fmt(view.value(s.median))} ±${spreadPercent(s).toFixed(0)}%`;
        if (reference && o.checksum && !checksumsAgree(reference, o.checksum, r.case.checkAbsolute)) {
          cell += ` ≠${noteFor(`${name} on ${r.case.id}: output checksum differs from the reference (${o.checksum.weighted.toPrecision(6)} vs ${reference.weighted.toPrecision(6)})`)}`;
        }
        return cell;
      });
      const best = view.isTime ? ratioToBestPeer(r, burn, view) : undefined;
      const ratio = best
        ? `${best.ratio >= 10 ? best.ratio.toFixed(0) : best.ratio.toPrecision(2)}× (${best.peer})`
        : '–';
      const targets =
        view.target === undefined ? [] : Array.isArray(view.target) ? view.target : [view.target as Target];
      const target = targets.map((t) => describeTarget(r, view, t, burnOutcome)).join('; ');
      rows.push([view.title, view.unit, ...cells, ratio, target]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  if (notes.length > 0) out.push('', ...notes.map((n, i) => `[${i + 1}] ${n}`));
  return out.join('\n');
}

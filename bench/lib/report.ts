/**
 * The table: one row per case, one column per implementation (median and spread in the case's
 * unit), then burn-ts's speed relative to the fastest peer and the issue's target, if any.
 */
import { checksumsAgree } from './data.js';
import { unitOf, valueOf } from './metric.js';
import { summarize, type Summary } from './stats.js';
import type { BenchCase, Measured, Outcome } from './types.js';

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

/** Median seconds per call, or undefined for n/a. */
function medianOf(o: Outcome | undefined): number | undefined {
  return o?.ok ? summarize(o.samples).median : undefined;
}

/** The fastest peer of a case (smallest median time) and burn-ts's speed relative to it. */
export function ratioToBestPeer(r: CaseResult, burn: string): { peer: string; ratio: number } | undefined {
  const b = medianOf(r.outcomes.get(burn));
  if (b === undefined) return undefined;
  let best: { peer: string; t: number } | undefined;
  for (const [name, o] of r.outcomes) {
    if (name === burn) continue;
    const t = medianOf(o);
    if (t !== undefined && (!best || t < best.t)) best = { peer: name, t };
  }
  return best && { peer: best.peer, ratio: best.t / b };
}

/** Burn-ts's speed relative to each peer (peer time ÷ burn-ts time: above 1, burn-ts is faster). */
export function ratiosToPeers(r: CaseResult, burn: string): Record<string, number> {
  const b = medianOf(r.outcomes.get(burn));
  const out: Record<string, number> = {};
  if (b === undefined) return out;
  for (const [name, o] of r.outcomes) {
    const t = medianOf(o);
    if (name !== burn && t !== undefined) out[name] = t / b;
  }
  return out;
}

function firstChecksum(r: CaseResult): Measured['checksum'] {
  for (const o of r.outcomes.values()) if (o.ok && o.checksum) return o.checksum;
  return undefined;
}

/** Renders the table (markdown) and its footnotes. */
export function renderTable(results: readonly CaseResult[], implNames: readonly string[], burn: string): string {
  const notes: string[] = [];
  const noteFor = (text: string): string => {
    let i = notes.indexOf(text);
    if (i < 0) i = notes.push(text) - 1;
    return `[${i + 1}]`;
  };
  const header = ['case', 'unit', ...implNames, `${burn} ÷ best peer (speed)`, 'target (issue)'];
  const rows: string[][] = [];
  for (const r of results) {
    const { unit } = unitOf(r.case);
    const burnOutcome = r.outcomes.get(burn);
    const reference = burnOutcome?.ok ? burnOutcome.checksum : firstChecksum(r);
    const cells = implNames.map((name) => {
      const o = r.outcomes.get(name);
      if (!o) return '–';
      if (!o.ok) return `n/a ${noteFor(`${name}: ${o.reason}`)}`;
      const s = summarize(o.samples);
      let cell = `${fmt(valueOf(r.case, s.median))} ±${spreadPercent(s).toFixed(0)}%`;
      if (reference && o.checksum && !checksumsAgree(reference, o.checksum, r.case.checkAbsolute)) {
        cell += ` ≠${noteFor(`${name} on ${r.case.id}: output checksum differs from the reference (${o.checksum.weighted.toPrecision(6)} vs ${reference.weighted.toPrecision(6)})`)}`;
      }
      return cell;
    });
    const best = ratioToBestPeer(r, burn);
    const ratio = best ? `${best.ratio >= 10 ? best.ratio.toFixed(0) : best.ratio.toPrecision(2)}× (${best.peer})` : '–';
    let target = '';
    const t = r.case.target;
    if (t) {
      const m = medianOf(burnOutcome);
      const mark = m === undefined ? '?' : (t.cmp === '<=' ? valueOf(r.case, m) <= t.value : valueOf(r.case, m) >= t.value) ? '✓' : '✗';
      target = `${t.cmp === '<=' ? '≤' : '≥'} ${t.value} ${mark} (${t.source})`;
    }
    rows.push([r.case.title, unit, ...cells, ratio, target]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  if (notes.length > 0) out.push('', ...notes.map((n, i) => `[${i + 1}] ${n}`));
  return out.join('\n');
}

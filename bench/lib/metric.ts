/** Converting seconds per call into each metric's unit. */
import type { BenchCase } from './types.js';

/** A metric's unit and whether bigger is better. */
export interface UnitInfo {
  readonly unit: string;
  readonly higherIsBetter: boolean;
}

/** The unit a case reports in (`step`: of the whole step and of each phase). */
export function unitOf(c: BenchCase): UnitInfo {
  switch (c.metric.kind) {
    case 'overhead':
      return { unit: 'µs/op', higherIsBetter: false };
    case 'flops':
      return { unit: 'GFLOP/s', higherIsBetter: true };
    case 'bytes':
      return { unit: 'GB/s', higherIsBetter: true };
    case 'time':
      return { unit: 'ms', higherIsBetter: false };
    case 'step':
      return { unit: 'ms', higherIsBetter: false };
    case 'decorator':
      return { unit: 'µs/op', higherIsBetter: false };
    case 'rate':
      return { unit: c.metric.unit, higherIsBetter: true };
  }
}

/** The value, in the case's unit, of one call taking `seconds`. */
export function valueOf(c: BenchCase, seconds: number): number {
  const m = c.metric;
  switch (m.kind) {
    case 'overhead':
      return seconds * 1e6;
    case 'flops':
      return m.flops / seconds / 1e9;
    case 'bytes':
      return m.bytes / seconds / 1e9;
    case 'time':
      return seconds * 1e3;
    case 'step':
      return seconds * 1e3;
    case 'decorator':
      return seconds * 1e6;
    case 'rate':
      return m.items / seconds;
  }
}

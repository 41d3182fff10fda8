/**
 * The vocabulary of the benchmark: a case is data (an op, input shapes and seeds, attributes and
 * a metric), defined once and run on every implementation; an implementation turns a case into a
 * timed body or measures a list of cases in its own process (PyTorch).
 */

/** The ops the cases time; every implementation maps each to its own call. */
export type OpName = 'add' | 'mul' | 'mulScalar' | 'matmul' | 'exp' | 'sum' | 'softmax' | 'transposeCopy' | 'conv2d';

/** One input: its shape and the seed of its deterministic values (see lib/data.ts). */
export interface InputSpec {
  readonly shape: readonly number[];
  readonly seed: number;
}

/** Attributes of an op (only the ones the op uses are set). */
export interface OpAttrs {
  /** The scalar of `mulScalar`. */
  readonly scalar?: number;
  /** The dim of `softmax` (negative counts from the end). */
  readonly dim?: number;
  /** The symmetric spatial padding of `conv2d`. */
  readonly padding?: number;
}

/**
 * What a case reports. `overhead`: microseconds per call, timed over batches of many calls.
 * `flops` / `bytes`: throughput (GFLOP/s, GB/s) of one call doing that much work. `time`:
 * milliseconds per call.
 */
export type Metric =
  | { readonly kind: 'overhead' }
  | { readonly kind: 'flops'; readonly flops: number }
  | { readonly kind: 'bytes'; readonly bytes: number }
  | { readonly kind: 'time' };

/** A requirement from an issue that this case shows (printed beside the row). */
export interface Target {
  /** `<=`: the value must be at most `value`; `>=`: at least. */
  readonly cmp: '<=' | '>=';
  readonly value: number;
  /** Where the requirement comes from, e.g. `issue 2`. */
  readonly source: string;
}

/** A benchmark case: defined once, run on every implementation. */
export interface BenchCase {
  /** Unique id, `family/name`, matched by `--filter`. */
  readonly id: string;
  /** The family (file in bench/cases/) it belongs to. */
  readonly family: string;
  /** What the row prints. */
  readonly title: string;
  readonly op: OpName;
  readonly inputs: readonly InputSpec[];
  readonly attrs?: OpAttrs;
  readonly metric: Metric;
  /**
   * Extra absolute tolerance of the checksum comparison, for outputs that sum many inputs (f32
   * sums of millions of terms in different orders differ in the last digits of a small result).
   */
  readonly checkAbsolute?: number;
  /** Target for burn-ts, when an issue sets one. */
  readonly target?: Target;
}

/** How hard to measure; `quick` mode uses smaller numbers. */
export interface MeasureConfig {
  /** Calls per batch in `overhead` cases. */
  readonly batchCalls: number;
  /** Timed batches in `overhead` cases. */
  readonly batches: number;
  /** Untimed warm-up batches in `overhead` cases. */
  readonly warmupBatches: number;
  /** Least untimed warm-up runs of a bulk case (more are run until `warmupSeconds` passed). */
  readonly warmupRuns: number;
  /** Least warm-up time of a case, seconds (bulk: at most `maxWarmupRuns` runs; overhead: 100 batches). */
  readonly warmupSeconds: number;
  readonly maxWarmupRuns: number;
  /** Least and most timed runs of a bulk case; between them, runs go on until `budgetSeconds`. */
  readonly minRuns: number;
  readonly maxRuns: number;
  readonly budgetSeconds: number;
}

/** A measured case on one implementation: seconds per call of each timed sample. */
export interface Measured {
  readonly ok: true;
  /** Seconds per call, one entry per timed run (bulk) or batch (overhead). */
  readonly samples: readonly number[];
  /** Weighted checksum of the output (see lib/data.ts), to check that peers computed the same. */
  readonly checksum?: { readonly weighted: number; readonly magnitude: number };
}

/** A case an implementation could not run, and why (printed as `n/a`). */
export interface Unavailable {
  readonly ok: false;
  readonly reason: string;
}

/** The outcome of one case on one implementation. */
export type Outcome = Measured | Unavailable;

/** A timed body made from a case by an in-process implementation. */
export interface Prepared {
  /** One call of the op; a promise when the implementation is asynchronous. */
  run(): unknown;
  /** True when `run` returns a promise that must be awaited. */
  readonly isAsync: boolean;
  /** The op's output for the checksum (NCHW/row-major like torch), read outside the timing. */
  output(): Promise<Float32Array>;
  /** Frees what `prepare` made. */
  dispose(): void;
}

/** Why a case cannot run on an implementation; `prepare` throws it to give an `n/a` cell. */
export class NotAvailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotAvailable';
  }
}

/** An implementation: a column of the table. */
export interface Impl {
  /** Column header, e.g. `tfjs-wasm`. */
  readonly name: string;
  /** True for burn-ts (the ratio column's numerator), false for peers. */
  readonly isBurn: boolean;
  /** Loads the implementation and returns its version and threads; throws `NotAvailable` when it cannot run here. */
  init(): Promise<string>;
  /** Measures one case; `inputs` gives the case's input values (shared by all implementations). */
  measure(c: BenchCase, inputs: () => readonly Float32Array[], config: MeasureConfig): Promise<Outcome>;
  /** Releases what `init` loaded (a subprocess, sessions). */
  close(): Promise<void>;
}

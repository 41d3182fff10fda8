/**
 * The vocabulary of the benchmark: a case is data (an op, input shapes and seeds, attributes and
 * a metric), defined once and run on every implementation; an implementation turns a case into a
 * timed body or measures a list of cases in its own process (PyTorch).
 */

/**
 * The ops the cases time; every implementation maps each to its own call. `mlpStep` and
 * `convnetStep` are whole training steps (see cases/autodiff.ts): the inputs are the batch
 * followed by the parameters, the first parameter being the first layer's weight. `mnistTrainStep`
 * is a whole training step (forward, loss read-back, backward, Adam update) of the MNIST ConvNet
 * (see cases/train.ts).
 */
export type OpName =
  | 'add'
  | 'mul'
  | 'mulScalar'
  | 'matmul'
  | 'exp'
  | 'sum'
  | 'softmax'
  | 'transposeCopy'
  | 'conv2d'
  | 'mlpStep'
  | 'convnetStep'
  | 'adamStep'
  | 'mnistTrainStep'
  | 'storeSave'
  | 'storeLoad'
  | 'onnxRun'
  | 'onnxLoad';

/** The exported models of the ONNX cases (`onnxRun`: a model's inference; `onnxLoad`: its load time; see cases/onnx.ts). */
export type OnnxBenchModel = 'resnet18' | 'mobilenet_v2' | 'encoder';

/** One input: its shape and the seed of its deterministic values (see lib/data.ts). */
export interface InputSpec {
  readonly shape: readonly number[];
  readonly seed: number;
  /** Multiplies every value (in f32, as `f32(value) · f32(scale)`); default 1. */
  readonly scale?: number;
}

/** Attributes of an op (only the ones the op uses are set). */
export interface OpAttrs {
  /** The scalar of `mulScalar`. */
  readonly scalar?: number;
  /** The dim of `softmax` (negative counts from the end). */
  readonly dim?: number;
  /** The symmetric spatial padding of `conv2d`. */
  readonly padding?: number;
  /** Classes of a training step's labels (`mlpStep`, `convnetStep`, `mnistTrainStep`; see `labelValues` in lib/data.ts). */
  readonly classes?: number;
  /** The file format of `storeSave` / `storeLoad` (cases/store.ts). */
  readonly format?: 'burnpack' | 'safetensors' | 'pt';
  /** The model of `onnxRun` / `onnxLoad` (cases/onnx.ts). */
  readonly model?: OnnxBenchModel;
}

/**
 * What a case reports. `overhead`: microseconds per call, timed over batches of many calls.
 * `flops` / `bytes`: throughput (GFLOP/s, GB/s) of one call doing that much work. `time`:
 * milliseconds per call. `step`: a training step whose forward and backward passes are timed
 * separately in each run (three rows: forward ms, backward ms, backward ÷ forward). `decorator`:
 * microseconds per call that the autodiff decorator adds to an overhead-sized op (the op on
 * `Device.cpu().autodiff()` minus the same op on `Device.cpu()`, batches interleaved); `tracked`:
 * the inputs require grad, so every call records a graph node. `rate`: items processed per second
 * by a call handling `items` of them (e.g. images/s of a training step), timed as bulk cases.
 */
export type Metric =
  | { readonly kind: 'overhead' }
  | { readonly kind: 'flops'; readonly flops: number }
  | { readonly kind: 'bytes'; readonly bytes: number }
  | { readonly kind: 'time' }
  | { readonly kind: 'step' }
  | { readonly kind: 'decorator'; readonly tracked: boolean }
  | { readonly kind: 'rate'; readonly items: number; readonly unit: string };

/** A target burn-ts sets itself for this case (printed beside the row). */
export interface Target {
  /** `<=`: the value must be at most `value`; `>=`: at least. */
  readonly cmp: '<=' | '>=';
  readonly value: number;
  /** The goal the target belongs to, e.g. `js engine goal`. */
  readonly source: string;
  /** The column it is about, e.g. `burn-ts` for a js-engine figure (default: the column the ratio follows). */
  readonly impl?: string;
  /** A speed ratio: `impl`'s speed ÷ this peer's speed in the same run must meet `value`. */
  readonly peer?: string;
  /** A fraction of a reference figure the run measured (see {@link referenceFigures}), e.g. `memcpy GB/s`. */
  readonly reference?: string;
}

/**
 * Figures an implementation measures while it starts (e.g. the machine's copy bandwidth), by
 * name, in the unit of the rows whose targets refer to them.
 */
export const referenceFigures = new Map<string, number>();

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
  /** Measurement settings of this case that differ from the run's (the same for every implementation). */
  readonly measure?: Partial<MeasureConfig>;
  /**
   * Extra absolute tolerance of the checksum comparison, for outputs that sum many inputs (f32
   * sums of millions of terms in different orders differ in the last digits of a small result).
   */
  readonly checkAbsolute?: number;
  /** Target for burn-ts, when the project sets one. */
  readonly target?: Target | readonly Target[];
  /** The implementations (column names) that run this case; default: all of them. */
  readonly only?: readonly string[];
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
  /** Most untimed warm-up runs of a bulk case (a cap for the time-based warm-up). */
  readonly maxWarmupRuns: number;
  /** Least and most timed runs of a bulk case; between them, runs go on until `budgetSeconds`. */
  readonly minRuns: number;
  readonly maxRuns: number;
  readonly budgetSeconds: number;
}

/** A measured case on one implementation: seconds per call of each timed sample. */
export interface Measured {
  readonly ok: true;
  /**
   * Seconds per call, one entry per timed run (bulk), batch (overhead) or step (`step`: forward
   * plus backward); `decorator`: the decorated minus the plain time per call of each batch pair.
   */
  readonly samples: readonly number[];
  /**
   * Parts of each sample, same length and order as `samples`: `forward` and `backward` seconds
   * of each step (`step`), `decorated` and `plain` seconds per call of each batch (`decorator`).
   */
  readonly phases?: Readonly<Record<string, readonly number[]>>;
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

/** The two timed phases of a training step (`step` cases). */
export interface StepPhases {
  /** Builds the graph and computes the loss, until its value is on the host. */
  forward(): unknown;
  /** Runs the backward pass of the last `forward`, until a gradient value is on the host. */
  backward(): unknown;
}

/** A timed body made from a case by an in-process implementation. */
export interface Prepared {
  /** One call of the op (`step` cases: forward then backward); a promise when the implementation is asynchronous. */
  run(): unknown;
  /** True when `run` (and the step's phases, the baseline) return a promise that must be awaited. */
  readonly isAsync: boolean;
  /** `step` cases: the phases, timed separately. */
  readonly step?: StepPhases;
  /** `decorator` cases: the same op on the undecorated device, timed in batches interleaved with `run`'s. */
  readonly baseline?: () => unknown;
  /**
   * The op's output for the checksum (NCHW/row-major like torch), read outside the timing;
   * `step` cases: the gradient of the first parameter (it depends on every op of the step; the
   * loss itself would dominate the checksum).
   */
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

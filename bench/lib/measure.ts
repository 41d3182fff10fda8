/**
 * Timing of in-process implementations. Overhead cases: warm-up batches (at least a count and a
 * time, so the JIT has settled), then the median over batches of the time per call of a batch of
 * many calls. Bulk cases: warm-up runs, then single timed runs until a time
 * budget (between a least and a most count); the median run counts. Step cases: like bulk cases,
 * with the forward and backward phase of each run timed separately. Decorator cases: like
 * overhead cases, with each batch of the decorated op paired with a batch of the plain one.
 */
import { checksum } from './data.js';
import {
  NotAvailable,
  type BenchCase,
  type Impl,
  type MeasureConfig,
  type Outcome,
  type Prepared,
  type StepPhases,
} from './types.js';

/** Seconds since an arbitrary origin, from the monotonic high-resolution clock. */
export function nowSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** Longest a single overhead batch may take; slower implementations get fewer calls per batch. */
const MAX_BATCH_SECONDS = 0.5;
/** Most warm-up batches of an overhead case (they go on until `warmupSeconds` passed). */
const MAX_WARMUP_BATCHES = 100;

/** Per-call seconds of a batch of `calls` calls of `run`, or of `p.run()` (called as a method, as before). */
async function runBatch(p: Prepared, calls: number, run?: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  if (run !== undefined) {
    if (p.isAsync) for (let i = 0; i < calls; i++) await run();
    else for (let i = 0; i < calls; i++) run();
  } else if (p.isAsync) {
    for (let i = 0; i < calls; i++) await p.run();
  } else {
    for (let i = 0; i < calls; i++) p.run();
  }
  return Number(process.hrtime.bigint() - t0) / 1e9 / calls;
}

/** Seconds per call of each timed batch (overhead cases). */
export async function timeOverhead(p: Prepared, config: MeasureConfig): Promise<number[]> {
  const probe = await runBatch(p, 100);
  const calls = Math.max(100, Math.min(config.batchCalls, Math.floor(MAX_BATCH_SECONDS / Math.max(probe, 1e-9))));
  const warmStart = nowSeconds();
  for (let i = 0; i < MAX_WARMUP_BATCHES; i++) {
    await runBatch(p, calls);
    if (i + 1 >= config.warmupBatches && nowSeconds() - warmStart >= config.warmupSeconds) break;
  }
  const samples: number[] = [];
  for (let i = 0; i < config.batches; i++) samples.push(await runBatch(p, calls));
  return samples;
}

/**
 * Per-call seconds of the decorated op (`p.run`) and of the plain one (`p.baseline`), in pairs of
 * batches of the same number of calls whose order alternates (so a drift of the machine's speed
 * does not favour one side); each sample is a pair's difference.
 */
export async function timeDecorator(
  p: Prepared,
  config: MeasureConfig,
): Promise<{ samples: number[]; decorated: number[]; plain: number[] }> {
  const baseline = p.baseline;
  if (!baseline) throw new Error('a decorator case needs a baseline body');
  // Both sides through one closure of the same shape, so neither gets a cheaper call.
  const dec = (): unknown => p.run();
  const base = (): unknown => baseline();
  const probe = await runBatch(p, 100, dec);
  const calls = Math.max(100, Math.min(config.batchCalls, Math.floor(MAX_BATCH_SECONDS / Math.max(probe, 1e-9))));
  const warmStart = nowSeconds();
  for (let i = 0; i < MAX_WARMUP_BATCHES; i++) {
    await runBatch(p, calls, dec);
    await runBatch(p, calls, base);
    if (i + 1 >= config.warmupBatches && nowSeconds() - warmStart >= config.warmupSeconds) break;
  }
  const decorated: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < config.batches; i++) {
    if (i % 2 === 0) {
      decorated.push(await runBatch(p, calls, dec));
      plain.push(await runBatch(p, calls, base));
    } else {
      plain.push(await runBatch(p, calls, base));
      decorated.push(await runBatch(p, calls, dec));
    }
  }
  return { samples: decorated.map((d, i) => d - plain[i]!), decorated, plain };
}

async function runOnce(p: Prepared, run?: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  if (run !== undefined) {
    if (p.isAsync) await run();
    else run();
  } else if (p.isAsync) {
    await p.run();
  } else {
    p.run();
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/**
 * Seconds of the forward and of the backward phase of each timed training step; warm-up and the
 * number of runs as in {@link timeBulk}, the budget counting whole steps.
 */
export async function timeStep(
  p: Prepared,
  config: MeasureConfig,
): Promise<{ samples: number[]; forward: number[]; backward: number[] }> {
  const step: StepPhases | undefined = p.step;
  if (!step) throw new Error('a step case needs forward and backward bodies');
  const once = async (): Promise<[number, number]> => [await runOnce(p, step.forward), await runOnce(p, step.backward)];
  const warmStart = nowSeconds();
  for (let i = 0; i < config.maxWarmupRuns; i++) {
    await once();
    if (i + 1 >= config.warmupRuns && nowSeconds() - warmStart >= config.warmupSeconds) break;
  }
  const forward: number[] = [];
  const backward: number[] = [];
  let spent = 0;
  while (forward.length < config.maxRuns) {
    const [f, b] = await once();
    forward.push(f);
    backward.push(b);
    spent += f + b;
    if (forward.length >= config.minRuns && spent >= config.budgetSeconds) break;
  }
  return { samples: forward.map((f, i) => f + backward[i]!), forward, backward };
}

/** Seconds of each timed run (bulk cases). */
export async function timeBulk(p: Prepared, config: MeasureConfig): Promise<number[]> {
  const warmStart = nowSeconds();
  for (let i = 0; i < config.maxWarmupRuns; i++) {
    await runOnce(p);
    if (i + 1 >= config.warmupRuns && nowSeconds() - warmStart >= config.warmupSeconds) break;
  }
  const samples: number[] = [];
  let spent = 0;
  while (samples.length < config.maxRuns) {
    const s = await runOnce(p);
    samples.push(s);
    spent += s;
    if (samples.length >= config.minRuns && spent >= config.budgetSeconds) break;
  }
  return samples;
}

/** Turns a case into a timed body; throws `NotAvailable` for an `n/a` cell. */
export type PrepareFn = (c: BenchCase, inputs: readonly Float32Array[]) => Promise<Prepared>;

/** Options of {@link inProcessImpl}. */
export interface InProcessOptions {
  readonly name: string;
  readonly isBurn: boolean;
  /** Loads the library; returns the detail line or throws `NotAvailable`. */
  init(): Promise<string>;
  /** Made once `init` succeeded. */
  prepare: PrepareFn;
  close?(): Promise<void>;
}

/** An implementation that runs in this Node process, timed by {@link timeOverhead} / {@link timeBulk}. */
export function inProcessImpl(options: InProcessOptions): Impl {
  return {
    name: options.name,
    isBurn: options.isBurn,
    init: () => options.init(),
    close: () => options.close?.() ?? Promise.resolve(),
    async measure(c, inputs, config): Promise<Outcome> {
      let prepared: Prepared;
      try {
        prepared = await options.prepare(c, inputs());
      } catch (e) {
        return { ok: false, reason: e instanceof NotAvailable ? e.message : `setup failed: ${errorText(e)}` };
      }
      try {
        let samples: number[];
        let phases: Record<string, number[]> | undefined;
        if (c.metric.kind === 'step') {
          const { samples: s, ...rest } = await timeStep(prepared, config);
          [samples, phases] = [s, rest];
        } else if (c.metric.kind === 'decorator') {
          const { samples: s, ...rest } = await timeDecorator(prepared, config);
          [samples, phases] = [s, rest];
        } else {
          samples =
            c.metric.kind === 'overhead' ? await timeOverhead(prepared, config) : await timeBulk(prepared, config);
        }
        const out = await prepared.output();
        return { ok: true, samples, ...(phases && { phases }), checksum: checksum(out) };
      } catch (e) {
        return { ok: false, reason: `failed: ${errorText(e)}` };
      } finally {
        prepared.dispose();
      }
    },
  };
}

/** The first line of an error's message. */
export function errorText(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.split('\n')[0]!.slice(0, 160);
}

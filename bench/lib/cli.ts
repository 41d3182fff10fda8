/** Command-line options of `npm run bench`. */
import type { MeasureConfig } from './types.js';

/** Parsed options. */
export interface CliOptions {
  /** Substrings (case-insensitive); a case runs when its id or title contains one. Empty: all. */
  readonly filters: readonly string[];
  /** Substrings of implementation names to run (burn-ts always runs). Empty: all. */
  readonly impls: readonly string[];
  readonly quick: boolean;
  /** Where to write the raw results as JSON. */
  readonly json: string | undefined;
  /** Read every output back into a host array inside the timed body. */
  readonly readback: boolean;
  readonly help: boolean;
}

/** The usage text. */
export const USAGE = `usage: npm run bench -- [options]
  --filter <s>[,<s>…]  run the cases whose id or title contains one of the substrings
                       (ids: overhead/add-2x2, matmul/1024, elementwise/exp-4M, reduce/sum-4M,
                       autodiff/mlp-step, autodiff/decorator-add-2x2, …)
  --impl <s>[,<s>…]    run only these peers (burn-ts, tfjs-cpu, tfjs-wasm, onnxruntime, torch)
  --quick              fewer and shorter repeats (a smoke run; numbers are noisier)
  --json <file>        also write the raw results (every sample) as JSON
  --readback           read each output into a host array inside the timed body
  --help               this text`;

/** Parses `argv` (without node and the script). Throws on an unknown option. */
export function parseArgs(argv: readonly string[]): CliOptions {
  const filters: string[] = [];
  const impls: string[] = [];
  let quick = false;
  let json: string | undefined;
  let readback = false;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--filter':
        filters.push(
          ...value()
            .split(',')
            .filter((s) => s !== ''),
        );
        break;
      case '--impl':
        impls.push(
          ...value()
            .split(',')
            .filter((s) => s !== ''),
        );
        break;
      case '--quick':
        quick = true;
        break;
      case '--json':
        json = value();
        break;
      case '--readback':
        readback = true;
        break;
      case '--help':
      case '-h':
        help = true;
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  return { filters, impls, quick, json, readback, help };
}

/** Default measurement: about a few minutes for the whole suite on two cores. */
export const FULL_CONFIG: MeasureConfig = {
  batchCalls: 10_000,
  batches: 11,
  warmupBatches: 2,
  // Warm-up is time-based: a fresh process runs its first ~100 ms of a kernel slower (WebAssembly
  // starts in V8's baseline tier and moves to optimized code as functions get hot; JavaScript
  // likewise; wasm 256³ runs at about 60–70% of its speed there), and a few runs of a
  // sub-millisecond op all fall inside that window.
  warmupRuns: 1,
  warmupSeconds: 0.5,
  maxWarmupRuns: 5_000,
  minRuns: 3,
  maxRuns: 200,
  budgetSeconds: 1.5,
};

/** `--quick`: a smoke run. */
export const QUICK_CONFIG: MeasureConfig = {
  batchCalls: 2_000,
  batches: 5,
  warmupBatches: 1,
  warmupRuns: 1,
  warmupSeconds: 0.3,
  maxWarmupRuns: 2,
  minRuns: 3,
  maxRuns: 7,
  budgetSeconds: 0.3,
};

/**
 * Loading the native engine's Node addon (native/ at the package root, N-API, built by
 * `npm install` through node-gyp). Only type imports here: the package test copies this file alone
 * into a folder without an addon to check the advice it prints.
 */
import type { FloatArray } from '../engine.js';
import type { CpuArray } from '../storage.js';

/**
 * The addon's op codes by name (native/src/ops.h): `unary.exp` is the code `unary` takes for exp.
 * Matched by name against the TypeScript op names in ops.ts.
 */
export interface NativeOpNames {
  readonly unary: Readonly<Record<string, number>>;
  readonly binary: Readonly<Record<string, number>>;
  readonly reduce: Readonly<Record<string, number>>;
  readonly compare: Readonly<Record<string, number>>;
}

/** The addon's functions (native/src/addon.cc). */
export interface NativeAddon {
  /** The op codes the `op` arguments below take, by op name. */
  readonly ops: NativeOpNames;
  info(): { isa: string; threads: number };
  setIsa(name: string): boolean;
  gemm(p: Float64Array, a: FloatArray, b: FloatArray, c: FloatArray): void;
  binary(op: number, out: FloatArray, a: FloatArray, aOffset: number, b: FloatArray, bOffset: number, n: number): void;
  binaryScalar(op: number, out: FloatArray, a: FloatArray, aOffset: number, scalar: number, n: number): void;
  unary(op: number, out: FloatArray, a: FloatArray, aOffset: number, n: number): void;
  /** `lh`: [lo, hi], each exact in the arrays' type or ±∞. */
  clamp(out: FloatArray, a: FloatArray, aOffset: number, n: number, lh: Float64Array): void;
  gelu(out: FloatArray, a: FloatArray, aOffset: number, n: number): void;
  /** `eps`: a one-value Float64Array. */
  layerNorm(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    gamma: FloatArray,
    beta: FloatArray | null,
    rows: number,
    len: number,
    eps: Float64Array,
  ): void;
  reduceRows(op: number, out: FloatArray, a: FloatArray, aOffset: number, rows: number, len: number): void;
  softmaxRows(out: FloatArray, a: FloatArray, aOffset: number, rows: number, len: number, log: number): void;
  binaryStrided(p: Float64Array, out: FloatArray, a: FloatArray, b: FloatArray): void;
  random(h: Float64Array, out: FloatArray, n: number): void;
  adamStep(
    h: Float64Array,
    outP: FloatArray,
    outM: FloatArray,
    outV: FloatArray,
    p: FloatArray,
    pOffset: number,
    g: FloatArray,
    gOffset: number,
    m: FloatArray,
    mOffset: number,
    v: FloatArray,
    vOffset: number,
    n: number,
  ): void;
  copyStrided(p: Float64Array, dst: FloatArray, src: FloatArray): void;
  /**
   * `p`: the geometry (16 values, see convParams), the clamp bounds of the activation (±∞ for none),
   * then the layout tag of `packed` (weights from convPackWeights, read instead of packing `w`; 0:
   * none); `residual`: added to the output before the activation.
   */
  conv2d(
    p: Float64Array,
    x: FloatArray,
    w: FloatArray,
    bias: FloatArray | null,
    out: FloatArray,
    packed: FloatArray | null,
    residual: FloatArray | null,
  ): void;
  /**
   * Without `packed`: the length conv2d's packed weights need for the geometry `p` (0: not used).
   * With it: packs `w` into it and returns the layout tag to pass to conv2d.
   */
  convPackWeights(p: Float64Array, w: FloatArray, packed: FloatArray | null): number;
  convTranspose2d(p: Float64Array, x: FloatArray, w: FloatArray, bias: FloatArray | null, out: FloatArray): void;
  unfold2d(p: Float64Array, x: FloatArray, out: FloatArray): void;
  conv2dWeightGrad(p: Float64Array, x: FloatArray, g: FloatArray, dw: FloatArray): void;
  maxPool2d(p: Float64Array, x: FloatArray, out: FloatArray, indices: Int32Array | null): void;
  maxPoolBackward(planes: number, plane: number, g: FloatArray, indices: Int32Array, dx: FloatArray): void;
  compareScalar(op: number, out: Uint8Array, a: FloatArray, aOffset: number, scalar: number, n: number): void;
  whereStrided(p: Float64Array, out: FloatArray, cond: Uint8Array, a: FloatArray, b: FloatArray): void;
  reduceStrided(p: Float64Array, out: FloatArray, a: FloatArray): void;
  bandwidth(n: number, reps: number): number;
  /**
   * Runs a fused program encoded by ./fused.ts: `p` = [rank, innerRank, shape…, per input: offset,
   * strides…, scalars…]; `arrays`: the inputs' arrays, then the outputs'. Absent in addons built
   * before fused programs.
   */
  fused?(code: Int32Array, p: Float64Array, arrays: readonly CpuArray[]): void;
}

/** The addon as built by scripts/build-native.mjs, relative to this file in src/ and in dist/ (four folders up). */
const ADDON_PATH = '../../../../native/build/Release/burn_native.node';

let loaded: { addon: NativeAddon } | { reason: string } | undefined;

/** Loads the addon once; the reason it is unavailable otherwise. */
export function loadNativeAddon(): { addon: NativeAddon } | { reason: string } {
  if (loaded) return loaded;
  const proc = globalThis.process;
  const getBuiltin = proc?.getBuiltinModule as ((id: string) => unknown) | undefined;
  if (typeof getBuiltin !== 'function') {
    loaded = {
      reason: proc?.versions?.node
        ? `Node ${proc.versions.node} cannot load addons from ES modules here (needs Node >= 20.16)`
        : 'not running in Node',
    };
    return loaded;
  }
  const mod = getBuiltin('node:module') as { createRequire(url: string | URL): (id: string) => unknown };
  const fs = getBuiltin('node:fs') as { existsSync(path: URL): boolean };
  const url = new URL(ADDON_PATH, import.meta.url);
  if (!fs.existsSync(url)) {
    // Advice that works where burn-ts is a dependency (npm 11 may have skipped its install script).
    loaded = {
      reason: `the addon is not built (${url.pathname} is missing): build it with \`npm rebuild burn-ts\` (npm 11 skips the install script of a dependency that its "allowScripts" denies, or does not list under strict-allow-scripts: add "allowScripts": { "burn-ts": true } to your package.json; in a burn-ts checkout: \`npm run build:native\`)`,
    };
    return loaded;
  }
  try {
    const addon = mod.createRequire(import.meta.url)(ADDON_PATH) as NativeAddon;
    addon.info();
    loaded = { addon };
  } catch (e) {
    loaded = { reason: `the addon failed to load: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
  return loaded;
}

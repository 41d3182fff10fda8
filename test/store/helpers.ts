// Shared helpers of the record/store tests: fixtures from gen_store.py, Burn's own fixtures read
// from the Burn mirror when it is present, and small test modules.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Device, Module, Tensor, TensorData, type DType } from '../../src/index.js';
import { BatchNorm, BatchNormConfig, Linear, LinearConfig } from '../../src/nn/index.js';
import type { FixtureTensor } from '../helpers/fixtures.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** gen_store.py's cases by name. */
export function storeFixture(): Record<string, Record<string, unknown>> {
  const json = JSON.parse(readFileSync(join(FIXTURES, 'store.json'), 'utf8')) as { cases: { name: string }[] };
  return Object.fromEntries(json.cases.map((c) => [c.name, c as Record<string, unknown>]));
}

/** A fixture tensor as data. */
export function fx(t: FixtureTensor, dtype: DType = t.dtype): TensorData {
  const values = t.data.map((v) => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v)) as
    | number[]
    | boolean[];
  return new TensorData(values, t.shape, dtype);
}

/**
 * Burn's own fixture files (Rust-written .bpk, Python-written .safetensors, Burn's .pt files) are
 * read from a local git mirror of tracel-ai/burn; they are not committed (they are Burn's data).
 * These cross-compatibility tests run with `npm run test:compat` (BURN_COMPAT=1, mirror path in
 * BURN_MIRROR or the default below) and are not registered at all in the regular suite.
 */
const MIRROR = process.env['BURN_MIRROR'] ?? '/work/.mirror/tracel-ai+burn/repo';
const COMPAT = process.env['BURN_COMPAT'] === '1';
if (COMPAT && !existsSync(MIRROR))
  throw new Error(`BURN_COMPAT=1 but the Burn mirror ${MIRROR} is missing (set BURN_MIRROR)`);

/** `describe` for the cross-compatibility suites (not registered unless BURN_COMPAT=1). */
export const compatDescribe = (name: string, fn: () => void): void => {
  if (COMPAT) describe(name, fn);
};
/** `it` for cross-compatibility tests (not registered unless BURN_COMPAT=1). */
export const compatIt = (name: string, fn: () => void | Promise<void>): void => {
  if (COMPAT) it(name, fn);
};

/** A file of Burn's repository (tracel-ai/burn, HEAD of the mirror). */
export function burnFile(path: string): Uint8Array {
  return new Uint8Array(execFileSync('git', ['-C', MIRROR, 'show', `HEAD:${path}`], { maxBuffer: 64 << 20 }));
}

/** A temporary directory removed by the returned function. */
export function tempDir(): [string, () => void] {
  const dir = mkdtempSync(join(tmpdir(), 'burn-ts-store-test-'));
  return [dir, () => rmSync(dir, { recursive: true, force: true })];
}

/** A small model with a Linear, a BatchNorm (running states), an array of layers and an int buffer-like param. */
export class Small extends Module {
  linear: Linear;
  norm: BatchNorm;
  blocks: Linear[];
  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
    this.norm = new BatchNormConfig({ numFeatures: 2 }).init(device);
    this.blocks = [
      new LinearConfig({ dInput: 2, dOutput: 2 }).init(device),
      new LinearConfig({ dInput: 2, dOutput: 1, bias: false }).init(device),
    ];
  }
}

/** Every tensor of a module as plain arrays, by path. */
export function values(m: Module): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  m.visitLeaves((leaf, path) => {
    const t = ('val' in leaf ? leaf.val() : leaf.value()) as Tensor<number>;
    out[path] = Array.from(t.toDataSync().toArray());
  }, '');
  return out;
}

import { z } from 'zod';
import type { Device } from '../device/device.js';
import { Distribution } from '../core/distribution.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import * as linalg from '../tensor/linalg/index.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * Parameter initializers (Burn's `Initializer`), as plain tagged values so configs can hold and
 * save them: `Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3) })`, `Initializer.Zeros`, …
 */
export type Initializer =
  | { readonly kind: 'constant'; readonly value: number }
  | { readonly kind: 'ones' }
  | { readonly kind: 'zeros' }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  | { readonly kind: 'normal'; readonly mean: number; readonly std: number }
  | { readonly kind: 'kaimingUniform'; readonly gain: number; readonly fanOutOnly: boolean }
  | { readonly kind: 'kaimingNormal'; readonly gain: number; readonly fanOutOnly: boolean }
  | { readonly kind: 'xavierUniform'; readonly gain: number }
  | { readonly kind: 'xavierNormal'; readonly gain: number }
  | { readonly kind: 'orthogonal'; readonly gain: number };

/** Initializer constructors. */
export const Initializer = {
  /** Every value `value`. */
  Constant: (value: number): Initializer => ({ kind: 'constant', value }),
  /** Ones. */
  Ones: { kind: 'ones' } as Initializer,
  /** Zeros. */
  Zeros: { kind: 'zeros' } as Initializer,
  /** U(min, max). */
  Uniform: (min: number, max: number): Initializer => ({ kind: 'uniform', min, max }),
  /** N(mean, std²). */
  Normal: (mean: number, std: number): Initializer => ({ kind: 'normal', mean, std }),
  /** U(-a, a) with a = gain·√(3 / fan), fan = fanIn (or fanOut). */
  KaimingUniform: ({
    gain = 1 / Math.sqrt(3),
    fanOutOnly = false,
  }: {
    gain?: number;
    fanOutOnly?: boolean;
  } = {}): Initializer => ({ kind: 'kaimingUniform', gain, fanOutOnly }),
  /** N(0, (gain / √fan)²). */
  KaimingNormal: ({ gain = 1, fanOutOnly = false }: { gain?: number; fanOutOnly?: boolean } = {}): Initializer => ({
    kind: 'kaimingNormal',
    gain,
    fanOutOnly,
  }),
  /** U(-a, a) with a = gain·√(6 / (fanIn + fanOut)). */
  XavierUniform: ({ gain = 1 }: { gain?: number } = {}): Initializer => ({ kind: 'xavierUniform', gain }),
  /** N(0, (gain·√(2 / (fanIn + fanOut)))²). */
  XavierNormal: ({ gain = 1 }: { gain?: number } = {}): Initializer => ({ kind: 'xavierNormal', gain }),
  /** A (semi-)orthogonal matrix scaled by `gain` (from the QR decomposition of a normal matrix). */
  Orthogonal: ({ gain = 1 }: { gain?: number } = {}): Initializer => ({ kind: 'orthogonal', gain }),
} as const;

/** The zod schema of an initializer (for config fields). */
export const initializerSchema: z.ZodType<Initializer> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('constant'), value: z.number() }),
  z.object({ kind: z.literal('ones') }),
  z.object({ kind: z.literal('zeros') }),
  z.object({ kind: z.literal('uniform'), min: z.number(), max: z.number() }),
  z.object({ kind: z.literal('normal'), mean: z.number(), std: z.number().nonnegative() }),
  z.object({ kind: z.literal('kaimingUniform'), gain: z.number(), fanOutOnly: z.boolean() }),
  z.object({ kind: z.literal('kaimingNormal'), gain: z.number(), fanOutOnly: z.boolean() }),
  z.object({ kind: z.literal('xavierUniform'), gain: z.number() }),
  z.object({ kind: z.literal('xavierNormal'), gain: z.number() }),
  z.object({ kind: z.literal('orthogonal'), gain: z.number() }),
]);

/** Fan-in and fan-out of the tensor being initialized (needed by the Kaiming and Xavier rules). */
export interface Fans {
  readonly fanIn?: number;
  readonly fanOut?: number;
}

function need(fan: number | undefined, which: string, init: Initializer): number {
  if (fan === undefined || !(fan > 0))
    throw new BurnError('Initializer', `${init.kind} needs a positive ${which}, got ${fan}`);
  return fan;
}

/** Creates a Float tensor of `shape` on `device` with `init`. */
export function initTensor<const S extends readonly number[]>(
  init: Initializer,
  shape: S,
  fans: Fans,
  device: Device,
): Tensor<S['length'], Float> {
  const rand = (dist: Distribution) => Tensor.random(shape, dist, device) as unknown as Tensor<S['length'], Float>;
  switch (init.kind) {
    case 'constant':
      return Tensor.full(shape, init.value, device) as unknown as Tensor<S['length'], Float>;
    case 'ones':
      return Tensor.ones(shape, device) as unknown as Tensor<S['length'], Float>;
    case 'zeros':
      return Tensor.zeros(shape, device) as unknown as Tensor<S['length'], Float>;
    case 'uniform':
      return rand(Distribution.Uniform(init.min, init.max));
    case 'normal':
      return rand(Distribution.Normal(init.mean, init.std));
    case 'kaimingUniform': {
      const fan = init.fanOutOnly ? need(fans.fanOut, 'fanOut', init) : need(fans.fanIn, 'fanIn', init);
      const a = init.gain * Math.sqrt(3 / fan);
      return rand(Distribution.Uniform(-a, a));
    }
    case 'kaimingNormal': {
      const fan = init.fanOutOnly ? need(fans.fanOut, 'fanOut', init) : need(fans.fanIn, 'fanIn', init);
      return rand(Distribution.Normal(0, init.gain / Math.sqrt(fan)));
    }
    case 'xavierUniform': {
      const a = init.gain * Math.sqrt(6 / (need(fans.fanIn, 'fanIn', init) + need(fans.fanOut, 'fanOut', init)));
      return rand(Distribution.Uniform(-a, a));
    }
    case 'xavierNormal': {
      const std = init.gain * Math.sqrt(2 / (need(fans.fanIn, 'fanIn', init) + need(fans.fanOut, 'fanOut', init)));
      return rand(Distribution.Normal(0, std));
    }
    case 'orthogonal': {
      if (shape.length < 2)
        throw new BurnError('Initializer', `orthogonal needs a shape of rank >= 2, got ${fmt(shape)}`);
      const rows = shape[0]!;
      const cols = shape.slice(1).reduce((a, b) => a * b, 1);
      // QR of a tall normal matrix; sign-correct Q by diag(R) so the result is uniformly distributed.
      const [m, n] = rows < cols ? [cols, rows] : [rows, cols];
      const a = Tensor.random([m, n], Distribution.Normal(0, 1), device) as Tensor<2, Float>;
      const { q, r } = linalg.qr(a);
      const signs = linalg.diag(r).sign();
      let out = q.mul(signs.unsqueezeDim(0) as unknown as Tensor<2, Float>) as Tensor<2, Float>;
      if (rows < cols) out = out.transpose();
      return out.mul(init.gain).reshape(shape) as unknown as Tensor<S['length'], Float>;
    }
  }
}

import { BurnError } from './errors.js';

/**
 * How close two floats must be to count as equal: `|x - y| < max(A, R * max(|x|, |y|))`
 * with relative tolerance R and absolute tolerance A (Burn's `Tolerance`).
 */
export class Tolerance {
  private constructor(
    readonly relative: number,
    readonly absolute: number,
  ) {}

  /** The default: {@link Tolerance.balanced}. */
  static default(): Tolerance {
    return Tolerance.balanced();
  }
  /** Exact up to a few ulps of the smallest normal float. */
  static strict(): Tolerance {
    return new Tolerance(0, 64 * 1.1754943508222875e-38);
  }
  /** 0.5% relative, 1e-5 absolute. */
  static balanced(): Tolerance {
    return new Tolerance(0.005, 1e-5);
  }
  /** 1% relative, 0.01 absolute. */
  static permissive(): Tolerance {
    return new Tolerance(0.01, 0.01);
  }
  /** Both a relative and an absolute tolerance. */
  static relAbs(relative: number, absolute: number): Tolerance {
    return new Tolerance(checkRelative(relative), checkAbsolute(absolute));
  }
  /** Only a relative tolerance. */
  static relative(relative: number): Tolerance {
    return new Tolerance(checkRelative(relative), 0);
  }
  /** Only an absolute tolerance. */
  static absolute(absolute: number): Tolerance {
    return new Tolerance(0, checkAbsolute(absolute));
  }
  /** A copy with another relative tolerance. */
  setRelative(relative: number): Tolerance {
    return new Tolerance(checkRelative(relative), this.absolute);
  }
  /** A copy with another absolute tolerance. */
  setAbsolute(absolute: number): Tolerance {
    return new Tolerance(this.relative, checkAbsolute(absolute));
  }
  /** True when `x` and `y` are equal under this tolerance (infinities must match exactly, NaN never equals). */
  approxEq(x: number, y: number): boolean {
    if (x === y) return true;
    const diff = Math.abs(x - y);
    const max = Math.max(Math.abs(x), Math.abs(y));
    return diff < Math.max(this.absolute, this.relative * max);
  }
}

function checkRelative(r: number): number {
  if (!(r >= 0 && r <= 1)) throw new BurnError('Tolerance', `relative tolerance ${r}; expected 0 <= r <= 1`);
  return r;
}

function checkAbsolute(a: number): number {
  if (!(a >= 0)) throw new BurnError('Tolerance', `absolute tolerance ${a}; expected a >= 0`);
  return a;
}

import type { FusedCall } from '../../../backend/fusion/program.js';
import { BurnError } from '../../../core/errors.js';
import { contiguousStrides, numel, sameShape } from '../../../core/shape.js';
import { alignStrides, collapse } from '../../../core/strided.js';
import type { FusedOperand } from '../engine.js';
import type { CpuTensor } from '../storage.js';

/**
 * The layout of one fused call: every input as (array, offset, strides over the iteration space
 * `outer ++ inner`), then the outer dims and the inner dims each collapsed as far as every operand
 * (the contiguous outputs included) allows, so a contiguous elementwise program is one flat dim.
 */
export interface FusedLayout {
  /** The collapsed iteration space: `outerRank` outer dims, then `innerRank` inner ones. */
  readonly shape: number[];
  readonly innerRank: number;
  readonly inputs: FusedOperand[];
  /** Rows (the product of the outer dims) and elements per row (of the inner dims). */
  readonly rows: number;
  readonly innerN: number;
}

/** Refuses a call whose inputs or scalars do not match its program (a bug of the caller), naming them. */
function checkCall(call: FusedCall<CpuTensor>, full: readonly number[]): void {
  const { program, outer, inputs, scalars } = call;
  const bad = (why: string): never => {
    throw new BurnError('fused', `${why} (program ${program.key})`);
  };
  if (inputs.length !== program.inputs.length) bad(`${inputs.length} inputs for a program of ${program.inputs.length}`);
  if (scalars.length < program.scalars) bad(`${scalars.length} scalars for a program of ${program.scalars}`);
  if (!program.reduces && call.inner.length > 0)
    bad(`inner dims [${call.inner.join(', ')}] for a program without reductions`);
  inputs.forEach((t, k) => {
    const spec = program.inputs[k]!;
    if (t.dtype !== spec.dtype) bad(`input ${k} has dtype ${t.dtype}, expected ${spec.dtype}`);
    const target = spec.level === 'element' || t.shape.length === full.length ? full : outer;
    const off = target.length - t.shape.length;
    if (off < 0 || t.shape.some((s, d) => s !== 1 && s !== target[d + off]))
      bad(`input ${k} has shape [${t.shape.join(', ')}], expected [${target.join(', ')}] (${spec.level} input)`);
  });
}

/** Lays out `call`'s inputs over its iteration space and collapses the dims. */
export function fusedLayout(call: FusedCall<CpuTensor>): FusedLayout {
  const { program, outer, inner, inputs } = call;
  const full = [...outer, ...inner];
  const rows = numel(outer),
    innerN = numel(inner);
  // The common case: every input dense in row-major order over its exact shape. Each group then
  // collapses to one dim (none where it holds one element).
  if (
    inputs.length === program.inputs.length &&
    inputs.every(
      (t, k) =>
        t.dtype === program.inputs[k]!.dtype &&
        sameShape(t.shape, program.inputs[k]!.level === 'element' ? full : outer) &&
        t.isContiguous(),
    ) &&
    call.scalars.length >= program.scalars &&
    (program.reduces || inner.length === 0)
  ) {
    const o = rows === 1 ? 0 : 1,
      i = innerN === 1 ? 0 : 1;
    return {
      shape: [...(o ? [rows] : []), ...(i ? [innerN] : [])],
      innerRank: i,
      inputs: inputs.map((t, k) => {
        const element = program.inputs[k]!.level === 'element';
        const strides: number[] = [];
        if (o) strides.push(element ? innerN : 1);
        if (i) strides.push(element ? 1 : 0);
        return { data: t.data, offset: t.offset, strides };
      }),
      rows,
      innerN,
    };
  }
  checkCall(call, full);
  const zerosInner = inner.map(() => 0);
  const sets = inputs.map((t, k) => {
    // Element inputs have the full shape, row inputs `outer` (or outer with size-1 inner dims).
    if (program.inputs[k]!.level === 'element' || t.shape.length === full.length)
      return alignStrides(t.shape, t.strides, full);
    return [...alignStrides(t.shape, t.strides, outer), ...zerosInner];
  });
  // The outputs are contiguous: element ones over outer ++ inner, row ones over outer.
  const elementOut = contiguousStrides(full);
  const rowOut = [...contiguousStrides(outer), ...zerosInner];
  const all = [...sets, elementOut, rowOut];
  const o = collapse(
    outer,
    all.map((s) => s.slice(0, outer.length)),
  );
  const i = collapse(
    inner,
    all.map((s) => s.slice(outer.length)),
  );
  const shape = [...o.shape, ...i.shape];
  return {
    shape,
    innerRank: i.shape.length,
    inputs: inputs.map((t, k) => ({ data: t.data, offset: t.offset, strides: [...o.strides[k]!, ...i.strides[k]!] })),
    rows,
    innerN,
  };
}

/**
 * The layout signature of a generated kernel: per input, its stride along the innermost dim of
 * the loop (`u` unit, `z` zero, `g` other; `-` for a row input, which does not move along it).
 */
export function layoutSignature(levels: readonly ('element' | 'row')[], layout: FusedLayout, loopRank: number): string {
  const last = layout.shape.length - 1;
  let sig = '';
  for (let k = 0; k < layout.inputs.length; k++) {
    if (levels[k] === 'row') sig += '-';
    else if (loopRank === 0) sig += 'z';
    else {
      const s = layout.inputs[k]!.strides[last]!;
      sig += s === 1 ? 'u' : s === 0 ? 'z' : 'g';
    }
  }
  return sig;
}

import type { Backend, TensorPrimitive } from '../backend.js';
import { fusedOutputShape, instrArgs as argsOf, type FusedCall } from './program.js';

/**
 * Runs a fused program op by op with `backend`'s own ops: the reference semantics of the IR, and
 * the fallback of the fusion decorator where the backend has no fused kernel (`Backend.fused`
 * declined or is absent). Intermediates it creates are disposed as soon as they are dead; an
 * output that is an input is returned as a second handle (`retain`). Each output is a new handle,
 * so a program must not list one value twice.
 */
export function replayFused<P extends TensorPrimitive>(backend: Backend<P>, call: FusedCall<P>): P[] {
  const { program, outer, inner, inputs, scalars } = call;
  const { instrs } = program;
  const innerDims = inner.map((_, i) => outer.length + i);
  const rowShape = [...outer, ...inner.map(() => 1)];
  const values: (P | undefined)[] = [];
  // Values the replay made (not inputs, not outputs) are disposed after their last use.
  const lastUse = new Array<number>(instrs.length).fill(-1);
  instrs.forEach((instr, i) => {
    for (const a of argsOf(instr)) lastUse[a] = i;
  });
  const isOutput = new Set(program.outputs.map((o) => o.value));
  const owned = new Set<number>();
  const fill = (value: number, dtype: P['dtype']) => backend.fill([], value, dtype);
  for (let i = 0; i < instrs.length; i++) {
    const instr = instrs[i]!;
    let v: P;
    switch (instr.kind) {
      case 'load': {
        const x = inputs[instr.input]!;
        v = program.levels[i] === 'row' && inner.length > 0 ? backend.reshape(x, rowShape) : x;
        if (v !== x) owned.add(i);
        break;
      }
      case 'scalar':
        v = fill(scalars[instr.index]!, instr.dtype);
        owned.add(i);
        break;
      case 'unary':
        v = backend.unary(instr.op, values[instr.x]!);
        owned.add(i);
        break;
      case 'predicate':
        v = backend.predicate(instr.op, values[instr.x]!);
        owned.add(i);
        break;
      case 'binary':
        v = binaryOf(
          backend,
          instr.op,
          values[instr.x]!,
          values[instr.y]!,
          instrs[instr.y]!.kind === 'scalar' ? scalars[(instrs[instr.y] as { index: number }).index] : undefined,
        );
        owned.add(i);
        break;
      case 'compare':
        v = backend.compare(instr.op, values[instr.x]!, values[instr.y]!);
        owned.add(i);
        break;
      case 'where':
        v = backend.where(values[instr.c]!, values[instr.x]!, values[instr.y]!);
        owned.add(i);
        break;
      case 'cast':
        v = backend.cast(values[instr.x]!, instr.dtype);
        owned.add(i);
        break;
      case 'reduce':
        v = backend.reduce(instr.op, values[instr.x]!, innerDims);
        owned.add(i);
        break;
    }
    values.push(v);
    for (const a of argsOf(instr))
      if (lastUse[a] === i && owned.has(a) && !isOutput.has(a)) backend.dispose?.(values[a]!);
  }
  const outs = program.outputs.map((o, k) => {
    const v = values[o.value]!;
    const shape = fusedOutputShape(call, k);
    const sameShape = v.shape.length === shape.length && v.shape.every((s, d) => s === shape[d]);
    if (sameShape) return owned.has(o.value) ? v : backend.retain ? backend.retain(v) : v;
    // A row value stored per row, or a value that did not reach the full shape (a scalar output).
    const numel = v.shape.reduce((a, s) => a * s, 1);
    const target = shape.reduce((a, s) => a * s, 1);
    return numel === target ? backend.reshape(v, shape) : backend.expand(v, shape);
  });
  return outs;
}

function binaryOf<P extends TensorPrimitive>(
  backend: Backend<P>,
  op: Parameters<Backend<P>['binary']>[0],
  x: P,
  y: P,
  scalar: number | undefined,
): P {
  // A scalar rhs goes through binaryScalar, the op the decorator recorded.
  return scalar !== undefined ? backend.binaryScalar(op, x, scalar) : backend.binary(op, x, y);
}

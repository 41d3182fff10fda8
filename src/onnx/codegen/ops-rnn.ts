import { TensorData } from '../../core/data.js';
import type { EmitContext, Emitted, Emitter } from './context.js';

/**
 * LSTM and GRU as `nn.Lstm`/`nn.BiLstm` and `nn.Gru`/`nn.BiGru`. ONNX stacks the gates in one
 * weight per direction (`W [dirs, gates·h, in]`, `R [dirs, gates·h, h]`, `B [dirs, 2·gates·h]`);
 * Burn has one `GateController` per gate with `[in, h]` and `[h, h]` linears, so the weights are
 * split and transposed at generation time.
 */

/** Rows `[g·h, (g+1)·h)` of direction `d` of a `[dirs, gates·h, k]` weight, transposed to `[k, h]`. */
function gateWeight(w: TensorData, d: number, g: number, h: number): TensorData {
  const [, , k] = w.shape as [number, number, number];
  const v = w.toArray();
  const rows = w.shape[1]!;
  const out = new Float32Array(k * h);
  for (let r = 0; r < h; r++) for (let c = 0; c < k; c++) out[c * h + r] = v[(d * rows + g * h + r) * k + c]!;
  return new TensorData(out, [k, h], 'f32');
}

/** Entries `[off + g·h, off + (g+1)·h)` of direction `d` of a `[dirs, n]` bias. */
function gateBias(b: TensorData, d: number, off: number, g: number, h: number): TensorData {
  const n = b.shape[1]!;
  const v = b.toArray();
  return new TensorData(
    Float32Array.from({ length: h }, (_, i) => v[d * n + off + g * h + i]!),
    [h],
    'f32',
  );
}

function constant(ctx: EmitContext, i: number, what: string): TensorData {
  const c = ctx.constant(i);
  if (!c) return ctx.fail(`has ${what} computed at run time (the layer needs constant weights)`);
  return c.dtype === 'f32' ? c : c.convert('f32');
}

/** True when input `i` is absent or known to be all zeros (PyTorch's exporter feeds zero initial states). */
function zeroOrAbsent(ctx: EmitContext, i: number): boolean {
  const v = ctx.value(i);
  return !v || ((v.kind === 'tensor' || v.kind === 'const') && v.zero === true);
}

interface Common {
  dirs: number;
  hidden: number;
  reverse: boolean;
  batchFirst: boolean;
}

function common(ctx: EmitContext, defaults: readonly string[]): Common {
  const direction = ctx.attrs.string('direction', 'forward');
  const dirs = direction === 'bidirectional' ? 2 : 1;
  if (ctx.has(4)) return ctx.fail('has sequence_lens (variable lengths)');
  if (ctx.attrs.has('clip')) return ctx.fail('clips its gates');
  const acts = ctx.attrs.strings('activations');
  if (acts && acts.some((a, i) => a.toLowerCase() !== defaults[i % defaults.length]!.toLowerCase()))
    return ctx.fail(`uses activations ${acts.join(', ')}`);
  const w = constant(ctx, 1, 'W');
  const hidden = ctx.attrs.int('hidden_size') ?? w.shape[1]! / defaults.length;
  return { dirs, hidden, reverse: direction === 'reverse', batchFirst: ctx.attrs.int('layout', 0) === 1 };
}

/** Output Y and the final states from a layer call's sequence output and `[dirs, batch, h]`-shaped states. */
function outputs(ctx: EmitContext, c: Common, seq: string, states: readonly (string | undefined)[]): Emitted[] {
  // Burn: [seq, batch, dirs·h] (or batch-first); ONNX: [seq, dirs, batch, h] (layout 1: [batch, seq, dirs, h]).
  const y =
    c.dirs === 1
      ? `${seq}.unsqueezeDim(${c.batchFirst ? 2 : 1})`
      : c.batchFirst
        ? `${seq}.reshape([0, 0, 2, ${c.hidden}])`
        : `${seq}.reshape([0, 0, 2, ${c.hidden}]).swapDims(1, 2)`;
  return [y, ...states.map((s) => (s === undefined ? undefined : c.batchFirst ? `${s}.swapDims(0, 1)` : s))];
}

const lstm: Emitter = (ctx) => {
  const c = common(ctx, ['Sigmoid', 'Tanh', 'Tanh']);
  if (ctx.has(7)) return ctx.fail('has peepholes');
  const w = constant(ctx, 1, 'W');
  const r = constant(ctx, 2, 'R');
  const b = ctx.has(3) ? constant(ctx, 3, 'B') : undefined;
  const h = c.hidden;
  const dInput = w.shape[2]!;
  const config: Record<string, unknown> = { dInput, dHidden: h, bias: b !== undefined };
  if (!c.batchFirst) config.batchFirst = false;
  if (ctx.attrs.int('input_forget', 0) === 1) config.inputForget = true;
  if (c.reverse) config.reverse = true;
  const weights = new Map<string, TensorData>();
  // ONNX's gate order is i, o, f, c.
  const gates = ['inputGate', 'outputGate', 'forgetGate', 'cellGate'];
  for (let d = 0; d < c.dirs; d++) {
    const prefix = c.dirs === 2 ? (d === 0 ? 'forwardLstm.' : 'reverseLstm.') : '';
    gates.forEach((gate, g) => {
      weights.set(`${prefix}${gate}.inputTransform.weight`, gateWeight(w, d, g, h));
      weights.set(`${prefix}${gate}.hiddenTransform.weight`, gateWeight(r, d, g, h));
      if (b) {
        weights.set(`${prefix}${gate}.inputTransform.bias`, gateBias(b, d, 0, g, h));
        weights.set(`${prefix}${gate}.hiddenTransform.bias`, gateBias(b, d, 4 * h, g, h));
      }
    });
  }
  const cls = c.dirs === 2 ? 'BiLstm' : 'Lstm';
  const field = ctx.layer(ctx.hint, {
    cls,
    configCls: `${cls}Config`,
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1, 4).filter((x) => x),
  });
  let state = '';
  if (!zeroOrAbsent(ctx, 5) || !zeroOrAbsent(ctx, 6)) {
    ctx.use('burn-ts/nn', 'LstmState');
    const fix = (i: number): string => {
      let t = ctx.tensor(i);
      if (c.batchFirst) t = `${t}.swapDims(0, 1)`;
      return c.dirs === 1 ? `${t}.squeezeDim(0)` : t;
    };
    const h0 = ctx.has(5) ? fix(5) : undefined;
    const c0 = ctx.has(6) ? fix(6) : undefined;
    state = `, new LstmState(${c0 ?? `${h0}.zerosLike()`}, ${h0 ?? `${c0}.zerosLike()`})`;
  }
  const seq = ctx.local(`${ctx.hint}Output`);
  const st = ctx.local(`${ctx.hint}State`);
  const wantState = ctx.used(1) || ctx.used(2);
  ctx.stmt(
    `const [${ctx.used(0) ? seq : ''}${wantState ? `, ${st}` : ''}] = this.${field}.forward(${ctx.tensor(0)}${state});`,
  );
  const lift = (s: string) => (c.dirs === 1 ? `${st}.${s}.unsqueezeDim(0)` : `${st}.${s}`);
  return outputs(ctx, c, seq, [ctx.used(1) ? lift('hidden') : undefined, ctx.used(2) ? lift('cell') : undefined]);
};

const gru: Emitter = (ctx) => {
  const c = common(ctx, ['Sigmoid', 'Tanh']);
  if (c.reverse)
    return ctx.fail('runs only backwards (nn.Gru has no reverse option; a bidirectional GRU is supported)');
  const w = constant(ctx, 1, 'W');
  const r = constant(ctx, 2, 'R');
  const b = ctx.has(3) ? constant(ctx, 3, 'B') : undefined;
  const h = c.hidden;
  const config: Record<string, unknown> = { dInput: w.shape[2]!, dHidden: h, bias: b !== undefined };
  if (ctx.attrs.int('linear_before_reset', 0) === 0) config.resetAfter = false;
  if (c.dirs === 2 && !c.batchFirst) config.batchFirst = false;
  const weights = new Map<string, TensorData>();
  // ONNX's gate order is z, r, h.
  const gates = ['updateGate', 'resetGate', 'newGate'];
  for (let d = 0; d < c.dirs; d++) {
    const prefix = c.dirs === 2 ? (d === 0 ? 'forwardGru.' : 'reverseGru.') : '';
    gates.forEach((gate, g) => {
      weights.set(`${prefix}${gate}.inputTransform.weight`, gateWeight(w, d, g, h));
      weights.set(`${prefix}${gate}.hiddenTransform.weight`, gateWeight(r, d, g, h));
      if (b) {
        weights.set(`${prefix}${gate}.inputTransform.bias`, gateBias(b, d, 0, g, h));
        weights.set(`${prefix}${gate}.hiddenTransform.bias`, gateBias(b, d, 3 * h, g, h));
      }
    });
  }
  const cls = c.dirs === 2 ? 'BiGru' : 'Gru';
  const field = ctx.layer(ctx.hint, {
    cls,
    configCls: `${cls}Config`,
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1, 4).filter((x) => x),
  });
  const h0 = zeroOrAbsent(ctx, 5)
    ? ''
    : `, ${c.dirs === 1 ? `${ctx.tensor(5)}${c.batchFirst ? '.swapDims(0, 1)' : ''}.squeezeDim(0)` : `${ctx.tensor(5)}${c.batchFirst ? '.swapDims(0, 1)' : ''}`}`;
  if (c.dirs === 1) {
    // nn.Gru reads batch-first input and returns every step; the final state is the last step.
    const seq = ctx.local(`${ctx.hint}Output`);
    ctx.stmt(
      `const ${seq} = this.${field}.forward(${c.batchFirst ? ctx.tensor(0) : `${ctx.tensor(0)}.swapDims(0, 1)`}${h0});`,
    );
    const y = c.batchFirst ? `${seq}.unsqueezeDim(2)` : `${seq}.swapDims(0, 1).unsqueezeDim(1)`;
    const last = c.batchFirst ? `${seq}.sliceDim(1, -1)` : `${seq}.sliceDim(1, -1).swapDims(0, 1)`;
    return [ctx.used(0) ? y : undefined, ctx.used(1) ? last : undefined];
  }
  const seq = ctx.local(`${ctx.hint}Output`);
  const st = ctx.local(`${ctx.hint}State`);
  ctx.stmt(
    `const [${ctx.used(0) ? seq : ''}${ctx.used(1) ? `, ${st}` : ''}] = this.${field}.forward(${ctx.tensor(0)}${h0});`,
  );
  return outputs(ctx, c, seq, [ctx.used(1) ? st : undefined]);
};

/** The recurrent emitters. */
export const rnnEmitters: Readonly<Record<string, Emitter>> = { LSTM: lstm, GRU: gru };

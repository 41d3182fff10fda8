import type { TensorPrimitive } from '../backend/backend.js';
import type {
  CpuCustomForward,
  CustomBackward,
  CustomCall,
  CustomKernel,
  WebGpuCustomForward,
} from '../backend/custom.js';
import type { Device } from '../device/device.js';
import { assertDType, isFloatDType, type DType } from '../core/dtype.js';
import { BurnError, describeValue, fmt } from '../core/errors.js';
import { checkShape, sameShape } from '../core/shape.js';
import { Tensor } from './tensor.js';

export type {
  CpuCustomForward,
  CpuCustomInput,
  CpuCustomOutput,
  CustomKernelInfo,
  WebGpuCustomForward,
} from '../backend/custom.js';

/**
 * User-defined ops (Burn's `custom-wgpu-kernel` example): a forward per backend — a CPU function,
 * a WGSL kernel — and a backward rule written with ordinary tensor ops. The op reaches the backend
 * through `Backend.customOp` and the autodiff decorator records it as one node, as it records a
 * built-in op, so `loss.backward()` runs the user's rule.
 */

/** One tensor per input name, in order. */
export type CustomOpTensors<N extends readonly string[]> = { readonly [I in keyof N]: Tensor };

/** The shape and dtype of one input, for {@link CustomOpDefinition.output}. */
export interface CustomOpInputInfo {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** What {@link CustomOpDefinition.backward} reads, on the device without autodiff (untracked tensors). */
export interface CustomOpBackwardContext<N extends readonly string[]> {
  /** The forward's inputs. Read them; do not dispose them (the graph owns them). */
  readonly inputs: CustomOpTensors<N>;
  /** The forward's output. Do not dispose it. */
  readonly output: Tensor;
  /** `needs[i]`: whether input `i` requires a gradient (skip the work for the others). */
  readonly needs: readonly boolean[];
}

/** The definition of a custom op; see {@link defineCustomOp}. */
export interface CustomOpDefinition<N extends readonly string[]> {
  /** The op's name, used in errors. */
  readonly name: string;
  /** The inputs' names, in order; they are also the names of the WGSL bindings. Every input is a Float tensor. */
  readonly inputs: N;
  /**
   * The output's shape (and dtype; default: the first input's) from the inputs'. Throw a
   * `BurnError` naming the op for inputs it does not accept: it runs before any forward.
   */
  readonly output: (inputs: readonly CustomOpInputInfo[]) => {
    readonly shape: readonly number[];
    readonly dtype?: DType;
  };
  /** The forward on CPU devices (every engine): fills `output` from the inputs' dense row-major arrays. */
  readonly cpu?: CpuCustomForward;
  /** The forward on WebGPU devices: a WGSL kernel and its dispatch (see {@link WebGpuCustomForward} for the bindings). */
  readonly webgpu?: WebGpuCustomForward;
  /**
   * The backward rule, written with tensor ops on the device without autodiff: the gradient of
   * every input (one per input, `undefined` where none flows or none is needed), each of its
   * input's shape and dtype, from the output's gradient `grad`. Without one, the op can run under
   * autodiff only on untracked inputs (or through {@link composite}).
   */
  readonly backward?: (grad: Tensor, ctx: CustomOpBackwardContext<N>) => readonly (Tensor | undefined)[];
  /**
   * Optional: the op written with tensor ops, run on devices that have no forward of their own
   * (remote devices; a backend the op has no kernel for), and differentiated op by op there.
   */
  readonly composite?: (...inputs: CustomOpTensors<N>) => Tensor;
  /**
   * What gradient checkpointing does with the op (Burn's `compute_bound`/`memory_bound`): a
   * compute-bound op (the default) keeps its output for the backward pass; a memory-bound one is
   * run again instead.
   */
  readonly cost?: 'compute-bound' | 'memory-bound';
}

/** Names the WebGPU forward declares itself (the output, the parameter words, the entry point). */
const TAKEN = ['output', 'param', 'custom_params', 'main'];
/** Input names that cannot be WGSL bindings: {@link TAKEN} and the WGSL keywords and types a name would clash with. */
const RESERVED = new Set([
  ...TAKEN,
  ...['alias', 'break', 'case', 'const', 'const_assert', 'continue', 'continuing', 'default', 'diagnostic', 'discard'],
  ...['else', 'enable', 'false', 'fn', 'for', 'if', 'let', 'loop', 'override', 'requires', 'return', 'struct'],
  ...['switch', 'true', 'var', 'while', 'array', 'bool', 'f16', 'f32', 'i32', 'u32', 'vec2', 'vec3', 'vec4', 'ptr'],
]);

/** The given input names as written (`["x","let"]`), for errors. */
function showNames(names: unknown): string {
  try {
    return Array.isArray(names) ? JSON.stringify(names) : describeValue(names);
  } catch {
    return describeValue(names);
  }
}

/** A user-defined op made by {@link defineCustomOp}. */
export class CustomOp<N extends readonly string[]> {
  /** @internal What the backends run. */
  readonly kernel: CustomKernel;

  /** @internal Use {@link defineCustomOp}. */
  constructor(private readonly def: CustomOpDefinition<N>) {
    const op = typeof def?.name === 'string' && def.name !== '' ? def.name : 'defineCustomOp';
    if (op === 'defineCustomOp')
      throw new BurnError(op, `name ${describeValue(def?.name)}; expected a non-empty string`);
    const names: readonly unknown[] = Array.isArray(def.inputs) ? def.inputs : [];
    if (
      names.length === 0 ||
      names.some((n) => typeof n !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(n) || RESERVED.has(n))
    ) {
      throw new BurnError(
        op,
        `inputs ${showNames(def.inputs)}; expected at least one name, each a WGSL identifier other than a keyword and ${[...TAKEN].join(', ')}`,
      );
    }
    if (new Set(names).size !== names.length)
      throw new BurnError(op, `inputs ${showNames(def.inputs)} repeat a name; expected distinct names`);
    if (typeof def.output !== 'function')
      throw new BurnError(op, 'no output function; expected output(inputs) => { shape, dtype? }');
    if (!def.cpu && !def.webgpu && !def.composite)
      throw new BurnError(op, 'no forward; expected cpu, webgpu or composite');
    this.kernel = { name: def.name, inputNames: def.inputs, cpu: def.cpu, webgpu: def.webgpu };
  }

  /** The op's name. */
  get name(): string {
    return this.def.name;
  }

  /**
   * Runs the op on tensors of one device: that backend's forward, else the composite; under
   * autodiff it is recorded with the op's backward rule. Throws a BurnError naming the op for the
   * wrong number of inputs, non-float or mixed-device inputs, shapes `output` refuses, and a device
   * the op has no forward for.
   */
  apply(...inputs: CustomOpTensors<N>): Tensor {
    const def = this.def,
      name = def.name,
      names = def.inputs;
    const given = inputs as readonly unknown[];
    if (given.length !== names.length)
      throw new BurnError(name, `got ${given.length} input(s); expected ${names.length} (${names.join(', ')})`);
    given.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new BurnError(name, `input ${names[i]} is not a Tensor`);
    });
    const ts = inputs as readonly Tensor[];
    const first = ts[0]!;
    ts.forEach((t, i) => {
      first.sameDevice(t, name);
      if (!isFloatDType(t.dtype()))
        throw new BurnError(name, `input ${names[i]} has dtype ${t.dtype()}; expected a Float tensor`);
    });
    const device = first.device();
    const meta = def.output(ts.map((t) => ({ shape: t.shape(), dtype: t.dtype() })));
    checkShape(meta?.shape, name, 'output shape');
    const dtype = meta.dtype === undefined ? first.dtype() : assertDType(meta.dtype, name);
    const shape = [...meta.shape];
    const tracked = ts.some((t) => t.isRequireGrad());
    // Under autodiff without a backward rule, the composite is differentiated op by op instead.
    const kernelUsable = !tracked || def.backward !== undefined;
    if (kernelUsable) {
      const call: CustomCall = {
        kernel: this.kernel,
        shape,
        dtype,
        backward: def.backward && this.backwardOn(device.inner(), ts),
        cost: def.cost,
      };
      const out = device.backend.customOp?.(
        call,
        ts.map((t) => t.primitive),
      );
      if (out !== undefined) return Tensor.fromPrimitive(out, device);
    }
    if (def.composite) {
      const out = def.composite(...inputs);
      if (!(out instanceof Tensor) || !sameShape(out.shape(), shape) || out.dtype() !== dtype) {
        throw new BurnError(
          name,
          `the composite returned ${out instanceof Tensor ? `a ${out.dtype()} tensor of shape ${fmt(out.shape())}` : 'no Tensor'}; expected a ${dtype} tensor of shape ${fmt(shape)} (as output() declares)`,
        );
      }
      return out;
    }
    const defined = [def.cpu && 'cpu', def.webgpu && 'webgpu'].filter(Boolean).join(' and ');
    if (!kernelUsable)
      throw new BurnError(
        name,
        `an input requires grad, but the op has no backward rule (nor a composite); give it backward, or detach the inputs`,
      );
    throw new BurnError(
      name,
      `no forward for ${device}: the op defines ${defined} only${device.inner().backend.name.startsWith('remote') ? ' (a remote server cannot run a function of this process)' : ''}; give it a forward for this backend, or a composite (tensor ops) that runs anywhere`,
    );
  }

  /** The backward rule on the inner backend's primitives: wraps them as tensors of `inner` for the user's rule and checks what it returns. */
  private backwardOn(inner: Device, inputs: readonly Tensor[]): CustomBackward {
    const def = this.def,
      name = def.name;
    const metas = inputs.map((t) => ({ shape: t.shape(), dtype: t.dtype() }));
    return (grad, saved, needs) => {
      const wrap = (p: TensorPrimitive): Tensor => Tensor.fromPrimitive(p, inner);
      const ctx: CustomOpBackwardContext<N> = {
        inputs: saved.inputs.map(wrap) as unknown as CustomOpTensors<N>,
        output: wrap(saved.output),
        needs,
      };
      const grads = def.backward!(wrap(grad), ctx);
      if (!Array.isArray(grads) || grads.length !== metas.length) {
        throw new BurnError(
          `${name}.backward`,
          `returned ${Array.isArray(grads) ? `${grads.length} gradient(s)` : describeValue(grads)}; expected ${metas.length} (one per input: ${def.inputs.join(', ')}; undefined where none flows)`,
        );
      }
      return grads.map((g: Tensor | undefined, i) => {
        if (g === undefined || !needs[i]) return undefined;
        const m = metas[i]!,
          input = def.inputs[i];
        if (!(g instanceof Tensor)) throw new BurnError(`${name}.backward`, `the gradient of ${input} is not a Tensor`);
        if (!g.device().equals(inner))
          throw new BurnError(
            `${name}.backward`,
            `the gradient of ${input} lives on ${g.device()}; expected ${inner} (the device of grad and ctx)`,
          );
        if (!sameShape(g.shape(), m.shape) || g.dtype() !== m.dtype) {
          throw new BurnError(
            `${name}.backward`,
            `the gradient of ${input} is a ${g.dtype()} tensor of shape ${fmt(g.shape())}; expected the input's: ${m.dtype}, ${fmt(m.shape)}`,
          );
        }
        return g.primitive;
      });
    };
  }
}

/**
 * Defines a custom op: a forward per backend (a CPU function, a WGSL kernel), a backward rule
 * written with tensor ops, and optionally a composite for every other device. `op.apply(a, b)`
 * returns a Tensor on the inputs' device; under autodiff `backward()` uses the op's rule.
 *
 * ```ts
 * import { defineCustomOp, Tensor } from 'burn-ts';
 *
 * const square = defineCustomOp({
 *   name: 'square',
 *   inputs: ['x'],
 *   output: ([x]) => ({ shape: x!.shape }),
 *   cpu: ([x], out) => { for (let i = 0; i < out.data.length; i++) out.data[i] = x!.data[i]! ** 2; },
 *   backward: (grad, { inputs: [x] }) => [grad.mul(x).mul(2)],
 * });
 * const x = Tensor.fromFloats([1, 2, 3]);
 * square.apply(x); // [1, 4, 9]
 * ```
 */
export function defineCustomOp<const N extends readonly string[]>(definition: CustomOpDefinition<N>): CustomOp<N> {
  return new CustomOp(definition);
}

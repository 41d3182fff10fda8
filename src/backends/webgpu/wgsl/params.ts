import { helperSource } from './math.js';
import type { CType } from './types.js';

/**
 * A kernel's run-time parameters (sizes, strides, offsets, scalars): 32-bit words in a uniform
 * buffer. Code generation asks for a word by position and gets the WGSL expression reading it, so
 * the shader text depends on the layout only, never on the values — one shader serves every
 * shape of the same rank, and the pipeline cache keyed by text stays small.
 */
export class Params {
  readonly words: number[] = [];

  /** Appends a u32 word; returns the WGSL expression of its value. */
  u(value: number): string {
    const i = this.words.length;
    this.words.push(value >>> 0);
    return `prm.v[${i >> 2}][${i & 3}]`;
  }

  /** Appends an i32 word. */
  i(value: number): string {
    return `bitcast<i32>(${this.u((value | 0) >>> 0)})`;
  }

  /** Appends an f32 word. */
  f(value: number): string {
    return `bitcast<f32>(${this.u(new Uint32Array(new Float32Array([value]).buffer)[0]!)})`;
  }

  /** Appends a word holding `value` in compute type `t`. */
  of(value: number, t: CType): string {
    return t === 'f32' ? this.f(value) : t === 'i32' ? this.i(value) : this.u(value);
  }

  /** The uniform declaration, bound at `binding`. */
  decl(binding: number): string {
    const n = Math.max(1, Math.ceil(this.words.length / 4));
    return `struct Params { v: array<vec4<u32>, ${n}> }\n@group(0) @binding(${binding}) var<uniform> prm: Params;`;
  }
}

/** Workgroup size of the one-thread-per-element kernels. */
export const WG = 256;

/** A 2-d grid of `WG`-thread workgroups covering `n` threads (each grid dim stays under 65536). */
export function linearGroups(n: number): [number, number] {
  const groups = Math.ceil(n / WG);
  if (groups <= 65535) return [groups, 1];
  const y = Math.ceil(groups / 65535);
  return [Math.ceil(groups / y), y];
}

/** The entry point header of a one-thread-per-element kernel; `i` is the thread's linear index. */
export const LINEAR_MAIN = `@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * ${WG}u;`;

/** Storage binding declarations: `bindings[k] = [name, elementType, writable]` at binding k. */
export function storageDecls(bindings: readonly (readonly [string, CType, boolean])[]): string {
  return bindings
    .map(
      ([name, t, rw], k) =>
        `@group(0) @binding(${k}) var<storage, ${rw ? 'read_write' : 'read'}> ${name}: array<${t}>;`,
    )
    .join('\n');
}

/** Assembles a shader: helpers (deduplicated), extra code, bindings, parameters, body. */
export function shader(helpers: Iterable<string>, parts: readonly string[]): string {
  return [helperSource(new Set(helpers)), ...parts].filter((p) => p.length > 0).join('\n');
}

// Fused programs of the native CPU engine: a tiled interpreter of the fusion IR
// (src/backend/fusion/program.ts) over the per-ISA elementwise kernels of kernels.inc.
//
// The TypeScript side (src/backends/cpu/native/engine.ts, encodeFusedProgram) encodes a program once
// into an Int32Array of bytecode, its pass schedule included; every call then runs it over the
// iteration space in tiles of a few thousand elements: each instruction is one call of the same
// vectorized loop the unfused op runs (so the values are those of the ops run one by one), into
// tile-sized registers that stay in L1, and only the outputs reach memory.
#pragma once

#include <node_api.h>

#include <cstdint>

namespace burn {

/** The bytecode layout's version (code[0]); a mismatch is refused, so a stale addon declines. */
constexpr int32_t kFusedVersion = 1;

/**
 * fused(code: Int32Array, params: Float64Array, arrays: TypedArray[]): runs the encoded program.
 * params = [rank, innerRank, shape…, per input: offset, strides…, scalars…]; arrays = the inputs'
 * arrays then the outputs' (element outputs numel(shape) values, row outputs one per row). Writes
 * the tuned tile size into code[7] on the first large call.
 */
napi_value FusedProgramCall(napi_env env, napi_callback_info info);

}  // namespace burn

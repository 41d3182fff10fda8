# The native CPU engine of burn-ts (a Node addon over N-API), built by scripts/build-native.mjs.
# The AVX-512 and AVX2 kernels are separate static libraries compiled with their own -m flags;
# everything else is plain x86-64 (or arm64) code, so the addon loads on any CPU of the
# architecture and picks the kernels at run time (src/dispatch.cc).
{
  "target_defaults": {
    "cflags_cc": ["-O3", "-fPIC", "-ffp-contract=off", "-fno-math-errno", "-Wno-psabi", "-Wno-unused-parameter", "-pthread"],
    "cflags_cc!": ["-O2", "-Os"],
    "defines": ["NAPI_VERSION=8"],
  },
  "conditions": [
    ["target_arch=='x64'", {
      "targets": [
        {
          "target_name": "burn_avx512",
          "type": "static_library",
          "sources": ["src/isa_avx512.cc"],
          "cflags_cc": ["-mavx512f", "-mavx512dq", "-mfma"],
        },
        {
          "target_name": "burn_avx2",
          "type": "static_library",
          "sources": ["src/isa_avx2.cc"],
          "cflags_cc": ["-mavx2", "-mfma"],
        },
        {
          "target_name": "burn_native",
          "sources": ["src/addon.cc", "src/conv.cc", "src/dispatch.cc", "src/elementwise.cc", "src/fused_program.cc", "src/isa_generic.cc", "src/pool.cc", "src/scratch.cc"],
          "dependencies": ["burn_avx512", "burn_avx2"],
          "libraries": ["-pthread"],
        },
      ],
    }, {
      "targets": [
        {
          "target_name": "burn_native",
          "sources": ["src/addon.cc", "src/conv.cc", "src/dispatch.cc", "src/elementwise.cc", "src/fused_program.cc", "src/isa_generic.cc", "src/pool.cc", "src/scratch.cc"],
          "libraries": ["-pthread"],
        },
      ],
    }],
  ],
}

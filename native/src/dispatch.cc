// Run-time choice of the kernel table from the CPU's features.
#include <cstdlib>
#include <cstring>

#include "kernels.h"

namespace burn {
namespace {

bool has(const char* isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (std::strcmp(isa, "avx512") == 0) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma");
  if (std::strcmp(isa, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return std::strcmp(isa, "generic") == 0;
}

const Kernels* table_of(const char* isa) {
#if defined(__x86_64__)
  if (std::strcmp(isa, "avx512") == 0) return &kernels_avx512();
  if (std::strcmp(isa, "avx2") == 0) return &kernels_avx2();
#endif
  if (std::strcmp(isa, "generic") == 0) return &kernels_generic();
  return nullptr;
}

const Kernels* best() {
  const char* order[] = {"avx512", "avx2", "generic"};
  const char* limit = std::getenv("BURN_NATIVE_ISA");
  bool allowed = limit == nullptr || *limit == '\0';
  for (const char* isa : order) {
    if (!allowed && std::strcmp(isa, limit) == 0) allowed = true;
    if (allowed && has(isa)) return table_of(isa);
  }
  return &kernels_generic();
}

const Kernels* g_selected = nullptr;

}  // namespace

const Kernels& kernels() {
  if (g_selected == nullptr) g_selected = best();
  return *g_selected;
}

bool select_isa(const char* name) {
  if (!has(name)) return false;
  const Kernels* t = table_of(name);
  if (t == nullptr) return false;
  g_selected = t;
  return true;
}

}  // namespace burn

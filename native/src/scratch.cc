#include <cstdlib>

#include "gemm.h"

namespace burn {
namespace {

struct Slot {
  void* p = nullptr;
  size_t size = 0;
  ~Slot() { std::free(p); }
};

thread_local Slot tl_slots[6];

}  // namespace

void* scratch(int slot, size_t bytes) {
  Slot& s = tl_slots[slot];
  if (bytes > s.size) {
    std::free(s.p);
    size_t size = (bytes + bytes / 4 + 4095) / 4096 * 4096;
    s.p = std::aligned_alloc(64, size);
    if (s.p == nullptr) std::abort();
    s.size = size;
  }
  return s.p;
}

}  // namespace burn

// A persistent thread pool for the native CPU engine: `size()` threads (BURN_NUM_THREADS, default:
// the CPUs this process may run on), the calling thread being thread 0. Work is fork-join: every
// thread of the pool runs the same function with its thread id; kernels split their work by id
// (static ranges, an atomic counter, or a team with barriers). Idle workers spin briefly (so
// back-to-back ops pay no wake-up) and then sleep on a condition variable.
#pragma once

#include <atomic>
#include <cstdint>

namespace burn {

/** What every thread of a parallel region runs: `fn(ctx, tid, nthreads)`. */
using TeamFn = void (*)(void* ctx, int tid, int nthreads);

/** Number of threads parallel regions use (1 when the pool is busy or the caller is a worker). */
int pool_size();

/** Sets the pool size before first use (later calls are ignored once threads exist). */
void pool_configure(int threads);

/**
 * Runs `fn(ctx, tid, n)` on every pool thread and returns when all have finished. Runs
 * `fn(ctx, 0, 1)` inline when the pool has one thread, is already running a region (a nested call
 * or another JS thread), or `serial` is set.
 */
void parallel_run(TeamFn fn, void* ctx, bool serial = false);

/** Calls `f(tid, nthreads)` on every thread of a parallel region (a lambda-friendly wrapper). */
template <class F>
void parallel(F&& f, bool serial = false) {
  parallel_run([](void* c, int tid, int n) { (*static_cast<F*>(c))(tid, n); }, &f, serial);
}

/** `[begin, end)` of part `tid` of `count` items split into `parts` nearly equal, `align`-multiple ranges. */
inline void split_range(int64_t count, int tid, int parts, int64_t align, int64_t* begin, int64_t* end) {
  int64_t units = (count + align - 1) / align;
  int64_t per = units / parts, extra = units % parts;
  int64_t b = tid * per + (tid < extra ? tid : extra);
  int64_t e = b + per + (tid < extra ? 1 : 0);
  *begin = b * align < count ? b * align : count;
  *end = e * align < count ? e * align : count;
}

/** A spinning barrier for the threads of one parallel region. */
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait();

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<int> phase_{0};
};

/** Spins on a pause instruction (then yields) until `done()` is true. */
void spin_until_flag(const std::atomic<int>& flag, int value);

}  // namespace burn

// A persistent thread pool for the native CPU engine: BURN_NUM_THREADS threads (default: the
// CPUs this process may run on), the calling thread being thread 0. Work is fork-join: the threads
// of a region run the same function and claim chunks of the work from an atomic counter, so a
// thread the OS has not scheduled yet never holds the others up. Idle workers spin briefly (so
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
 * Runs `fn(ctx, tid, n)` on the pool's threads and returns when all that took part have finished.
 * A worker that has not woken up by the time the caller has finished its own part is not waited
 * for (a busy machine may not schedule it for a while), so `fn` must claim its work dynamically
 * (see parallel_for). Runs `fn(ctx, 0, 1)` inline when the pool has one thread, is already running
 * a region (a nested call, or another JS thread), or `serial` is set.
 */
void parallel_run(TeamFn fn, void* ctx, bool serial);

/**
 * `f(begin, end, tid)` over [0, count) in chunks of `chunk` items, claimed dynamically by whichever
 * threads are running (the caller alone when the workers are slow to wake).
 */
template <class F>
void parallel_for(int64_t count, int64_t chunk, F&& f, bool serial = false) {
  if (count <= 0) return;
  if (chunk < 1) chunk = 1;
  if (serial || count <= chunk) {
    f(int64_t{0}, count, 0);
    return;
  }
  std::atomic<int64_t> next{0};
  auto body = [&](int tid, int) {
    for (int64_t b; (b = next.fetch_add(chunk, std::memory_order_relaxed)) < count;) f(b, b + chunk < count ? b + chunk : count, tid);
  };
  parallel_run([](void* c, int tid, int n) { (*static_cast<decltype(body)*>(c))(tid, n); }, &body, false);
}

/** A chunk size giving about `per_thread` chunks per pool thread, at least `min_chunk`, a multiple of `align`. */
inline int64_t chunk_for(int64_t count, int64_t min_chunk, int64_t align, int per_thread = 4) {
  const int64_t parts = static_cast<int64_t>(pool_size()) * per_thread;
  int64_t c = (count + parts - 1) / parts;
  if (c < min_chunk) c = min_chunk;
  return (c + align - 1) / align * align;
}

/** Spins on a pause instruction (then yields) until `done()` is true. */
void spin_until_flag(const std::atomic<int>& flag, int value);

}  // namespace burn

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
 * Runs `fn(ctx, tid, n)` on the pool's threads and returns when all that took part have finished.
 * A `team` region runs on every thread at once (its work may be split statically and synchronized
 * with a Barrier). Any other region tolerates absent threads: a worker that has not woken up by
 * the time the caller has finished its part is not waited for, so the region's `fn` must claim its
 * work dynamically (see parallel_for). Runs `fn(ctx, 0, 1)` inline when the pool has one thread,
 * is already running a region (a nested call, or another JS thread), or `serial` is set.
 */
void parallel_run(TeamFn fn, void* ctx, bool serial, bool team);

/** A team region: `f(tid, nthreads)` on every thread at once (a lambda-friendly wrapper). */
template <class F>
void parallel_team(F&& f, bool serial = false) {
  parallel_run([](void* c, int tid, int n) { (*static_cast<F*>(c))(tid, n); }, &f, serial, true);
}

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
  parallel_run([](void* c, int tid, int n) { (*static_cast<decltype(body)*>(c))(tid, n); }, &body, false, false);
}

/** A chunk size giving about `per_thread` chunks per pool thread, at least `min_chunk`, a multiple of `align`. */
inline int64_t chunk_for(int64_t count, int64_t min_chunk, int64_t align, int per_thread = 4) {
  const int64_t parts = static_cast<int64_t>(pool_size()) * per_thread;
  int64_t c = (count + parts - 1) / parts;
  if (c < min_chunk) c = min_chunk;
  return (c + align - 1) / align * align;
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

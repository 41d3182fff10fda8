#include "pool.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BURN_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define BURN_PAUSE() __asm__ __volatile__("yield")
#else
#define BURN_PAUSE() ((void)0)
#endif

namespace burn {
namespace {

thread_local bool tl_in_region = false;

/** How long an idle worker spins before sleeping. */
constexpr auto kSpin = std::chrono::microseconds(200);

int default_threads() {
  const char* env = std::getenv("BURN_NUM_THREADS");
  if (env != nullptr && *env != '\0') {
    long v = std::strtol(env, nullptr, 10);
    if (v >= 1) return v > 1024 ? 1024 : static_cast<int>(v);
  }
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n >= 1) return n;
  }
#endif
  unsigned hc = std::thread::hardware_concurrency();
  return hc >= 1 ? static_cast<int>(hc) : 1;
}

/** The high bits of the job state: the job's generation; bit 31: closed; the low bits: workers that joined. */
constexpr uint64_t kClosed = uint64_t{1} << 31;
constexpr uint64_t kJoinedMask = kClosed - 1;

class Pool {
 public:
  explicit Pool(int size) : size_(size) {
    for (int i = 1; i < size_; i++) std::thread([this, i] { worker(i); }).detach();
  }

  int size() const { return size_; }

  /** Claims the pool for one region; false when another thread holds it. */
  bool try_acquire() {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }

  void run(TeamFn fn, void* ctx) {
    fn_ = fn;
    ctx_ = ctx;
    left_.store(0, std::memory_order_relaxed);
    const uint64_t g = ++job_;
    state_.store((g & 0xffffffffu) << 32, std::memory_order_release);
    gen_.store(g, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      cv_.notify_all();
    }
    tl_in_region = true;
    fn(ctx, 0, size_);
    tl_in_region = false;
    // Close the job: workers that have not joined yet never will; wait for those that did.
    const uint64_t s = state_.fetch_or(kClosed, std::memory_order_acq_rel);
    spin_until_flag(left_, static_cast<int>(s & kJoinedMask));
    busy_.store(false, std::memory_order_release);
  }

 private:
  void worker(int id) {
    tl_in_region = true;
    uint64_t seen = 0;
    for (;;) {
      uint64_t g = gen_.load(std::memory_order_acquire);
      if (g == seen) {
        auto start = std::chrono::steady_clock::now();
        int spins = 0;
        while ((g = gen_.load(std::memory_order_acquire)) == seen) {
          BURN_PAUSE();
          if ((++spins & 255) == 0 && std::chrono::steady_clock::now() - start > kSpin) {
            std::unique_lock<std::mutex> lock(mutex_);
            sleepers_.fetch_add(1, std::memory_order_seq_cst);
            cv_.wait(lock, [&] { return gen_.load(std::memory_order_seq_cst) != seen; });
            sleepers_.fetch_sub(1, std::memory_order_relaxed);
            start = std::chrono::steady_clock::now();
          }
        }
      }
      seen = g;
      // Join job g unless it has moved on or closed.
      uint64_t s = state_.load(std::memory_order_acquire);
      bool joined = false;
      while ((s >> 32) == (g & 0xffffffffu) && (s & kClosed) == 0) {
        if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) {
          joined = true;
          break;
        }
      }
      if (!joined) continue;
      fn_(ctx_, id, size_);
      left_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  const int size_;
  std::atomic<bool> busy_{false};
  uint64_t job_ = 0;
  std::atomic<uint64_t> gen_{0};
  std::atomic<uint64_t> state_{0};
  std::atomic<int> left_{0};
  std::atomic<int> sleepers_{0};
  TeamFn fn_ = nullptr;
  void* ctx_ = nullptr;
  std::mutex mutex_;
  std::condition_variable cv_;
};

int g_configured = 0;
Pool* g_pool = nullptr;
std::once_flag g_once;

Pool* pool() {
  // Never destroyed: detached workers may still be waiting when the process exits.
  std::call_once(g_once, [] { g_pool = new Pool(g_configured >= 1 ? g_configured : default_threads()); });
  return g_pool;
}

}  // namespace

void pool_configure(int threads) {
  if (g_pool == nullptr && threads >= 1) g_configured = threads;
}

int pool_size() {
  if (tl_in_region) return 1;
  return pool()->size();
}

void parallel_run(TeamFn fn, void* ctx, bool serial) {
  Pool* p = serial || tl_in_region ? nullptr : pool();
  if (p == nullptr || p->size() == 1 || !p->try_acquire()) {
    bool outer = tl_in_region;
    tl_in_region = true;
    fn(ctx, 0, 1);
    tl_in_region = outer;
    return;
  }
  p->run(fn, ctx);
}

void spin_until_flag(const std::atomic<int>& flag, int value) {
  int spins = 0;
  while (flag.load(std::memory_order_acquire) != value) {
    if (++spins < 4096) {
      BURN_PAUSE();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace burn

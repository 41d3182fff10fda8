// The tiled interpreter of fused programs (see fused_program.h for the design). Each call: the
// bytecode parsed and checked once per program (a bad program fails the call, it never reads out of
// bounds; the parse and the register plans stay on the code array), then one of
// - flat: an elementwise program in tiles of the whole space (size autotuned on the first large
//   call), split over the pool's threads;
// - row blocks: short rows side by side in one tile, every pass over it, values kept across passes;
// - long rows: each row in tiles, each pass recomputing what it reads; few such rows are split over
//   the threads, partial reductions combined in chunk order;
// - columns: reductions over a dim that is not innermost in memory (bias and gamma gradients):
//   tiles of rows adjacent in memory laid out element-major, reduced per row in element order.
#include "fused_program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "pool.h"

namespace burn {
namespace {

/** Instruction kinds (FUSED_KIND in engine.ts). */
enum Kind : int32_t { kLoad = 0, kScalarI = 1, kUnaryI = 2, kPredicateI = 3, kBinaryI = 4, kCompareI = 5, kWhereI = 6, kCastI = 7, kReduceI = 8 };
/** Value dtypes: the program's float type, or bool (0/1 bytes). */
enum Dt : int32_t { kDtFloat = 0, kDtBool = 1 };
/** Predicates. */
enum Pred : int32_t { kIsNan = 0, kIsInf = 1 };

constexpr int kHeader = 8;
/** Tile sizes the autotune tries (elements), and the one used before it has run. */
constexpr int64_t kTiles[] = {1024, 2048, 4096};
constexpr int64_t kDefaultTile = 2048;
constexpr int64_t kMaxTile = 4096;
/** Elements from which an elementwise program tunes its tile size (on its first such call). */
constexpr int64_t kTuneElements = int64_t{1} << 20;
/** Elements below which a program runs on one thread. */
constexpr int64_t kSerial = int64_t{1} << 14;
/** Bytes of the rows a column-mode block takes side by side (two cache lines). */
constexpr int64_t kColBytes = 128;
/** Column programs with at most this many rows take them all in one block. */
constexpr int64_t kColAll = 1024;
/** Rows shorter than this get their row values spread along them (one kernel call per block). */
constexpr int64_t kShortRow = 64;
/** Output bytes from which outputs are written with non-temporal stores (kStreamBytes of elementwise.cc). */
constexpr int64_t kStreamBytes = 8 << 20;

struct Instr {
  int32_t kind, op, a, b, c, dt, uniform;
};

struct Pass {
  std::vector<int32_t> elem, reduces, stores;
};

/** A parsed program. */
struct Prog {
  int32_t ftype = 0;
  int32_t* tile_slot = nullptr;
  std::vector<int32_t> in_dt, in_level;
  std::vector<Instr> ins;
  std::vector<int32_t> out_val;
  std::vector<std::vector<int32_t>> row_before;
  std::vector<Pass> passes;
  std::vector<int32_t> row_stores;
  bool reduces = false;
};

/** Reads the bytecode; an error message when it is malformed. */
const char* parse(int32_t* code, int64_t len, Prog* p) {
  if (len < kHeader || code[0] != kFusedVersion) return "fused: bytecode of another version (rebuild the addon)";
  p->ftype = code[1];
  const int32_t nin = code[2], nsc = code[3], nins = code[4], nout = code[5], npass = code[6];
  p->tile_slot = code + 7;
  if (p->ftype < 0 || p->ftype > 1 || nin < 0 || nsc < 0 || nins < 1 || nout < 1 || npass < 1 || nin > 4096 || nins > 65536 || npass > 1024) {
    return "fused: bad header";
  }
  int64_t at = kHeader;
  auto take = [&](int32_t* v) {
    if (at >= len) return false;
    *v = code[at++];
    return true;
  };
  for (int32_t i = 0; i < nin; i++) {
    int32_t dt, level;
    if (!take(&dt) || !take(&level) || dt < 0 || dt > 1 || level < 0 || level > 1) return "fused: bad input";
    p->in_dt.push_back(dt);
    p->in_level.push_back(level);
  }
  for (int32_t i = 0; i < nins; i++) {
    Instr x;
    if (!take(&x.kind) || !take(&x.op) || !take(&x.a) || !take(&x.b) || !take(&x.c) || !take(&x.dt) || !take(&x.uniform)) return "fused: truncated";
    if (x.dt < 0 || x.dt > 1) return "fused: bad dtype";
    const auto arg = [&](int32_t v) { return v >= 0 && v < i; };
    switch (x.kind) {
      case kLoad:
        if (x.a < 0 || x.a >= nin || p->in_dt[x.a] != x.dt) return "fused: bad load";
        break;
      case kScalarI:
        if (x.a < 0 || x.a >= nsc || x.dt != kDtFloat) return "fused: bad scalar";
        break;
      case kUnaryI:
        if (!arg(x.a) || x.op < 0 || x.op >= kUnaryCount || x.dt != kDtFloat || p->ins[x.a].dt != kDtFloat) return "fused: bad unary";
        break;
      case kPredicateI:
        if (!arg(x.a) || x.op < 0 || x.op > 1 || x.dt != kDtBool || p->ins[x.a].dt != kDtFloat) return "fused: bad predicate";
        break;
      case kBinaryI:
        if (!arg(x.a) || !arg(x.b) || x.op < 0 || x.op >= kBinaryCount || x.dt != kDtFloat || p->ins[x.a].dt != kDtFloat || p->ins[x.b].dt != kDtFloat) {
          return "fused: bad binary";
        }
        break;
      case kCompareI:
        if (!arg(x.a) || !arg(x.b) || x.op < 0 || x.op >= kCompareCount || x.dt != kDtBool || p->ins[x.a].dt != kDtFloat || p->ins[x.b].dt != kDtFloat) {
          return "fused: bad compare";
        }
        break;
      case kWhereI:
        if (!arg(x.a) || !arg(x.b) || !arg(x.c) || p->ins[x.a].dt != kDtBool || p->ins[x.b].dt != x.dt || p->ins[x.c].dt != x.dt) return "fused: bad where";
        break;
      case kCastI:
        if (!arg(x.a)) return "fused: bad cast";
        break;
      case kReduceI:
        if (!arg(x.a) || x.op < 0 || x.op >= kReduceCount || x.dt != kDtFloat || p->ins[x.a].dt != kDtFloat || p->ins[x.a].uniform) return "fused: bad reduce";
        p->reduces = true;
        break;
      default:
        return "fused: bad instruction";
    }
    p->ins.push_back(x);
  }
  for (int32_t i = 0; i < nout; i++) {
    int32_t v;
    if (!take(&v) || v < 0 || v >= nins) return "fused: bad output";
    p->out_val.push_back(v);
  }
  auto list = [&](std::vector<int32_t>* dst, int32_t limit) {
    int32_t n;
    if (!take(&n) || n < 0 || n > limit) return false;
    for (int32_t j = 0; j < n; j++) {
      int32_t v;
      if (!take(&v) || v < 0 || v >= limit) return false;
      dst->push_back(v);
    }
    return true;
  };
  p->row_before.resize(static_cast<size_t>(npass) + 1);
  p->passes.resize(static_cast<size_t>(npass));
  for (int32_t q = 0; q <= npass; q++) {
    if (!list(&p->row_before[q], nins)) return "fused: bad schedule";
    for (int32_t v : p->row_before[q]) {
      if (!p->ins[v].uniform) return "fused: a row step of an element value";
    }
    if (q == npass) break;
    Pass& pass = p->passes[q];
    if (!list(&pass.elem, nins) || !list(&pass.reduces, nins) || !list(&pass.stores, nout)) return "fused: bad pass";
    for (int32_t v : pass.elem) {
      if (p->ins[v].uniform) return "fused: an element step of a row value";
    }
    for (int32_t v : pass.reduces) {
      if (p->ins[v].kind != kReduceI) return "fused: a reduce step of another instruction";
    }
  }
  if (!list(&p->row_stores, nout)) return "fused: bad row stores";
  // Every value is computed before it is read: row values by the row steps and reduces before,
  // element values earlier in the same pass (each pass recomputes what it reads).
  std::vector<char> row_ok(static_cast<size_t>(nins), 0), el_ok(static_cast<size_t>(nins), 0);
  auto ready = [&](int32_t a) { return a < 0 || (p->ins[a].uniform ? row_ok[a] != 0 : el_ok[a] != 0); };
  auto args_ready = [&](const Instr& x) {
    if (x.kind == kLoad || x.kind == kScalarI) return true;
    const bool two = x.kind == kBinaryI || x.kind == kCompareI || x.kind == kWhereI;
    return ready(x.a) && (!two || ready(x.b)) && (x.kind != kWhereI || ready(x.c));
  };
  for (int32_t q = 0; q <= npass; q++) {
    for (int32_t v : p->row_before[q]) {
      if (!args_ready(p->ins[v]) || p->ins[v].kind == kReduceI) return "fused: a row step reads a value not yet computed";
      row_ok[v] = 1;
    }
    if (q == npass) break;
    std::fill(el_ok.begin(), el_ok.end(), 0);
    const Pass& pass = p->passes[q];
    for (int32_t v : pass.elem) {
      if (!args_ready(p->ins[v]) || p->ins[v].kind == kReduceI) return "fused: an element step reads a value not yet computed";
      el_ok[v] = 1;
    }
    for (int32_t v : pass.reduces) {
      if (!ready(p->ins[v].a)) return "fused: a reduce reads a value not yet computed";
    }
    for (int32_t k : pass.stores) {
      if (!ready(p->out_val[k])) return "fused: a store of a value not yet computed";
    }
    for (int32_t v : pass.reduces) row_ok[v] = 1;
  }
  for (int32_t k : p->row_stores) {
    if (!p->ins[p->out_val[k]].uniform || !row_ok[p->out_val[k]]) return "fused: a row store of a value not yet computed";
  }
  return nullptr;
}

/**
 * Register plan of a program: for each pass, the element instructions it computes, and for every
 * element value its slot (−1: none: it is written straight into output `direct`). A *joint* plan
 * (a block of rows that fits one tile, so every pass walks the same elements) computes each value
 * once and keeps it in its slot for later passes; otherwise each pass recomputes what it needs.
 */
struct Plan {
  std::vector<std::vector<int32_t>> compute;
  /** slot[q][v]: the slot of value v in pass q. */
  std::vector<std::vector<int32_t>> slot;
  std::vector<int32_t> direct;
  int32_t slots = 0;
};

/** The value ids an instruction reads (−1 for none). */
inline void args_of(const Instr& x, int32_t out[3]) {
  out[0] = x.kind == kLoad || x.kind == kScalarI ? -1 : x.a;
  out[1] = x.kind == kBinaryI || x.kind == kCompareI || x.kind == kWhereI ? x.b : -1;
  out[2] = x.kind == kWhereI ? x.c : -1;
}

/** Plans passes [q0, q1) as one sequence: values computed once, slots freed after their last read. */
void plan_range(const Prog& p, size_t q0, size_t q1, bool joint, bool direct, Plan* plan, std::vector<int32_t>& slot) {
  const size_t n = p.ins.size();
  std::vector<char> done(n, 0);
  // Time 2j: the j-th computation; 2j + 1: the reads (reduces, stores) at the end of its pass.
  std::vector<int64_t> last(n, -1);
  std::vector<int32_t> order;
  std::vector<int64_t> at;
  for (size_t q = q0; q < q1; q++) {
    const Pass& pass = p.passes[q];
    for (int32_t v : pass.elem) {
      if (joint && done[v]) continue;
      done[v] = 1;
      int32_t a[3];
      args_of(p.ins[v], a);
      for (int32_t x : a) {
        if (x >= 0) last[x] = std::max<int64_t>(last[x], 2 * static_cast<int64_t>(order.size()));
      }
      order.push_back(v);
      plan->compute[q].push_back(v);
    }
    const int64_t end = 2 * static_cast<int64_t>(order.size()) - 1;
    for (int32_t v : pass.reduces) last[p.ins[v].a] = std::max(last[p.ins[v].a], end);
    for (int32_t k : pass.stores) {
      const int32_t v = p.out_val[k];
      if (p.ins[v].uniform) continue;
      // Written straight into the output when computed (not loads: they may be read in place).
      if (direct && p.ins[v].kind != kLoad && plan->direct[v] < 0) plan->direct[v] = k;
      else last[v] = std::max(last[v], end);
    }
  }
  std::vector<int32_t> live, free_slots;
  for (size_t j = 0; j < order.size(); j++) {
    const int64_t t = 2 * static_cast<int64_t>(j);
    for (size_t i = 0; i < live.size();) {
      if (last[live[i]] < t) {
        free_slots.push_back(slot[live[i]]);
        live[i] = live.back();
        live.pop_back();
      } else {
        i++;
      }
    }
    const int32_t v = order[j];
    if (plan->direct[v] >= 0) continue;
    if (!free_slots.empty()) {
      slot[v] = free_slots.back();
      free_slots.pop_back();
    } else {
      slot[v] = plan->slots++;
    }
    live.push_back(v);
  }
}

Plan make_plan(const Prog& p, bool joint, bool direct = true) {
  Plan plan;
  const size_t n = p.ins.size();
  plan.compute.resize(p.passes.size());
  plan.direct.assign(n, -1);
  if (joint) {
    std::vector<int32_t> slot(n, -1);
    plan_range(p, 0, p.passes.size(), true, direct, &plan, slot);
    plan.slot.assign(p.passes.size(), slot);
    return plan;
  }
  // Separate passes: slots are reused across passes (a pass starts with nothing live).
  int32_t most = 0;
  for (size_t q = 0; q < p.passes.size(); q++) {
    Plan one;
    one.compute.resize(p.passes.size());
    one.direct.assign(n, -1);
    std::vector<int32_t> slot(n, -1);
    plan_range(p, q, q + 1, false, direct, &one, slot);
    plan.compute[q] = one.compute[q];
    plan.slot.push_back(slot);
    for (size_t v = 0; v < n; v++) {
      if (one.direct[v] >= 0) plan.direct[v] = one.direct[v];
    }
    most = std::max(most, one.slots);
  }
  plan.slots = most;
  return plan;
}

/** A parsed program and its register plans (made on first use), kept on the bytecode's array (napi_wrap). */
struct Compiled {
  Prog prog;
  Plan plans[2][2];
  bool planned[2][2] = {{false, false}, {false, false}};

  const Plan& plan(bool joint, bool direct) {
    if (!planned[joint][direct]) {
      plans[joint][direct] = make_plan(prog, joint, direct);
      planned[joint][direct] = true;
    }
    return plans[joint][direct];
  }
};

/** One operand of the iteration space: base array, offset and strides (elements). */
struct Operand {
  const void* data = nullptr;
  int64_t off = 0;
  int64_t strides[kMaxRank] = {0};
  /** Contiguous over the inner dims (of a row program; all dims otherwise), or over the whole space. */
  bool contiguous = false;
  bool all_contiguous = false;
  bool zero = false;
  /** Every row reads the same values (outer strides 0: gamma, beta, a bias along the rows). */
  bool row_invariant = false;
};

/** Copies elements [start, start + n) of the row-major walk of `shape` (strides `st`) from `base`. */
template <class E>
void gather(E* dst, const E* base, int rank, const int64_t* shape, const int64_t* st, int64_t start, int64_t n) {
  if (rank == 0) {
    std::fill_n(dst, n, *base);
    return;
  }
  int64_t idx[kMaxRank];
  int64_t off = 0, rem = start;
  for (int d = rank - 1; d >= 0; d--) {
    idx[d] = rem % shape[d];
    rem /= shape[d];
    off += idx[d] * st[d];
  }
  const int last = rank - 1;
  const int64_t inner = shape[last], is = st[last];
  int64_t done = 0;
  while (done < n) {
    const int64_t run = std::min(inner - idx[last], n - done);
    const E* src = base + off;
    if (is == 1) std::memcpy(dst + done, src, sizeof(E) * run);
    else if (is == 0) std::fill_n(dst + done, run, *src);
    else for (int64_t j = 0; j < run; j++) dst[done + j] = src[j * is];
    done += run;
    off += run * is;
    idx[last] += run;
    if (idx[last] < inner) continue;
    off -= inner * is;
    idx[last] = 0;
    for (int d = last - 1; d >= 0; d--) {
      off += st[d];
      if (++idx[d] < shape[d]) break;
      off -= st[d] * shape[d];
      idx[d] = 0;
    }
  }
}

inline double combine(int op, double acc, double v) {
  switch (op) {
    case kSum: return acc + v;
    case kProd: return acc * v;
    case kRMax: return acc == acc && (v > acc || v != v) ? v : acc;
    default: return acc == acc && (v < acc || v != v) ? v : acc;
  }
}

inline double identity(int op) {
  switch (op) {
    case kSum: return 0.0;
    case kProd: return 1.0;
    case kRMax: return -INFINITY;
    default: return INFINITY;
  }
}

inline bool compare(int op, double x, double y) {
  switch (op) {
    case kEq: return x == y;
    case kNe: return x != y;
    case kGt: return x > y;
    case kGe: return x >= y;
    case kLt: return x < y;
    default: return x <= y;
  }
}

/** Per-thread state: register slots, row values (one per row of the block), accumulators. */
template <class T>
struct Frame {
  std::vector<T> slots;
  std::vector<T> rowT;
  std::vector<uint8_t> rowB;
  std::vector<double> acc;
  std::vector<const void*> vp;
  /** base[j · inputs + i]: the offset of row j of the block in input i. */
  std::vector<int64_t> base;
  int64_t stride = 0;
  /** A tile-sized buffer of row values spread along short rows (or across a column-mode tile). */
  std::vector<T> spread;
  std::vector<uint8_t> spreadB;
  /** Blocks of row-invariant inputs, gathered once per frame (empty until first read). */
  std::vector<std::vector<T>> cachedT;
  std::vector<std::vector<uint8_t>> cachedB;
};

/** One call of a program. */
template <class T>
class Runner {
 public:
  Runner(Compiled& c, int rank, int inner_rank, const int64_t* shape, std::vector<Operand>& in, std::vector<void*>& out, const double* scalars)
      : c_(c), p_(c.prog), k_(ew_of<T>(kernels())), in_(in), out_(out), scalars_(scalars) {
    std::copy(shape, shape + rank, shape_);
    rank_ = rank;
    outer_rank_ = p_.reduces ? rank - inner_rank : 0;
    for (int d = 0; d < outer_rank_; d++) rows_ *= shape_[d];
    for (int d = outer_rank_; d < rank; d++) row_len_ *= shape_[d];
    sub_rank_ = rank - outer_rank_;
    // Column programs (reductions over a dim that is not the innermost in memory: bias and gamma
    // gradients): blocks of rows adjacent in memory, each tile laid out element-major.
    if (p_.reduces && sub_rank_ == 1 && outer_rank_ >= 1) {
      bool any = false, against = false;
      for (size_t i = 0; i < in_.size(); i++) {
        if (p_.in_level[i] != 0) continue;
        const int64_t si = in_[i].strides[rank - 1], so = in_[i].strides[outer_rank_ - 1];
        if (si == 1 && shape_[rank - 1] > 1) against = true;
        if (so == 1 && si != 1 && si != 0) any = true;
      }
      col_ = any && !against && shape_[outer_rank_ - 1] > 1;
    }
    // Outputs far larger than the caches: written with non-temporal stores, as the unfused ops write theirs.
    stream_ = rows_ * row_len_ * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
    for (Operand& o : in_) {
      bool contig = true, zero = true, all = true;
      int64_t expect = 1;
      for (int d = rank - 1; d >= 0; d--) {
        if (shape_[d] != 1 && o.strides[d] != expect) {
          all = false;
          if (d >= outer_rank_) contig = false;
        }
        if (d >= outer_rank_ && shape_[d] != 1 && o.strides[d] != 0) zero = false;
        expect *= shape_[d];
      }
      o.contiguous = contig;
      o.all_contiguous = all;
      o.zero = zero;
      o.row_invariant = true;
      for (int d = 0; d < outer_rank_; d++) {
        if (shape_[d] != 1 && o.strides[d] != 0) o.row_invariant = false;
      }
    }
  }

  /** Runs everything. */
  void run() {
    if (rows_ == 0 || row_len_ == 0) return;
    if (!p_.reduces) run_flat();
    else run_rows();
  }

 private:
  void setup(Frame<T>& f, const Plan& plan, int64_t tile, int64_t block) {
    const size_t n = p_.ins.size();
    f.stride = tile + 16;  // padded: the slots do not all start at the same offset modulo 4 KiB
    f.slots.resize(static_cast<size_t>(std::max<int32_t>(plan.slots, 1)) * static_cast<size_t>(f.stride));
    f.rowT.assign(n * block, T(0));
    f.rowB.assign(n * block, 0);
    f.acc.assign(n * block, 0.0);
    f.vp.assign(n, nullptr);
    f.base.assign(in_.size() * block, 0);
    if (block > 1 && row_len_ < kShortRow) f.spread.resize(static_cast<size_t>(tile));
    f.cachedT.resize(in_.size());
    f.cachedB.resize(in_.size());
    for (auto& c : f.cachedT) c.clear();
    for (auto& c : f.cachedB) c.clear();
  }

  /** This thread's frame for the chunks it runs (kept between calls: no allocation per call). */
  static Frame<T>& chunk_frame() {
    static thread_local Frame<T> frame;
    return frame;
  }

  int64_t tuned_tile() const {
    const int32_t t = *p_.tile_slot;
    for (int64_t c : kTiles) {
      if (c == t) return c;
    }
    return kDefaultTile;
  }

  void run_flat() {
    const int64_t n = row_len_;
    const Plan& plan = c_.plan(false, true);
    int64_t start = 0;
    int64_t tile = std::min(tuned_tile(), n);
    if (*p_.tile_slot == 0 && n >= kTuneElements) {
      // Autotune: each candidate runs 64K elements of this call (twice, alternating); the fastest wins.
      Frame<T> f;
      setup(f, plan, kMaxTile, 1);
      set_bases(f, 0, 1);
      row_steps(f, 0, 0, 1);
      const int64_t seg = 1 << 16;
      double best[3] = {1e300, 1e300, 1e300};
      for (int round = 0; round < 2; round++) {
        for (int c = 0; c < 3; c++) {
          const auto t0 = std::chrono::steady_clock::now();
          for (int64_t s = start; s < start + seg; s += kTiles[c]) tile_pass(f, plan, 0, 0, 1, s, std::min(kTiles[c], start + seg - s));
          best[c] = std::min(best[c], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
          start += seg;
        }
      }
      int win = 0;
      for (int c = 1; c < 3; c++) {
        if (best[c] < best[win]) win = c;
      }
      tile = kTiles[win];
      *p_.tile_slot = static_cast<int32_t>(tile);
    }
    const int64_t rest = n - start;
    const int64_t tiles = (rest + tile - 1) / tile;
    const bool serial = rest < kSerial;
    parallel_for(tiles, serial ? tiles : chunk_for(tiles, 1, 1, 8), [&](int64_t b, int64_t e, int) {
      Frame<T>& f = chunk_frame();
      setup(f, plan, tile, 1);
      set_bases(f, 0, 1);
      row_steps(f, 0, 0, 1);
      for (int64_t t = b; t < e; t++) {
        const int64_t s = start + t * tile;
        tile_pass(f, plan, 0, 0, 1, s, std::min(tile, n - s));
      }
    }, serial);
  }

  void run_rows() {
    if (col_) {
      run_cols();
      return;
    }
    const int64_t target = tuned_tile();
    // Short rows: blocks of whole rows fill one tile, every pass walks it, values persist across passes.
    // Long rows: one row at a time, in tiles, each pass recomputing what it needs.
    const bool joint = row_len_ <= target;
    const int64_t block = joint ? std::max<int64_t>(1, std::min(rows_, target / row_len_)) : 1;
    const int64_t tile = joint ? block * row_len_ : target;
    const Plan& plan = c_.plan(joint, true);
    block_ = block;
    if (!joint && rows_ < 2 * pool_size() && row_len_ >= 8 * tile) {
      run_long_rows(plan, tile);
      return;
    }
    const int64_t blocks = (rows_ + block - 1) / block;
    const bool serial = rows_ * row_len_ < kSerial || blocks == 1;
    parallel_for(blocks, serial ? blocks : chunk_for(blocks, 1, 1, 8), [&](int64_t b, int64_t e, int) {
      Frame<T>& f = chunk_frame();
      setup(f, plan, tile, block);
      for (int64_t bi = b; bi < e; bi++) {
        const int64_t r0 = bi * block;
        const int64_t k = std::min(block, rows_ - r0);
        set_bases(f, r0, k);
        const size_t np = p_.passes.size();
        for (size_t q = 0; q < np; q++) {
          row_steps(f, q, r0, k);
          const Pass& pass = p_.passes[q];
          for (int32_t v : pass.reduces) std::fill_n(&f.acc[v * block_], k, identity(p_.ins[v].op));
          if (joint) {
            tile_pass(f, plan, q, r0, k, 0, k * row_len_);
          } else {
            for (int64_t s = 0; s < row_len_; s += tile) tile_pass(f, plan, q, r0, 1, s, std::min(tile, row_len_ - s));
          }
          for (int32_t v : pass.reduces) {
            for (int64_t j = 0; j < k; j++) f.rowT[v * block_ + j] = static_cast<T>(f.acc[v * block_ + j]);
          }
        }
        row_steps(f, np, r0, k);
        for (int32_t ko : p_.row_stores) {
          const int32_t v = p_.out_val[ko];
          if (p_.ins[v].dt == kDtBool) std::memcpy(static_cast<uint8_t*>(out_[ko]) + r0, &f.rowB[v * block_], k);
          else std::memcpy(static_cast<T*>(out_[ko]) + r0, &f.rowT[v * block_], sizeof(T) * k);
        }
      }
    }, serial);
  }

  /** Column mode: blocks of kColRows rows, tiles of m elements of each (element-major), reductions per row in order. */
  void run_cols() {
    // Blocks of rows adjacent in memory; all of them at once when they fit (a whole memory row per
    // tile line: loads read in place), the elements then split over the threads.
    const int64_t line = kColBytes / static_cast<int64_t>(sizeof(T));
    const int64_t K = rows_ <= kColAll ? rows_ : std::min(rows_, line);
    const int64_t M = std::max<int64_t>(1, tuned_tile() / K);
    const bool joint = M >= row_len_;
    const int64_t m_tile = std::min(M, row_len_);
    const Plan& plan = c_.plan(joint, false);
    block_ = K;
    const int64_t blocks = (rows_ + K - 1) / K;
    const int64_t tiles = (row_len_ + m_tile - 1) / m_tile;
    const bool serial = rows_ * row_len_ < kSerial;
    const size_t np = p_.passes.size();
    auto frame = [&](Frame<T>& f) {
      setup(f, plan, K * m_tile, K);
      f.spread.resize(static_cast<size_t>(K * m_tile));
    };
    auto finish_block = [&](Frame<T>& f, int64_t r0, int64_t k) {
      row_steps(f, np, r0, k);
      for (int32_t ko : p_.row_stores) {
        const int32_t v = p_.out_val[ko];
        if (p_.ins[v].dt == kDtBool) std::memcpy(static_cast<uint8_t*>(out_[ko]) + r0, &f.rowB[v * block_], k);
        else std::memcpy(static_cast<T*>(out_[ko]) + r0, &f.rowT[v * block_], sizeof(T) * k);
      }
    };
    if (blocks >= 2 * pool_size() || serial || tiles < 2) {
      parallel_for(blocks, serial ? blocks : chunk_for(blocks, 1, 1, 4), [&](int64_t b, int64_t e, int) {
        Frame<T>& f = chunk_frame();
        frame(f);
        for (int64_t bi = b; bi < e; bi++) {
          const int64_t r0 = bi * K;
          const int64_t k = std::min(K, rows_ - r0);
          set_bases(f, r0, k);
          for (size_t q = 0; q < np; q++) {
            row_steps(f, q, r0, k);
            const Pass& pass = p_.passes[q];
            for (int32_t v : pass.reduces) std::fill_n(&f.acc[v * block_], k, identity(p_.ins[v].op));
            for (int64_t i0 = 0; i0 < row_len_; i0 += m_tile) tile_pass(f, plan, q, r0, k, i0, std::min(m_tile, row_len_ - i0) * k);
            for (int32_t v : pass.reduces) {
              for (int64_t j = 0; j < k; j++) f.rowT[v * block_ + j] = static_cast<T>(f.acc[v * block_ + j]);
            }
          }
          finish_block(f, r0, k);
        }
      }, serial);
      return;
    }
    // Few blocks: each pass over a block split over the threads in chunks of tiles, the partial
    // reductions combined in chunk order.
    const int64_t chunk = chunk_for(tiles, 1, 1);
    const int64_t nchunks = (tiles + chunk - 1) / chunk;
    Frame<T> main;
    frame(main);
    for (int64_t bi = 0; bi < blocks; bi++) {
      const int64_t r0 = bi * K;
      const int64_t k = std::min(K, rows_ - r0);
      set_bases(main, r0, k);
      for (size_t q = 0; q < np; q++) {
        row_steps(main, q, r0, k);
        const std::vector<int32_t>& reds = p_.passes[q].reduces;
        const size_t nr = reds.size();
        std::vector<double> part(static_cast<size_t>(nchunks * k) * nr, 0.0);
        parallel_for(tiles, chunk, [&](int64_t b, int64_t e, int) {
          Frame<T>& f = chunk_frame();
          frame(f);
          f.rowT = main.rowT;
          f.rowB = main.rowB;
          f.base = main.base;
          for (int32_t v : reds) std::fill_n(&f.acc[v * block_], k, identity(p_.ins[v].op));
          for (int64_t t = b; t < e; t++) tile_pass(f, plan, q, r0, k, t * m_tile, std::min(m_tile, row_len_ - t * m_tile) * k);
          for (size_t i = 0; i < nr; i++) std::memcpy(&part[(static_cast<size_t>(b / chunk) * nr + i) * k], &f.acc[reds[i] * block_], sizeof(double) * k);
        });
        for (size_t i = 0; i < nr; i++) {
          const int op = p_.ins[reds[i]].op;
          for (int64_t j = 0; j < k; j++) {
            double acc = identity(op);
            for (int64_t c = 0; c < nchunks; c++) acc = combine(op, acc, part[(static_cast<size_t>(c) * nr + i) * k + j]);
            main.rowT[reds[i] * block_ + j] = static_cast<T>(acc);
          }
        }
      }
      finish_block(main, r0, k);
    }
  }

  /**
   * Few long rows (a loss over everything): each pass over a row is split over the threads in
   * chunks of tiles; the chunks' partial reductions are combined in chunk order.
   */
  void run_long_rows(const Plan& plan, int64_t tile) {
    Frame<T> main;
    setup(main, plan, tile, 1);
    const int64_t tiles = (row_len_ + tile - 1) / tile;
    const int64_t chunk = chunk_for(tiles, 4, 1);
    const int64_t nchunks = (tiles + chunk - 1) / chunk;
    for (int64_t r = 0; r < rows_; r++) {
      set_bases(main, r, 1);
      const size_t np = p_.passes.size();
      for (size_t q = 0; q < np; q++) {
        row_steps(main, q, r, 1);
        const std::vector<int32_t>& reds = p_.passes[q].reduces;
        const size_t nr = reds.size();
        std::vector<double> part(static_cast<size_t>(nchunks) * nr, 0.0);
        parallel_for(tiles, chunk, [&](int64_t b, int64_t e, int) {
          Frame<T>& f = chunk_frame();
          setup(f, plan, tile, 1);
          f.rowT = main.rowT;
          f.rowB = main.rowB;
          f.base = main.base;
          for (int32_t v : reds) f.acc[v] = identity(p_.ins[v].op);
          for (int64_t t = b; t < e; t++) tile_pass(f, plan, q, r, 1, t * tile, std::min(tile, row_len_ - t * tile));
          for (size_t i = 0; i < nr; i++) part[static_cast<size_t>(b / chunk) * nr + i] = f.acc[reds[i]];
        });
        for (size_t i = 0; i < nr; i++) {
          const int op = p_.ins[reds[i]].op;
          double acc = identity(op);
          for (int64_t c = 0; c < nchunks; c++) acc = combine(op, acc, part[static_cast<size_t>(c) * nr + i]);
          main.rowT[reds[i]] = static_cast<T>(acc);
        }
      }
      row_steps(main, np, r, 1);
      for (int32_t ko : p_.row_stores) {
        const int32_t v = p_.out_val[ko];
        if (p_.ins[v].dt == kDtBool) static_cast<uint8_t*>(out_[ko])[r] = main.rowB[v];
        else static_cast<T*>(out_[ko])[r] = main.rowT[v];
      }
    }
  }

  /** The offsets of rows r0 .. r0 + k in every input. */
  void set_bases(Frame<T>& f, int64_t r0, int64_t k) {
    const size_t ni = in_.size();
    for (int64_t j = 0; j < k; j++) {
      for (size_t i = 0; i < ni; i++) {
        int64_t off = in_[i].off, rem = r0 + j;
        for (int d = outer_rank_ - 1; d >= 0; d--) {
          off += (rem % shape_[d]) * in_[i].strides[d];
          rem /= shape_[d];
        }
        f.base[j * ni + i] = off;
      }
    }
  }

  /** The row-level (uniform) instructions before pass `q` (q = passes: after the last), for rows r0 .. r0 + k. */
  void row_steps(Frame<T>& f, size_t q, int64_t r0, int64_t k) {
    (void)r0;
    const int64_t B = block_;
    const size_t ni = in_.size();
    for (int32_t v : p_.row_before[q]) {
      const Instr& x = p_.ins[v];
      T* r = &f.rowT[v * B];
      uint8_t* rb = &f.rowB[v * B];
      const T* ta = x.a >= 0 && x.a < static_cast<int32_t>(p_.ins.size()) ? &f.rowT[x.a * B] : nullptr;
      const uint8_t* ba = x.a >= 0 && x.a < static_cast<int32_t>(p_.ins.size()) ? &f.rowB[x.a * B] : nullptr;
      switch (x.kind) {
        case kLoad: {
          const Operand& o = in_[x.a];
          for (int64_t j = 0; j < k; j++) {
            const int64_t at = f.base[j * ni + x.a];
            if (x.dt == kDtBool) rb[j] = static_cast<const uint8_t*>(o.data)[at];
            else r[j] = static_cast<const T*>(o.data)[at];
          }
          break;
        }
        case kScalarI: std::fill_n(r, k, static_cast<T>(scalars_[x.a])); break;
        case kUnaryI: k_.unary(x.op, r, ta, k, false); break;
        case kPredicateI:
          for (int64_t j = 0; j < k; j++) rb[j] = x.op == kIsNan ? ta[j] != ta[j] : std::isinf(ta[j]);
          break;
        case kBinaryI:
          if (p_.ins[x.b].kind == kScalarI) k_.binary_scalar(x.op, r, ta, scalars_[p_.ins[x.b].a], k, false);
          else k_.binary(x.op, r, ta, &f.rowT[x.b * B], k, false);
          break;
        case kCompareI:
          for (int64_t j = 0; j < k; j++) rb[j] = compare(x.op, ta[j], f.rowT[x.b * B + j]);
          break;
        case kWhereI:
          for (int64_t j = 0; j < k; j++) {
            if (x.dt == kDtBool) rb[j] = ba[j] ? f.rowB[x.b * B + j] : f.rowB[x.c * B + j];
            else r[j] = ba[j] ? f.rowT[x.b * B + j] : f.rowT[x.c * B + j];
          }
          break;
        case kCastI: {
          const bool from_bool = p_.ins[x.a].dt == kDtBool;
          for (int64_t j = 0; j < k; j++) {
            if (x.dt == kDtBool) rb[j] = from_bool ? ba[j] : ta[j] != T(0);
            else r[j] = from_bool ? T(ba[j] ? 1 : 0) : ta[j];
          }
          break;
        }
        default: break;
      }
    }
  }

  /**
   * Evaluates pass `q` over elements [s, s + n) of the block of rows r0 .. r0 + k (k > 1: whole
   * rows, s = 0; elementwise programs: one row, the whole space).
   */
  void tile_pass(Frame<T>& f, const Plan& plan, size_t q, int64_t r0, int64_t k, int64_t s, int64_t n) {
    const Pass& pass = p_.passes[q];
    const int64_t out_at = r0 * row_len_ + s;
    for (int32_t v : plan.compute[q]) {
      const Instr& x = p_.ins[v];
      void* dst;
      if (plan.direct[v] >= 0) {
        const int32_t ko = plan.direct[v];
        dst = x.dt == kDtBool ? static_cast<void*>(static_cast<uint8_t*>(out_[ko]) + out_at) : static_cast<void*>(static_cast<T*>(out_[ko]) + out_at);
      } else {
        dst = f.slots.data() + static_cast<int64_t>(plan.slot[q][v]) * f.stride;
      }
      f.vp[v] = dst;
      switch (x.kind) {
        case kLoad:
          if (col_) col_load(f, v, x, dst, k, s, n / k);
          else load(f, v, x, dst, r0, k, s, n);
          break;
        case kUnaryI: k_.unary(x.op, static_cast<T*>(dst), elem<T>(f, x.a), n, stream_ && plan.direct[v] >= 0); break;
        case kPredicateI: {
          const T* a = elem<T>(f, x.a);
          uint8_t* o = static_cast<uint8_t*>(dst);
          if (x.op == kIsNan) for (int64_t i = 0; i < n; i++) o[i] = a[i] != a[i];
          else for (int64_t i = 0; i < n; i++) o[i] = std::isinf(a[i]);
          break;
        }
        case kBinaryI: binary(f, x, static_cast<T*>(dst), k, n, stream_ && plan.direct[v] >= 0); break;
        case kCompareI: compare_elems(f, x, static_cast<uint8_t*>(dst), k, n); break;
        case kWhereI: where(f, x, dst, k, n); break;
        case kCastI: cast(f, x, dst, n); break;
        default: break;
      }
    }
    for (int32_t v : pass.reduces) {
      const Instr& x = p_.ins[v];
      const T* a = elem<T>(f, x.a);
      double* acc = &f.acc[v * block_];
      if (col_) {
        // Each row in element order, in double: the order of the unfused strided reduction.
        const int64_t m = n / k;
        for (int64_t i = 0; i < m; i++) {
          const T* at = a + i * k;
          if (x.op == kSum) for (int64_t j = 0; j < k; j++) acc[j] += static_cast<double>(at[j]);
          else for (int64_t j = 0; j < k; j++) acc[j] = combine(x.op, acc[j], static_cast<double>(at[j]));
        }
      } else if (k == 1) acc[0] = combine(x.op, acc[0], k_.reduce(x.op, a, n));
      else for (int64_t j = 0; j < k; j++) acc[j] = combine(x.op, acc[j], k_.reduce(x.op, a + j * row_len_, row_len_));
    }
    for (int32_t ko : pass.stores) {
      const int32_t v = p_.out_val[ko];
      if (plan.direct[v] == ko) continue;
      const Instr& x = p_.ins[v];
      if (col_) {
        // Back to row-major: element i of row j.
        const int64_t m = n / k;
        for (int64_t j = 0; j < k; j++) {
          const int64_t at = (r0 + j) * row_len_ + s;
          if (x.dt == kDtBool) {
            const uint8_t* src = elem<uint8_t>(f, v) + j;
            uint8_t* o = static_cast<uint8_t*>(out_[ko]) + at;
            for (int64_t i = 0; i < m; i++) o[i] = src[i * k];
          } else {
            const T* src = elem<T>(f, v) + j;
            T* o = static_cast<T*>(out_[ko]) + at;
            for (int64_t i = 0; i < m; i++) o[i] = src[i * k];
          }
        }
        continue;
      }
      if (x.dt == kDtBool) {
        uint8_t* o = static_cast<uint8_t*>(out_[ko]) + out_at;
        if (x.uniform) std::fill_n(o, n, f.rowB[v * block_]);
        else std::memcpy(o, f.vp[v], n);
      } else {
        T* o = static_cast<T*>(out_[ko]) + out_at;
        if (x.uniform) std::fill_n(o, n, f.rowT[v * block_]);
        else std::memcpy(o, f.vp[v], sizeof(T) * n);
      }
    }
  }

  template <class E>
  const E* elem(Frame<T>& f, int32_t v) {
    return static_cast<const E*>(f.vp[v]);
  }

  /** Row value `v` of the k rows repeated across a column-mode tile of n = m·k lanes. */
  const T* col_spread(Frame<T>& f, int32_t v, int64_t k, int64_t n) {
    T* bc = f.spread.data();
    std::memcpy(bc, &f.rowT[v * block_], sizeof(T) * k);
    for (int64_t i = k; i < n; i += k) std::memcpy(bc + i, bc, sizeof(T) * k);
    return bc;
  }

  /** Elements [i0, i0 + m) of the k rows into the element-major tile (runs of k adjacent values when rows are). */
  void col_load(Frame<T>& f, int32_t v, const Instr& x, void* dst, int64_t k, int64_t i0, int64_t m) {
    const Operand& o = in_[x.a];
    const size_t ni = in_.size();
    const int64_t si = o.strides[rank_ - 1];
    const int64_t b0 = f.base[x.a];
    bool adjacent = true;  // row j at b0 + j
    for (int64_t j = 1; j < k && adjacent; j++) adjacent = f.base[j * ni + x.a] == b0 + j;
    if (x.dt == kDtBool) {
      const uint8_t* src = static_cast<const uint8_t*>(o.data);
      uint8_t* d = static_cast<uint8_t*>(dst);
      for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < k; j++) d[i * k + j] = src[f.base[j * ni + x.a] + (i0 + i) * si];
      }
      return;
    }
    const T* src = static_cast<const T*>(o.data);
    T* d = static_cast<T*>(dst);
    if (adjacent && si == k) {
      f.vp[v] = src + b0 + i0 * si;  // the tile is a run of memory: read in place
      return;
    }
    if (adjacent) {
      for (int64_t i = 0; i < m; i++) std::memcpy(d + i * k, src + b0 + (i0 + i) * si, sizeof(T) * k);
      return;
    }
    for (int64_t i = 0; i < m; i++) {
      for (int64_t j = 0; j < k; j++) d[i * k + j] = src[f.base[j * ni + x.a] + (i0 + i) * si];
    }
  }

  template <class E>
  void load_one(const Operand& o, E* dst, const void** vp, int64_t base, int64_t s, int64_t n) {
    const E* src = static_cast<const E*>(o.data) + base;
    if (o.contiguous) *vp = src + s;
    else if (o.zero) std::fill_n(dst, n, *src);
    else gather<E>(dst, src, sub_rank_, shape_ + outer_rank_, o.strides + outer_rank_, s, n);
  }

  void load(Frame<T>& f, int32_t v, const Instr& x, void* dst, int64_t r0, int64_t k, int64_t s, int64_t n) {
    const Operand& o = in_[x.a];
    const size_t ni = in_.size();
    const bool b = x.dt == kDtBool;
    if (k > 1 && o.all_contiguous) {
      // Rows of the block consecutive in the input: read in place.
      f.vp[v] = b ? static_cast<const void*>(static_cast<const uint8_t*>(o.data) + o.off + r0 * row_len_)
                  : static_cast<const void*>(static_cast<const T*>(o.data) + o.off + r0 * row_len_);
      return;
    }
    if (k > 1 && o.row_invariant) {
      // The same rows in every block: gathered once (for a whole block) and kept.
      if (b ? f.cachedB[x.a].empty() : f.cachedT[x.a].empty()) {
        const int64_t len = block_ * row_len_;
        if (b) f.cachedB[x.a].resize(static_cast<size_t>(len));
        else f.cachedT[x.a].resize(static_cast<size_t>(len));
        void* buf = b ? static_cast<void*>(f.cachedB[x.a].data()) : static_cast<void*>(f.cachedT[x.a].data());
        const size_t size = b ? 1 : sizeof(T);
        for (int64_t j = 0; j < block_; j++) {
          const void* p = nullptr;
          char* at = static_cast<char*>(buf) + j * row_len_ * size;
          if (b) load_one<uint8_t>(o, reinterpret_cast<uint8_t*>(at), &p, f.base[x.a], 0, row_len_);
          else load_one<T>(o, reinterpret_cast<T*>(at), &p, f.base[x.a], 0, row_len_);
          if (p != nullptr) std::memcpy(at, p, size * row_len_);
        }
      }
      f.vp[v] = b ? static_cast<const void*>(f.cachedB[x.a].data()) : static_cast<const void*>(f.cachedT[x.a].data());
      return;
    }
    for (int64_t j = 0; j < k; j++) {
      const int64_t base = f.base[j * ni + x.a];
      const int64_t m = k == 1 ? n : row_len_;
      const void* p = nullptr;
      if (b) load_one<uint8_t>(o, static_cast<uint8_t*>(dst) + j * row_len_, &p, base, k == 1 ? s : 0, m);
      else load_one<T>(o, static_cast<T*>(dst) + j * row_len_, &p, base, k == 1 ? s : 0, m);
      if (p != nullptr) {
        if (k == 1) {
          f.vp[v] = p;
          return;
        }
        if (b) std::memcpy(static_cast<uint8_t*>(dst) + j * row_len_, p, row_len_);
        else std::memcpy(static_cast<T*>(dst) + j * row_len_, p, sizeof(T) * row_len_);
      }
    }
  }

  void binary(Frame<T>& f, const Instr& x, T* dst, int64_t k, int64_t n, bool stream) {
    const Instr& xa = p_.ins[x.a];
    const Instr& xb = p_.ins[x.b];
    if (!xa.uniform && !xb.uniform) {
      k_.binary(x.op, dst, elem<T>(f, x.a), elem<T>(f, x.b), n, stream);
      return;
    }
    if (!xa.uniform && xb.kind == kScalarI) {
      // A scalar rhs is the op's own double scalar (binaryScalar), as the unfused op.
      k_.binary_scalar(x.op, dst, elem<T>(f, x.a), scalars_[xb.a], n, stream);
      return;
    }
    if (col_) {
      const T* bc = col_spread(f, xa.uniform ? x.a : x.b, k, n);
      k_.binary(x.op, dst, xa.uniform ? bc : elem<T>(f, x.a), xb.uniform ? bc : elem<T>(f, x.b), n, false);
      return;
    }
    if (k > 1 && row_len_ < kShortRow) {
      // Short rows: the row value spread along its rows, then one call (per-row calls would cost more
      // than the work); the same values, the vector ops being lane-wise.
      T* bc = f.spread.data();
      const int32_t u = xa.uniform ? x.a : x.b;
      for (int64_t j = 0; j < k; j++) std::fill_n(bc + j * row_len_, row_len_, f.rowT[u * block_ + j]);
      k_.binary(x.op, dst, xa.uniform ? bc : elem<T>(f, x.a), xb.uniform ? bc : elem<T>(f, x.b), n, false);
      return;
    }
    // A row value against elements, row by row: the calls the strided broadcast of the unfused op makes.
    const int64_t m = k == 1 ? n : row_len_;
    for (int64_t j = 0; j < k; j++) {
      T* o = dst + j * m;
      if (!xa.uniform) {
        k_.binary_scalar(x.op, o, elem<T>(f, x.a) + j * m, static_cast<double>(f.rowT[x.b * block_ + j]), m, false);
      } else if (x.op == kAdd || x.op == kMul || x.op == kMax || x.op == kMin) {
        k_.binary_scalar(x.op, o, elem<T>(f, x.b) + j * m, static_cast<double>(f.rowT[x.a * block_ + j]), m, false);
      } else {
        std::fill_n(o, m, f.rowT[x.a * block_ + j]);
        k_.binary(x.op, o, o, elem<T>(f, x.b) + j * m, m, false);
      }
    }
  }

  void compare_elems(Frame<T>& f, const Instr& x, uint8_t* dst, int64_t k, int64_t n) {
    const bool ua = p_.ins[x.a].uniform, ub = p_.ins[x.b].uniform;
    if (!ua && !ub) {
      const T* a = elem<T>(f, x.a);
      const T* b = elem<T>(f, x.b);
      for (int64_t i = 0; i < n; i++) dst[i] = compare(x.op, a[i], b[i]);
      return;
    }
    if (col_) {
      const T* bc = col_spread(f, ua ? x.a : x.b, k, n);
      const T* a = ua ? bc : elem<T>(f, x.a);
      const T* b = ub ? bc : elem<T>(f, x.b);
      for (int64_t i = 0; i < n; i++) dst[i] = compare(x.op, a[i], b[i]);
      return;
    }
    const int64_t m = k == 1 ? n : row_len_;
    for (int64_t j = 0; j < k; j++) {
      uint8_t* o = dst + j * m;
      if (!ua) {
        k_.compare_scalar(x.op, o, elem<T>(f, x.a) + j * m, static_cast<double>(f.rowT[x.b * block_ + j]), m);
      } else {
        const T av = f.rowT[x.a * block_ + j];
        const T* b = elem<T>(f, x.b) + j * m;
        for (int64_t i = 0; i < m; i++) o[i] = compare(x.op, av, b[i]);
      }
    }
  }

  void where(Frame<T>& f, const Instr& x, void* dst, int64_t k, int64_t n) {
    const bool uc = p_.ins[x.a].uniform, ux = p_.ins[x.b].uniform, uy = p_.ins[x.c].uniform;
    const int64_t B = block_;
    if (col_ && (uc || ux || uy)) {
      // Row values per lane of the element-major tile: elementwise, lane i·k + j takes row j's.
      for (int64_t i = 0; i < n; i++) {
        const int64_t j = i % k;
        const bool c = uc ? f.rowB[x.a * B + j] != 0 : elem<uint8_t>(f, x.a)[i] != 0;
        if (x.dt == kDtBool) {
          const uint8_t a = ux ? f.rowB[x.b * B + j] : elem<uint8_t>(f, x.b)[i];
          const uint8_t b = uy ? f.rowB[x.c * B + j] : elem<uint8_t>(f, x.c)[i];
          static_cast<uint8_t*>(dst)[i] = c ? a : b;
        } else {
          const T a = ux ? f.rowT[x.b * B + j] : elem<T>(f, x.b)[i];
          const T b = uy ? f.rowT[x.c * B + j] : elem<T>(f, x.c)[i];
          static_cast<T*>(dst)[i] = c ? a : b;
        }
      }
      return;
    }
    if (col_) k = 1;  // no row values: one flat run
    const int64_t m = k == 1 ? n : row_len_;
    for (int64_t j = 0; j < k; j++) {
      const int64_t at = j * m;
      if (x.dt == kDtBool) {
        uint8_t* o = static_cast<uint8_t*>(dst) + at;
        const uint8_t* c = uc ? &f.rowB[x.a * B + j] : elem<uint8_t>(f, x.a) + at;
        const uint8_t* a = ux ? &f.rowB[x.b * B + j] : elem<uint8_t>(f, x.b) + at;
        const uint8_t* b = uy ? &f.rowB[x.c * B + j] : elem<uint8_t>(f, x.c) + at;
        const int64_t cs = uc ? 0 : 1, as = ux ? 0 : 1, bs = uy ? 0 : 1;
        for (int64_t i = 0; i < m; i++) o[i] = c[i * cs] ? a[i * as] : b[i * bs];
        continue;
      }
      T* o = static_cast<T*>(dst) + at;
      const T* a = ux ? &f.rowT[x.b * B + j] : elem<T>(f, x.b) + at;
      const T* b = uy ? &f.rowT[x.c * B + j] : elem<T>(f, x.c) + at;
      if (uc) {
        const bool c = f.rowB[x.a * B + j] != 0;
        const T* src = c ? a : b;
        if (c ? ux : uy) std::fill_n(o, m, *src);
        else std::memcpy(o, src, sizeof(T) * m);
        continue;
      }
      k_.select(o, elem<uint8_t>(f, x.a) + at, a, ux ? 0 : 1, b, uy ? 0 : 1, m);
    }
  }

  void cast(Frame<T>& f, const Instr& x, void* dst, int64_t n) {
    const bool from_bool = p_.ins[x.a].dt == kDtBool;
    if (x.dt == kDtBool) {
      uint8_t* o = static_cast<uint8_t*>(dst);
      if (from_bool) std::memcpy(o, f.vp[x.a], n);
      else {
        const T* a = elem<T>(f, x.a);
        for (int64_t i = 0; i < n; i++) o[i] = a[i] != T(0);
      }
    } else {
      T* o = static_cast<T*>(dst);
      if (from_bool) {
        const uint8_t* a = elem<uint8_t>(f, x.a);
        for (int64_t i = 0; i < n; i++) o[i] = a[i] ? T(1) : T(0);
      } else {
        std::memcpy(o, f.vp[x.a], sizeof(T) * n);
      }
    }
  }

  Compiled& c_;
  const Prog& p_;
  const Elementwise<T>& k_;
  int rank_ = 0, outer_rank_ = 0, sub_rank_ = 0;
  int64_t shape_[kMaxRank] = {0};
  int64_t rows_ = 1, row_len_ = 1;
  std::vector<Operand>& in_;
  std::vector<void*>& out_;
  const double* scalars_;
  bool stream_ = false;
  /** Column mode (see the constructor): tiles hold element i of row j at i·k + j. */
  bool col_ = false;
  /** Rows per block (the row values' stride in a frame); the same in every thread of a call. */
  int64_t block_ = 1;
};

napi_value fail(napi_env env, const char* message) {
  napi_throw_error(env, "BURN_NATIVE", message);
  return nullptr;
}

struct TypedArray {
  napi_typedarray_type type = napi_int8_array;
  void* data = nullptr;
  int64_t length = 0;
};

bool typed(napi_env env, napi_value v, TypedArray* out) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  size_t length = 0;
  napi_get_typedarray_info(env, v, &out->type, &length, &out->data, nullptr, nullptr);
  out->length = static_cast<int64_t>(length);
  return true;
}

}  // namespace

napi_value FusedProgramCall(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < 3) return fail(env, "fused: expected (code, params, arrays)");
  TypedArray code, params;
  if (!typed(env, argv[0], &code) || code.type != napi_int32_array) return fail(env, "fused: code must be an Int32Array");
  if (!typed(env, argv[1], &params) || params.type != napi_float64_array) return fail(env, "fused: params must be a Float64Array");
  // The parsed program lives on the code array (parsed once per program, freed with the array).
  Compiled* compiled = nullptr;
  std::unique_ptr<Compiled> once;
  void* wrapped = nullptr;
  if (napi_unwrap(env, argv[0], &wrapped) == napi_ok && wrapped != nullptr) {
    compiled = static_cast<Compiled*>(wrapped);
  } else {
    once.reset(new Compiled());
    if (const char* err = parse(static_cast<int32_t*>(code.data), code.length, &once->prog)) return fail(env, err);
    const napi_finalize del = [](napi_env, void* data, void*) { delete static_cast<Compiled*>(data); };
    if (napi_wrap(env, argv[0], once.get(), del, nullptr, nullptr) == napi_ok) compiled = once.release();
    else compiled = once.get();
  }
  Prog& p = compiled->prog;
  p.tile_slot = static_cast<int32_t*>(code.data) + 7;
  const double* pp = static_cast<const double*>(params.data);
  const int64_t nin = static_cast<int64_t>(p.in_dt.size()), nout = static_cast<int64_t>(p.out_val.size());
  if (params.length < 2) return fail(env, "fused: params too short");
  const int rank = static_cast<int>(pp[0]), inner_rank = static_cast<int>(pp[1]);
  if (rank < 1 || rank > kMaxRank || inner_rank < 0 || inner_rank > rank) return fail(env, "fused: rank must be 1..8");
  const int32_t nsc = static_cast<int32_t*>(code.data)[3];
  if (params.length < 2 + rank + nin * (1 + rank) + nsc) return fail(env, "fused: params too short");
  int64_t shape[kMaxRank];
  int64_t total = 1, rows = 1;
  for (int d = 0; d < rank; d++) {
    const double s = pp[2 + d];
    if (!(s >= 0) || s != std::floor(s)) return fail(env, "fused: bad shape");
    shape[d] = static_cast<int64_t>(s);
    total *= shape[d];
    if (d < rank - inner_rank) rows *= shape[d];
  }
  bool is_array = false;
  napi_is_array(env, argv[2], &is_array);
  uint32_t count = 0;
  if (!is_array || napi_get_array_length(env, argv[2], &count) != napi_ok || count != static_cast<uint32_t>(nin + nout)) {
    return fail(env, "fused: arrays must hold the inputs then the outputs");
  }
  const napi_typedarray_type ft = p.ftype == 0 ? napi_float32_array : napi_float64_array;
  std::vector<Operand> in(static_cast<size_t>(nin));
  const double* q = pp + 2 + rank;
  for (int64_t i = 0; i < nin; i++) {
    napi_value v;
    napi_get_element(env, argv[2], static_cast<uint32_t>(i), &v);
    TypedArray a;
    if (!typed(env, v, &a) || a.type != (p.in_dt[i] == kDtBool ? napi_uint8_array : ft)) return fail(env, "fused: an input array of the wrong type");
    Operand& o = in[i];
    o.data = a.data;
    o.off = static_cast<int64_t>(q[0]);
    int64_t lo = o.off, hi = o.off;
    for (int d = 0; d < rank; d++) {
      o.strides[d] = static_cast<int64_t>(q[1 + d]);
      if (shape[d] == 0) continue;
      const int64_t ext = (shape[d] - 1) * o.strides[d];
      if (ext < 0) lo += ext;
      else hi += ext;
    }
    if (total > 0 && (lo < 0 || hi >= a.length)) return fail(env, "fused: an input out of range");
    q += 1 + rank;
  }
  const double* scalars = q;
  std::vector<void*> out(static_cast<size_t>(nout));
  // Levels of the outputs: row outputs hold one value per row.
  std::vector<bool> row_out(static_cast<size_t>(nout), false);
  for (int32_t k : p.row_stores) row_out[k] = true;
  for (int64_t k = 0; k < nout; k++) {
    napi_value v;
    napi_get_element(env, argv[2], static_cast<uint32_t>(nin + k), &v);
    TypedArray a;
    if (!typed(env, v, &a) || a.type != (p.ins[p.out_val[k]].dt == kDtBool ? napi_uint8_array : ft)) return fail(env, "fused: an output array of the wrong type");
    if (a.length < (row_out[k] ? rows : total)) return fail(env, "fused: an output too small");
    out[k] = a.data;
  }
  if (p.reduces && rows > 0 && total == 0) return fail(env, "fused: a reduction over an empty row");
  if (p.ftype == 0) Runner<float>(*compiled, rank, inner_rank, shape, in, out, scalars).run();
  else Runner<double>(*compiled, rank, inner_rank, shape, in, out, scalars).run();
  return nullptr;
}

}  // namespace burn

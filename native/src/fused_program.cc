// The tiled interpreter of fused programs (see fused_program.h for the design). Each call: parse
// the bytecode (checked: a bad program fails the call, it never reads out of bounds), plan the
// registers of each pass, then run tiles (elementwise programs, split over the pool's threads) or
// rows (row programs: passes over each row, rows split over the threads).
#include "fused_program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
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
  return nullptr;
}

/** Register plan of one pass: each element value's slot (−1: none, it is written to output `direct`). */
struct PassPlan {
  std::vector<int32_t> slot;
  std::vector<int32_t> direct;
  int32_t slots = 0;
};

PassPlan plan_pass(const Prog& p, const Pass& pass) {
  const size_t n = p.ins.size();
  PassPlan plan;
  plan.slot.assign(n, -1);
  plan.direct.assign(n, -1);
  std::vector<int32_t> last(n, -1);
  const int32_t kEnd = 1 << 30;
  for (size_t j = 0; j < pass.elem.size(); j++) {
    const Instr& x = p.ins[pass.elem[j]];
    const int32_t args[3] = {x.kind == kLoad || x.kind == kScalarI ? -1 : x.a, x.kind == kBinaryI || x.kind == kCompareI || x.kind == kWhereI ? x.b : -1, x.kind == kWhereI ? x.c : -1};
    for (int32_t a : args) {
      if (a >= 0) last[a] = static_cast<int32_t>(j);
    }
  }
  // Values stored in this pass: written straight into their output when they are computed (not
  // loads, which may be read in place), else kept until the end of the tile.
  for (int32_t k : pass.stores) {
    const int32_t v = p.out_val[k];
    if (p.ins[v].uniform) continue;
    if (p.ins[v].kind != kLoad && plan.direct[v] < 0) plan.direct[v] = k;
    else last[v] = kEnd;
  }
  std::vector<int32_t> free_slots;
  for (size_t j = 0; j < pass.elem.size(); j++) {
    const int32_t v = pass.elem[j];
    const Instr& x = p.ins[v];
    if (plan.direct[v] < 0) {
      if (!free_slots.empty()) {
        plan.slot[v] = free_slots.back();
        free_slots.pop_back();
      } else {
        plan.slot[v] = plan.slots++;
      }
    }
    // The arguments that die here give their slots back (after the result's slot is taken: no aliasing).
    const int32_t args[3] = {x.kind == kLoad || x.kind == kScalarI ? -1 : x.a, x.kind == kBinaryI || x.kind == kCompareI || x.kind == kWhereI ? x.b : -1, x.kind == kWhereI ? x.c : -1};
    for (int i = 0; i < 3; i++) {
      const int32_t a = args[i];
      if (a < 0 || last[a] != static_cast<int32_t>(j) || plan.slot[a] < 0 || p.ins[a].uniform) continue;
      bool seen = false;
      for (int k = 0; k < i; k++) seen |= args[k] == a;
      if (!seen) free_slots.push_back(plan.slot[a]);
    }
    // A value nobody reads (and not stored) frees its slot at once.
    if (last[v] < 0 && plan.slot[v] >= 0) free_slots.push_back(plan.slot[v]);
  }
  return plan;
}

/** One operand of the iteration space: base array, offset and strides (elements). */
struct Operand {
  const void* data = nullptr;
  int64_t off = 0;
  int64_t strides[kMaxRank] = {0};
  /** Contiguous (or all-zero) over the sub-space a tile walks (all dims, or the inner dims of a row program). */
  bool contiguous = false;
  bool zero = false;
};

/** Copies elements [start, start + n) of the row-major walk of `shape` (strides `st`) from `base`. */
template <class E>
void gather(E* dst, const E* base, int rank, const int64_t* shape, const int64_t* st, int64_t start, int64_t n) {
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

/** Per-thread state: register slots, row values, reduction accumulators. */
template <class T>
struct Frame {
  std::vector<T> slots;
  std::vector<T> rowT;
  std::vector<uint8_t> rowB;
  std::vector<double> acc;
  std::vector<const void*> vp;
};

/** One call of a program. */
template <class T>
class Runner {
 public:
  Runner(const Prog& p, int rank, int inner_rank, const int64_t* shape, std::vector<Operand>& in, std::vector<void*>& out, const double* scalars)
      : p_(p), k_(ew_of<T>(kernels())), rank_(rank), inner_rank_(inner_rank), in_(in), out_(out), scalars_(scalars) {
    std::copy(shape, shape + rank, shape_);
    outer_rank_ = rank - inner_rank;
    rows_ = 1;
    row_len_ = 1;
    for (int d = 0; d < outer_rank_; d++) rows_ *= shape_[d];
    for (int d = outer_rank_; d < rank; d++) row_len_ *= shape_[d];
    if (!p_.reduces) {
      // No rows: the tile walks the whole space.
      outer_rank_ = 0;
      rows_ = 1;
      row_len_ = 1;
      for (int d = 0; d < rank; d++) row_len_ *= shape_[d];
    }
    sub_rank_ = rank - outer_rank_;
    for (Operand& o : in_) {
      bool contig = true, zero = true;
      int64_t expect = 1;
      for (int d = rank - 1; d >= outer_rank_; d--) {
        if (shape_[d] != 1 && o.strides[d] != expect) contig = false;
        if (shape_[d] != 1 && o.strides[d] != 0) zero = false;
        expect *= shape_[d];
      }
      o.contiguous = contig;
      o.zero = zero;
    }
    for (const Pass& pass : p_.passes) plans_.push_back(plan_pass(p_, pass));
    for (const PassPlan& plan : plans_) max_slots_ = std::max(max_slots_, plan.slots);
  }

  /** Runs everything. */
  void run() {
    if (rows_ == 0 || row_len_ == 0) return;
    if (!p_.reduces) run_flat();
    else run_rows();
  }

 private:
  void setup(Frame<T>& f, int64_t tile) {
    const size_t n = p_.ins.size();
    f.slots.resize(static_cast<size_t>(std::max<int32_t>(max_slots_, 1)) * static_cast<size_t>(tile));
    f.rowT.assign(n, T(0));
    f.rowB.assign(n, 0);
    f.acc.assign(n, 0.0);
    f.vp.assign(n, nullptr);
  }

  int64_t tile_size() const {
    const int32_t t = *p_.tile_slot;
    for (int64_t c : kTiles) {
      if (c == t) return c;
    }
    return kDefaultTile;
  }

  void run_flat() {
    const int64_t n = row_len_;
    int64_t start = 0;
    int64_t tile = tile_size();
    if (*p_.tile_slot == 0 && n >= kTuneElements) {
      // Autotune: each candidate runs 64K elements of this call (twice, alternating); the fastest wins.
      Frame<T> f;
      setup(f, kMaxTile);
      row_steps(f, 0, 0);
      const int64_t seg = 1 << 16;
      double best[3] = {1e300, 1e300, 1e300};
      for (int round = 0; round < 2; round++) {
        for (int c = 0; c < 3; c++) {
          const auto t0 = std::chrono::steady_clock::now();
          for (int64_t s = start; s < start + seg; s += kTiles[c]) tile_pass(f, 0, 0, s, std::min(kTiles[c], start + seg - s));
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
      Frame<T> f;
      setup(f, tile);
      row_steps(f, 0, 0);
      for (int64_t t = b; t < e; t++) {
        const int64_t s = start + t * tile;
        tile_pass(f, 0, 0, s, std::min(tile, n - s));
      }
    }, serial);
  }

  void run_rows() {
    const int64_t tile = row_len_ <= 2 * kMaxTile ? row_len_ : kMaxTile;
    const bool serial = rows_ * row_len_ < kSerial || rows_ == 1;
    parallel_for(rows_, serial ? rows_ : chunk_for(rows_, 1, 1, 8), [&](int64_t b, int64_t e, int) {
      Frame<T> f;
      setup(f, tile);
      std::vector<int64_t> base(in_.size());
      for (int64_t r = b; r < e; r++) {
        // Offsets of this row in each input.
        for (size_t i = 0; i < in_.size(); i++) {
          int64_t off = in_[i].off, rem = r;
          for (int d = outer_rank_ - 1; d >= 0; d--) {
            off += (rem % shape_[d]) * in_[i].strides[d];
            rem /= shape_[d];
          }
          base[i] = off;
        }
        row_base_ = base.data();
        const size_t np = p_.passes.size();
        for (size_t q = 0; q < np; q++) {
          row_steps(f, q, r);
          const Pass& pass = p_.passes[q];
          for (int32_t v : pass.reduces) f.acc[v] = identity(p_.ins[v].op);
          for (int64_t s = 0; s < row_len_; s += tile) tile_pass(f, q, r, s, std::min(tile, row_len_ - s));
          for (int32_t v : pass.reduces) f.rowT[v] = static_cast<T>(f.acc[v]);
        }
        row_steps(f, np, r);
        for (int32_t k : p_.row_stores) {
          const int32_t v = p_.out_val[k];
          if (p_.ins[v].dt == kDtBool) static_cast<uint8_t*>(out_[k])[r] = f.rowB[v];
          else static_cast<T*>(out_[k])[r] = f.rowT[v];
        }
      }
    }, serial);
  }

  /** The row-level (uniform) instructions before pass `q` (q = passes: after the last). */
  void row_steps(Frame<T>& f, size_t q, int64_t row) {
    (void)row;
    for (int32_t v : p_.row_before[q]) {
      const Instr& x = p_.ins[v];
      T& r = f.rowT[v];
      uint8_t& rb = f.rowB[v];
      switch (x.kind) {
        case kLoad: {
          const Operand& o = in_[x.a];
          const int64_t at = p_.reduces ? row_base_[x.a] : o.off;
          if (x.dt == kDtBool) rb = static_cast<const uint8_t*>(o.data)[at];
          else r = static_cast<const T*>(o.data)[at];
          break;
        }
        case kScalarI: r = static_cast<T>(scalars_[x.a]); break;
        case kUnaryI: k_.unary(x.op, &r, &f.rowT[x.a], 1, false); break;
        case kPredicateI: {
          const T a = f.rowT[x.a];
          rb = x.op == kIsNan ? a != a : std::isinf(a);
          break;
        }
        case kBinaryI:
          if (p_.ins[x.b].kind == kScalarI) k_.binary_scalar(x.op, &r, &f.rowT[x.a], scalars_[p_.ins[x.b].a], 1, false);
          else k_.binary(x.op, &r, &f.rowT[x.a], &f.rowT[x.b], 1, false);
          break;
        case kCompareI: rb = compare(x.op, f.rowT[x.a], f.rowT[x.b]); break;
        case kWhereI:
          if (x.dt == kDtBool) rb = f.rowB[x.a] ? f.rowB[x.b] : f.rowB[x.c];
          else r = f.rowB[x.a] ? f.rowT[x.b] : f.rowT[x.c];
          break;
        case kCastI: {
          const bool from_bool = p_.ins[x.a].dt == kDtBool;
          if (x.dt == kDtBool) rb = from_bool ? f.rowB[x.a] : f.rowT[x.a] != T(0);
          else r = from_bool ? T(f.rowB[x.a] ? 1 : 0) : f.rowT[x.a];
          break;
        }
        default: break;
      }
    }
  }

  /** Evaluates pass `q` over elements [s, s + n) of row `row` (of the whole space for elementwise programs). */
  void tile_pass(Frame<T>& f, size_t q, int64_t row, int64_t s, int64_t n) {
    const Pass& pass = p_.passes[q];
    const PassPlan& plan = plans_[q];
    const int64_t out_at = row * row_len_ + s;
    const int64_t stride = static_cast<int64_t>(f.slots.size()) / std::max<int32_t>(max_slots_, 1);
    for (int32_t v : pass.elem) {
      const Instr& x = p_.ins[v];
      void* dst;
      if (plan.direct[v] >= 0) {
        const int32_t k = plan.direct[v];
        dst = x.dt == kDtBool ? static_cast<void*>(static_cast<uint8_t*>(out_[k]) + out_at) : static_cast<void*>(static_cast<T*>(out_[k]) + out_at);
      } else {
        dst = f.slots.data() + static_cast<int64_t>(plan.slot[v]) * stride;
      }
      f.vp[v] = dst;
      switch (x.kind) {
        case kLoad: load(f, v, x, dst, s, n); break;
        case kUnaryI: k_.unary(x.op, static_cast<T*>(dst), elem<T>(f, x.a), n, false); break;
        case kPredicateI: {
          const T* a = elem<T>(f, x.a);
          uint8_t* o = static_cast<uint8_t*>(dst);
          if (x.op == kIsNan) for (int64_t i = 0; i < n; i++) o[i] = a[i] != a[i];
          else for (int64_t i = 0; i < n; i++) o[i] = std::isinf(a[i]);
          break;
        }
        case kBinaryI: binary(f, x, static_cast<T*>(dst), n); break;
        case kCompareI: compare_elems(f, x, static_cast<uint8_t*>(dst), n); break;
        case kWhereI: where(f, x, dst, n); break;
        case kCastI: cast(f, x, dst, n); break;
        default: break;
      }
    }
    for (int32_t v : pass.reduces) {
      const Instr& x = p_.ins[v];
      f.acc[v] = combine(x.op, f.acc[v], k_.reduce(x.op, elem<T>(f, x.a), n));
    }
    for (int32_t k : pass.stores) {
      const int32_t v = p_.out_val[k];
      if (plan.direct[v] == k) continue;
      const Instr& x = p_.ins[v];
      if (x.dt == kDtBool) {
        uint8_t* o = static_cast<uint8_t*>(out_[k]) + out_at;
        if (x.uniform) std::fill_n(o, n, f.rowB[v]);
        else std::memcpy(o, f.vp[v], n);
      } else {
        T* o = static_cast<T*>(out_[k]) + out_at;
        if (x.uniform) std::fill_n(o, n, f.rowT[v]);
        else std::memcpy(o, f.vp[v], sizeof(T) * n);
      }
    }
  }

  template <class E>
  const E* elem(Frame<T>& f, int32_t v) {
    return static_cast<const E*>(f.vp[v]);
  }

  void load(Frame<T>& f, int32_t v, const Instr& x, void* dst, int64_t s, int64_t n) {
    const Operand& o = in_[x.a];
    const int64_t base = p_.reduces ? row_base_[x.a] : o.off;
    const int64_t* shape = shape_ + outer_rank_;
    const int64_t* st = o.strides + outer_rank_;
    if (x.dt == kDtBool) {
      const uint8_t* src = static_cast<const uint8_t*>(o.data) + base;
      if (o.contiguous) f.vp[v] = src + s;
      else if (o.zero) std::fill_n(static_cast<uint8_t*>(dst), n, *src);
      else gather<uint8_t>(static_cast<uint8_t*>(dst), src, sub_rank_, shape, st, s, n);
    } else {
      const T* src = static_cast<const T*>(o.data) + base;
      if (o.contiguous) f.vp[v] = src + s;
      else if (o.zero) std::fill_n(static_cast<T*>(dst), n, *src);
      else gather<T>(static_cast<T*>(dst), src, sub_rank_, shape, st, s, n);
    }
  }

  void binary(Frame<T>& f, const Instr& x, T* dst, int64_t n) {
    const Instr& xa = p_.ins[x.a];
    const Instr& xb = p_.ins[x.b];
    if (!xa.uniform && !xb.uniform) {
      k_.binary(x.op, dst, elem<T>(f, x.a), elem<T>(f, x.b), n, false);
    } else if (!xa.uniform) {
      // A scalar rhs is the op's own double scalar (binaryScalar); a row value is broadcast as the strided op does.
      const double sv = xb.kind == kScalarI ? scalars_[xb.a] : static_cast<double>(f.rowT[x.b]);
      k_.binary_scalar(x.op, dst, elem<T>(f, x.a), sv, n, false);
    } else if (x.op == kAdd || x.op == kMul || x.op == kMax || x.op == kMin) {
      k_.binary_scalar(x.op, dst, elem<T>(f, x.b), static_cast<double>(f.rowT[x.a]), n, false);
    } else {
      std::fill_n(dst, n, f.rowT[x.a]);
      k_.binary(x.op, dst, dst, elem<T>(f, x.b), n, false);
    }
  }

  void compare_elems(Frame<T>& f, const Instr& x, uint8_t* dst, int64_t n) {
    const bool ua = p_.ins[x.a].uniform, ub = p_.ins[x.b].uniform;
    if (!ua && !ub) {
      const T* a = elem<T>(f, x.a);
      const T* b = elem<T>(f, x.b);
      for (int64_t i = 0; i < n; i++) dst[i] = compare(x.op, a[i], b[i]);
    } else if (!ua) {
      k_.compare_scalar(x.op, dst, elem<T>(f, x.a), static_cast<double>(f.rowT[x.b]), n);
    } else {
      const T a = f.rowT[x.a];
      const T* b = elem<T>(f, x.b);
      for (int64_t i = 0; i < n; i++) dst[i] = compare(x.op, a, b[i]);
    }
  }

  void where(Frame<T>& f, const Instr& x, void* dst, int64_t n) {
    const bool uc = p_.ins[x.a].uniform, ux = p_.ins[x.b].uniform, uy = p_.ins[x.c].uniform;
    if (x.dt == kDtBool) {
      uint8_t* o = static_cast<uint8_t*>(dst);
      const uint8_t* c = uc ? &f.rowB[x.a] : elem<uint8_t>(f, x.a);
      const uint8_t* a = ux ? &f.rowB[x.b] : elem<uint8_t>(f, x.b);
      const uint8_t* b = uy ? &f.rowB[x.c] : elem<uint8_t>(f, x.c);
      const int64_t cs = uc ? 0 : 1, as = ux ? 0 : 1, bs = uy ? 0 : 1;
      for (int64_t i = 0; i < n; i++) o[i] = c[i * cs] ? a[i * as] : b[i * bs];
      return;
    }
    T* o = static_cast<T*>(dst);
    const T* a = ux ? &f.rowT[x.b] : elem<T>(f, x.b);
    const T* b = uy ? &f.rowT[x.c] : elem<T>(f, x.c);
    if (uc) {
      const bool c = f.rowB[x.a] != 0;
      const T* src = c ? a : b;
      if (c ? ux : uy) std::fill_n(o, n, *src);
      else std::memcpy(o, src, sizeof(T) * n);
      return;
    }
    k_.select(o, elem<uint8_t>(f, x.a), a, ux ? 0 : 1, b, uy ? 0 : 1, n);
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

  const Prog& p_;
  const Elementwise<T>& k_;
  int rank_, inner_rank_, outer_rank_ = 0, sub_rank_ = 0;
  int64_t shape_[kMaxRank] = {0};
  int64_t rows_ = 1, row_len_ = 1;
  std::vector<Operand>& in_;
  std::vector<void*>& out_;
  const double* scalars_;
  std::vector<PassPlan> plans_;
  int32_t max_slots_ = 0;
  /** The current row's offset in each input (row programs; per thread: set before each row). */
  static thread_local const int64_t* row_base_;
};

template <class T>
thread_local const int64_t* Runner<T>::row_base_ = nullptr;

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
  Prog p;
  if (const char* err = parse(static_cast<int32_t*>(code.data), code.length, &p)) return fail(env, err);
  const double* pp = static_cast<const double*>(params.data);
  const int64_t nin = static_cast<int64_t>(p.in_dt.size()), nout = static_cast<int64_t>(p.out_val.size());
  if (params.length < 2) return fail(env, "fused: params too short");
  const int rank = static_cast<int>(pp[0]), inner_rank = static_cast<int>(pp[1]);
  if (rank < 1 || rank > kMaxRank || inner_rank < 0 || inner_rank > rank) return fail(env, "fused: rank must be 1..8");
  const int64_t nscalars = p.ins.empty() ? 0 : 0;
  (void)nscalars;
  int32_t nsc = static_cast<int32_t*>(code.data)[3];
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
  if (p.ftype == 0) Runner<float>(p, rank, inner_rank, shape, in, out, scalars).run();
  else Runner<double>(p, rank, inner_rank, shape, in, out, scalars).run();
  return nullptr;
}

}  // namespace burn

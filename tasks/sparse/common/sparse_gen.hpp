// Shared sparse-matrix generators and host helpers for tasks/sparse/* (header-only, included by the
// task specs as "../common/sparse_gen.hpp"; this folder has no spec.cpp, so CMake does not treat it
// as a task).
//
// Two families, selected by the shape: a shape without a "skew" dimension (or skew = 0) is the
// paper's generator, a shape with skew = 1 is the skewed one.
//  - uniform: every row (CSC: every column) holds the same number of entries, round(1% of the
//    other dimension), at least 1: "nnz evenly spread" as the published generators did.
//  - skewed: the same total nnz, but line lengths follow a power law (Zipf exponent 1.2 over a
//    random ranking of the lines, water-filled against the line capacity), so a few lines are
//    completely dense and the tail is short; about 3% of the lines are empty where the format
//    allows it. This is where load balancing decides sparse kernel performance.
// CSR/CSC have sorted, duplicate-free indices per line. COO (spmv_coo in docs/tasks.md): entries 0..rows-1 hold one
// entry of each row, the rest follow in random order. ELL: row-major rows x width slots, padding
// slots have col = -1 and value 0; padding sits at the row's end for the uniform generator and at
// random slots inside the row for the skewed one.
// Everything is deterministic in the Rng it is given and does not depend on the thread count: a
// few draws of it key counter-based streams (mskb/core/counter_rng.hpp). Line i's indices come from
// its own stream (LineRng(key, i)) and every value from its position (entry_value), so lines are
// filled in parallel, in one pass, straight into the task's buffers (generate_compressed,
// generate_coo and generate_ell with buffer arguments; the struct-returning forms are for tools and
// tests). Each line's indices are a uniformly random subset of its capacity (sample_sorted_distinct).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace mskb::sparse {

constexpr double kDensity = 0.01;           // the paper's 1%
constexpr double kPowerLawAlpha = 1.2;      // Zipf exponent of the skewed line lengths
constexpr double kEmptyFraction = 0.03;     // share of empty lines in skewed CSR/CSC/ELL
constexpr int64_t kEllSkewWidthFactor = 8;  // skewed ELL width = 8x the average row length

// ---- shape conventions -------------------------------------------------------------------------

inline bool is_skewed(const Shape& s) { return s.has("skew") && s["skew"] != 0; }

// A user's matrix (mskb run --matrix FILE.mtx): the shape then holds rows, cols, nnz,
// max_row_nnz, max_col_nnz and matrix = 1 (mskb::matrix_shape), plus the paper's other dims (K).
inline bool is_user_matrix(const Shape& s) { return s.has("matrix") && s["matrix"] != 0; }

// Entries per line of the uniform generator: round(1% of the line capacity), at least 1.
inline int64_t per_line(int64_t minor) {
  const auto n = static_cast<int64_t>(std::llround(kDensity * static_cast<double>(minor)));
  return std::clamp<int64_t>(n, 1, std::max<int64_t>(minor, 1));
}

// Total stored entries of a major x minor matrix (both generators draw exactly this many).
inline int64_t total_nnz(int64_t major, int64_t minor) { return major * per_line(minor); }

// ELL width (max_nnz_per_row) for a matrix with `cols` columns.
inline int64_t ell_width(int64_t cols, bool skew) {
  const int64_t avg = per_line(cols);
  return skew ? std::min<int64_t>(std::max<int64_t>(cols, 1), kEllSkewWidthFactor * avg) : avg;
}

// Stored entries of a row-major (CSR / COO) matrix: rows * per_line(cols) for both generators; a user
// matrix states its own.
inline int64_t rowwise_nnz(const Shape& s) {
  return s.has("nnz") ? std::max<int64_t>(1, s["nnz"]) : total_nnz(s["rows"], s["cols"]);
}

// Stored entries of a CSC matrix: cols * per_line(rows) for both generators; a user matrix states its own.
inline int64_t colwise_nnz(const Shape& s) {
  return s.has("nnz") ? std::max<int64_t>(1, s["nnz"]) : total_nnz(s["cols"], s["rows"]);
}

// Terms summed into one output of a row-major matrix: per_line(cols) (uniform), up to cols (skewed),
// or a user matrix's longest row.
inline int64_t row_terms(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  return is_skewed(s) ? s["cols"] : per_line(s["cols"]);
}

// Terms summed into one output of a CSC matrix: a row collects about nnz / rows entries (binomial, or
// a power law over the columns), a generous bound for the tolerance; a user matrix's longest row.
inline int64_t csc_row_terms(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  const int64_t rows = s["rows"], cols = s["cols"];
  const int64_t mean = (total_nnz(cols, rows) + rows - 1) / rows;
  return std::min<int64_t>(cols, 2 * mean + 32);
}

// ELL width (max_nnz_per_row): the generator's, or a user matrix's longest row (at least 1).
inline int64_t ell_width_of(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  return ell_width(s["cols"], is_skewed(s));
}

// Tolerance for outputs that are sums of up to `max_terms` products of values of magnitude <= 1
// (each term has standard deviation ~0.44, a row sum ~0.5*sqrt(n)). FP32: accumulation-order
// error of any summation order: 1e-5 * 0.5 * sqrt(n) for tree-like orders, plus 3 u n for one
// sequential FP32 accumulator over the row (a thread per row in CSR/ELL, atomics in COO/CSC), which
// errs by 0.13 u n (standard deviation, u = 2^-24) with a heavy tail: 1 in 10^6 rows errs by 1.5 u n.
// (Without the linear term, on the dense rows of the skewed generator, n = 16384 in the large spmm
// shapes, 145 rows x K = 2048 outputs, the expected worst was 0.85 of the tolerance; now 0.27.)
// BF16: one output rounding plus the accumulation of a library that may round partial sums.
inline Tolerance sum_tolerance(int64_t max_terms, Precision p) {
  const double n = static_cast<double>(std::max<int64_t>(max_terms, 1));
  const double s = 0.5 * std::sqrt(n);
  return p == Precision::fp32 ? Tolerance{1e-5 * s + 3.0 * 0x1.0p-24 * n, 1e-5} : Tolerance{4e-3 * s, 1e-2};
}

// ---- random building blocks --------------------------------------------------------------------

// An independent stream per line / chunk: mixes a base draw with the index.
inline Rng sub_rng(uint64_t base, int64_t index) {
  return Rng(base ^ (static_cast<uint64_t>(index) * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL));
}

// A stored entry's or dense operand's value from 64 random bits: magnitude uniform in [0.25, 1)
// (never tiny, so every product is significant and a dropped term is always visible) on a grid of
// 0.75 * 2^-51, from the top 51 bits u as (2^51 + 3u) * 2^-53, an integer below 2^53 scaled by a
// power of two: exact, no rounding and no FMA, the same bits with any compiler flags (converted as a
// signed integer: x86-64 has no plain unsigned 64-bit conversion); the sign from the lowest bit.
inline double value_of_bits(uint64_t bits) {
  const double m = static_cast<double>(static_cast<int64_t>((uint64_t{1} << 51) + 3 * (bits >> 13))) * 0x1.0p-53;
  uint64_t u;  // the sign as a bit, not a branch (a coin flip mispredicts half the time)
  std::memcpy(&u, &m, sizeof u);
  u |= bits << 63;
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// Values as above, from the instance's Rng (one draw each): for code that draws a few at a time.
inline double draw_value(Rng& rng) { return value_of_bits(rng.next()); }

// Element `index` of the value stream `key` (mskb/core/counter_rng.hpp): the generators draw every
// value this way, as a pure function of its position, so values cost one hash each, are written in
// the same pass as their indices, and do not depend on the thread count.
inline double entry_value(uint64_t key, int64_t index) {
  return value_of_bits(counter_bits(key, static_cast<uint64_t>(index)));
}

// Fills `v` with entry_value(key, i), key one draw of `rng`, in parallel.
template <class Vec>
void fill_values(Vec& v, Rng& rng) {
  const uint64_t key = rng.next();
  double* d = v.data();
  parallel_blocks(static_cast<int64_t>(v.size()), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) d[i] = entry_value(key, i);
  });
}

// A cheap random stream for one line (row, column, bucket): counter_bits(key, 0), (key, 1), ...
// split into 32-bit halves. Lines derive their key from one Rng draw and the line's index, so a
// line's draws do not depend on which thread fills it or on the lines before it.
class LineRng {
 public:
  explicit LineRng(uint64_t key) : key_(key) {}
  LineRng(uint64_t base, int64_t index) : key_(counter_bits(base, static_cast<uint64_t>(index))) {}
  uint32_t next32() {
    if (half_) {
      half_ = false;
      return static_cast<uint32_t>(buf_ >> 32);
    }
    buf_ = counter_bits(key_, i_++);
    half_ = true;
    return static_cast<uint32_t>(buf_);
  }
  // Uniform in [0, n), 1 <= n <= 2^32, exactly (Lemire's multiply-shift with rejection).
  uint32_t below(uint64_t n) {
    uint64_t m = static_cast<uint64_t>(next32()) * n;
    if (static_cast<uint32_t>(m) < n) {
      const uint64_t reject = (uint64_t{1} << 32) % n;  // 2^32 mod n low products are biased
      while ((m & 0xffffffffu) < reject) m = static_cast<uint64_t>(next32()) * n;
    }
    return static_cast<uint32_t>(m >> 32);
  }

 private:
  uint64_t key_, i_ = 0, buf_ = 0;
  bool half_ = false;
};

// Scratch of sample_sorted_distinct, one per block of lines (reused across the block's lines).
struct SampleScratch {
  std::vector<uint64_t> bits;  // one bit per position of the line
  std::vector<int32_t> ints;   // drawn positions, for short lines of a wide range
};

// k distinct integers of [0, n), sorted ascending, written to out[0..k): a uniformly random
// k-subset. n <= 2^31 (int32 indices). Three regimes, each uniform over the k-subsets:
//  - k <= n/2 and n <= 512 k: a bitmap of the n positions, filled by uniform draws (a position
//    drawn twice is drawn again: on average fewer than k/2 extra draws), read out in order with
//    count trailing zeros: O(k + n/64), no sort.
//  - k > n/2: the same bitmap, full, with n - k uniformly drawn distinct positions cleared.
//  - k < n/512 (a short line of a wide range, where a bitmap would be mostly empty words):
//    k uniform draws, sorted, duplicates dropped and redrawn until k remain.
template <class Out>
void sample_sorted_distinct(int64_t n, int64_t k, LineRng& rng, SampleScratch& s, Out* out) {
  if (k <= 0) return;
  if (k > n) throw std::logic_error("sample_sorted_distinct: k > n");
  if (n > (int64_t{1} << 31)) throw std::logic_error("sample_sorted_distinct: n exceeds the int32 range");
  if (k == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(i);
    return;
  }
  const auto un = static_cast<uint64_t>(n);
  if (n > 512 * k) {
    s.ints.resize(static_cast<std::size_t>(k));
    int64_t have = 0;
    while (have < k) {
      for (int64_t j = have; j < k; ++j) s.ints[static_cast<std::size_t>(j)] = static_cast<int32_t>(rng.below(un));
      std::sort(s.ints.begin(), s.ints.end());
      have = std::unique(s.ints.begin(), s.ints.end()) - s.ints.begin();
    }
    for (int64_t j = 0; j < k; ++j) out[j] = static_cast<Out>(s.ints[static_cast<std::size_t>(j)]);
    return;
  }
  const int64_t words = (n + 63) / 64;
  if (static_cast<int64_t>(s.bits.size()) < words) s.bits.resize(static_cast<std::size_t>(words));
  uint64_t* b = s.bits.data();
  if (2 * k <= n) {
    std::fill(b, b + words, uint64_t{0});
    for (int64_t got = 0; got < k;) {
      const uint32_t x = rng.below(un);
      const uint64_t bit = uint64_t{1} << (x & 63u), w = b[x >> 6];
      b[x >> 6] = w | bit;
      got += (w & bit) == 0;
    }
  } else {
    std::fill(b, b + words, ~uint64_t{0});
    if ((n & 63) != 0) b[words - 1] = (uint64_t{1} << (n & 63)) - 1;
    for (int64_t gone = 0; gone < n - k;) {
      const uint32_t x = rng.below(un);
      const uint64_t bit = uint64_t{1} << (x & 63u), w = b[x >> 6];
      b[x >> 6] = w & ~bit;
      gone += (w & bit) != 0;
    }
  }
  // Read-out: a loop per set bit would mispredict on almost every word of a 1% line (0, 1 or 2 bits
  // each), so every word writes its 2 lowest positions unconditionally (ctz of x | 2^63 is the
  // lowest set bit, or 63 once x is spent: a harmless value past the count, overwritten next) and
  // advances by the bits it had; a word with more bits finishes in a loop. The slack of 2 makes
  // this write to scratch, then out.
  s.ints.resize(static_cast<std::size_t>(k) + 2);
  int32_t* o = s.ints.data();
  int64_t j = 0;
  constexpr uint64_t kTop = uint64_t{1} << 63;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t x = b[w];
    const auto base = static_cast<int32_t>(w * 64);
    o[j] = base + __builtin_ctzll(x | kTop);
    j += x != 0;
    x &= x - 1;
    o[j] = base + __builtin_ctzll(x | kTop);
    j += x != 0;
    x &= x - 1;
    for (; x != 0; x &= x - 1) o[j++] = base + __builtin_ctzll(x);
  }
  for (int64_t q = 0; q < k; ++q) out[q] = static_cast<Out>(o[q]);
}

// Shuffles v uniformly in place (Fisher-Yates; v.size() <= 2^32), its draws from one draw of `rng`
// (inline draws: a call to Rng per swap was most of the cost on millions of lines).
template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  LineRng g(rng.next());
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[g.below(i)]);
}

// ---- line lengths ------------------------------------------------------------------------------

// Power-law line lengths: `total` entries over `major` lines, each line holding between `min_len`
// and `cap` entries. Lines are ranked at random; rank r gets weight (r+1)^-alpha; lines whose
// share exceeds the cap are filled to the cap and the excess is re-shared among the others
// (water-filling), so the heaviest lines are completely dense. With min_len == 0 the lowest
// `empty_fraction` of the ranks are left empty (when the rest can hold the total). The lengths are
// computed by rank, then shuffled (a uniformly random ranking of the lines); the weights in
// parallel (a pure function of the rank), their suffix sums serially (the same bits on any thread
// count).
inline std::vector<int64_t> powerlaw_lengths(int64_t major, int64_t cap, int64_t total, int64_t min_len, double empty_fraction,
                                             Rng& rng, double alpha = kPowerLawAlpha) {
  if (major <= 0) return {};
  if (min_len > cap || total > major * cap || total < major * min_len)
    throw std::logic_error("powerlaw_lengths: infeasible total " + std::to_string(total));
  int64_t active = major;
  if (min_len == 0 && empty_fraction > 0) {
    const auto empty = static_cast<int64_t>(empty_fraction * static_cast<double>(major));
    const int64_t need = (total + cap - 1) / std::max<int64_t>(cap, 1);  // lines needed to hold the total
    active = std::max<int64_t>({major - empty, need, 1});
  }
  const int64_t room = cap - min_len;  // what a line can take above min_len
  const int64_t rest = total - active * min_len;
  std::vector<double> w(static_cast<std::size_t>(active)), suffix(static_cast<std::size_t>(active) + 1, 0.0);
  parallel_blocks(active, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) w[static_cast<std::size_t>(r)] = std::pow(static_cast<double>(r + 1), -alpha);
  });
  for (int64_t r = active - 1; r >= 0; --r)
    suffix[static_cast<std::size_t>(r)] = suffix[static_cast<std::size_t>(r) + 1] + w[static_cast<std::size_t>(r)];
  // k = number of ranks filled to the cap.
  int64_t k = 0;
  while (k < active) {
    const double t = static_cast<double>(rest - k * room);
    if (t * w[static_cast<std::size_t>(k)] / suffix[static_cast<std::size_t>(k)] <= static_cast<double>(room)) break;
    ++k;
  }
  // add(r), what rank r holds above min_len, lives in len[r] - min_len until the shuffle.
  std::vector<int64_t> len(static_cast<std::size_t>(major), 0);
  const double t = static_cast<double>(rest - k * room);
  parallel_blocks(active, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t a = room;
      if (r >= k) {
        const double share = t * w[static_cast<std::size_t>(r)] / suffix[static_cast<std::size_t>(k)];
        a = std::min<int64_t>(room, static_cast<int64_t>(std::floor(share)));
      }
      len[static_cast<std::size_t>(r)] = min_len + a;
    }
  });
  int64_t given = 0;
  for (int64_t r = 0; r < active; ++r) given += len[static_cast<std::size_t>(r)] - min_len;
  // Rounding remainder: one more entry per line, heaviest uncapped ranks first.
  for (int64_t left = rest - given, r = k; left > 0; r = r + 1 < active ? r + 1 : 0) {
    if (len[static_cast<std::size_t>(r)] - min_len < room) {
      ++len[static_cast<std::size_t>(r)];
      --left;
    }
  }
  shuffle(len, rng);
  return len;
}

// Uniform ELL row lengths: each row holds between ceil(3/4 width) and width entries, one random
// row exactly width (so width is the true maximum).
inline std::vector<int64_t> ell_uniform_lengths(int64_t rows, int64_t width, Rng& rng) {
  std::vector<int64_t> len(static_cast<std::size_t>(rows));
  const int64_t lo = std::max<int64_t>(1, (3 * width + 3) / 4);
  LineRng g(rng.next());
  for (auto& l : len) l = lo + g.below(static_cast<uint64_t>(width - lo + 1));
  if (rows > 0) len[g.below(static_cast<uint64_t>(rows))] = width;
  return len;
}

// ---- compressed (CSR / CSC) --------------------------------------------------------------------

// A compressed sparse matrix along its major dimension: CSR (major = rows) or CSC (major = cols).
struct Compressed {
  int64_t major = 0, minor = 0;
  std::vector<int64_t> offsets;  // major + 1
  std::vector<int32_t> indices;  // per line: sorted, duplicate-free, in [0, minor)
  std::vector<double> values;
  int64_t nnz() const { return offsets.empty() ? 0 : offsets.back(); }
  int64_t line_length(int64_t i) const { return offsets[static_cast<std::size_t>(i) + 1] - offsets[static_cast<std::size_t>(i)]; }
  int64_t max_line() const {
    int64_t m = 0;
    for (int64_t i = 0; i < major; ++i) m = std::max(m, line_length(i));
    return m;
  }
};

// Line lengths of the task generator: uniform (per_line entries per line) or skewed (power law,
// capped at the line capacity). min_len = 1 keeps every line non-empty (COO's row cover); 0 allows
// empty lines.
inline std::vector<int64_t> generated_lengths(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng) {
  if (!skew) return std::vector<int64_t>(static_cast<std::size_t>(std::max<int64_t>(major, 0)), per_line(minor));
  return powerlaw_lengths(major, minor, total_nnz(major, minor), min_len, min_len == 0 ? kEmptyFraction : 0.0, rng);
}

// Offsets (major + 1 entries, from 0) of lines with the given lengths, each checked against the
// line capacity.
inline std::vector<int64_t> line_offsets(int64_t minor, const std::vector<int64_t>& lengths) {
  std::vector<int64_t> off(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0 || lengths[i] > minor) throw std::logic_error("build_compressed: bad line length");
    off[i + 1] = off[i] + lengths[i];
  }
  return off;
}

// Lines of minor-capacity `minor` in blocks of this many, one SampleScratch per block (blocks are
// handed to the threads in contiguous runs; the draws depend on the line only).
constexpr int64_t kLineBlock = 512;

// Draws the indices (a uniformly random sorted subset of the minor positions per line) and the
// values of every line, in parallel: line i's indices from LineRng(index_key, i), entry p's value
// entry_value(value_key, p). The keys are two draws of `rng`. Idx: int32_t (Compressed) or double
// (a task's buffer, written in place).
template <class Idx>
void draw_lines(int64_t minor, const std::vector<int64_t>& offsets, Rng& rng, Idx* indices, double* values) {
  const uint64_t index_key = rng.next(), value_key = rng.next();
  const auto major = static_cast<int64_t>(offsets.size()) - 1;
  parallel_blocks(
      major,
      [&](int64_t lo, int64_t hi) {
        SampleScratch scratch;
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t off = offsets[static_cast<std::size_t>(i)], end = offsets[static_cast<std::size_t>(i) + 1];
          LineRng r(index_key, i);
          sample_sorted_distinct(minor, end - off, r, scratch, indices + off);
          for (int64_t p = off; p < end; ++p) values[p] = entry_value(value_key, p);
        }
      },
      kLineBlock);
}

// Draws the indices (uniform among the minor positions) and values of lines with the given lengths.
inline Compressed build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng) {
  if (static_cast<int64_t>(lengths.size()) != major) throw std::logic_error("build_compressed: lengths size");
  Compressed c;
  c.major = major;
  c.minor = minor;
  c.offsets = line_offsets(minor, lengths);
  c.indices.resize(static_cast<std::size_t>(c.nnz()));
  c.values.resize(static_cast<std::size_t>(c.nnz()));
  draw_lines(minor, c.offsets, rng, c.indices.data(), c.values.data());
  return c;
}

// The same matrix as build_compressed (the same draws of `rng`, the same entries), written straight
// into a task's buffers: values and indices (nnz each) and offsets (major + 1), indices and offsets as
// doubles. The buffers are resized, not reallocated: the harness clears the previous instance's
// buffers and keeps their memory, so a second instance of a shape writes into pages already there
// (building int32 vectors and converting them allocated and faulted in gigabytes per instance).
inline void build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng,
                             HostData& values, HostData& indices, HostData& offsets) {
  if (static_cast<int64_t>(lengths.size()) != major) throw std::logic_error("build_compressed: lengths size");
  const std::vector<int64_t> off = line_offsets(minor, lengths);
  const auto nnz = static_cast<std::size_t>(off.back());
  values.resize(nnz);
  indices.resize(nnz);
  offsets.resize(off.size());
  for (std::size_t i = 0; i < off.size(); ++i) offsets[i] = static_cast<double>(off[i]);
  draw_lines(minor, off, rng, indices.data(), values.data());
}

// The task generator (lengths from generated_lengths).
inline Compressed generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng) {
  const std::vector<int64_t> lengths = generated_lengths(major, minor, skew, min_len, rng);
  return build_compressed(major, minor, lengths, rng);
}

// The same, written into a task's buffers (see build_compressed above).
inline void generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng, HostData& values,
                                HostData& indices, HostData& offsets) {
  const std::vector<int64_t> lengths = generated_lengths(major, minor, skew, min_len, rng);
  build_compressed(major, minor, lengths, rng, values, indices, offsets);
}

// Sorts and merges (sums) duplicate (major, minor) triplets into a Compressed matrix. For
// converting a user's matrix (e.g. Matrix Market) to CSR (pass rows) or CSC (pass columns).
inline Compressed from_triplets(int64_t major, int64_t minor, const std::vector<int64_t>& maj, const std::vector<int64_t>& mnr,
                                const std::vector<double>& val) {
  const std::size_t n = val.size();
  if (maj.size() != n || mnr.size() != n) throw std::invalid_argument("from_triplets: size mismatch");
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t e = 0; e < n; ++e)
    if (maj[e] < 0 || maj[e] >= major || mnr[e] < 0 || mnr[e] >= minor)
      throw std::invalid_argument("from_triplets: index out of range at entry " + std::to_string(e));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return maj[a] != maj[b] ? maj[a] < maj[b] : mnr[a] < mnr[b]; });
  Compressed c;
  c.major = major;
  c.minor = minor;
  c.offsets.assign(static_cast<std::size_t>(major) + 1, 0);
  for (std::size_t q = 0; q < n; ++q) {
    const std::size_t e = order[q];
    if (q > 0 && maj[order[q - 1]] == maj[e] && mnr[order[q - 1]] == mnr[e]) {
      c.values.back() += val[e];
      continue;
    }
    c.indices.push_back(static_cast<int32_t>(mnr[e]));
    c.values.push_back(val[e]);
    ++c.offsets[static_cast<std::size_t>(maj[e]) + 1];
  }
  for (int64_t i = 0; i < major; ++i) c.offsets[static_cast<std::size_t>(i) + 1] += c.offsets[static_cast<std::size_t>(i)];
  return c;
}

// CSR <-> CSC: the same matrix compressed along the other dimension (indices stay sorted).
inline Compressed transpose(const Compressed& a) {
  Compressed t;
  t.major = a.minor;
  t.minor = a.major;
  t.offsets.assign(static_cast<std::size_t>(t.major) + 1, 0);
  for (int32_t j : a.indices) ++t.offsets[static_cast<std::size_t>(j) + 1];
  for (int64_t i = 0; i < t.major; ++i) t.offsets[static_cast<std::size_t>(i) + 1] += t.offsets[static_cast<std::size_t>(i)];
  t.indices.resize(a.indices.size());
  t.values.resize(a.values.size());
  std::vector<int64_t> pos(t.offsets.begin(), t.offsets.end() - 1);
  for (int64_t i = 0; i < a.major; ++i)
    for (int64_t p = a.offsets[static_cast<std::size_t>(i)]; p < a.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
      const int64_t q = pos[static_cast<std::size_t>(a.indices[static_cast<std::size_t>(p)])]++;
      t.indices[static_cast<std::size_t>(q)] = static_cast<int32_t>(i);
      t.values[static_cast<std::size_t>(q)] = a.values[static_cast<std::size_t>(p)];
    }
  return t;
}

// ---- COO ---------------------------------------------------------------------------------------

struct Coo {
  std::vector<int32_t> row, col;
  std::vector<double> val;
};

// The published COO order (spmv_coo in docs/tasks.md): entry i < rows is one (random) entry of row i, the rest follow
// in uniformly random order. Every row of `csr` must be non-empty. The shuffle is cache friendly:
// each remaining entry is scattered to a random bucket of ~1024 slots, then every bucket is
// shuffled (i.i.d. bucket keys + a uniform order inside each bucket = a uniform permutation).
inline Coo coo_cover_then_shuffle(const Compressed& csr, Rng& rng) {
  const int64_t rows = csr.major, nnz = csr.nnz(), rest = nnz - rows;
  Coo c;
  c.row.resize(static_cast<std::size_t>(nnz));
  c.col.resize(static_cast<std::size_t>(nnz));
  c.val.resize(static_cast<std::size_t>(nnz));
  std::vector<int64_t> pick(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t off = csr.offsets[static_cast<std::size_t>(i)], len = csr.line_length(i);
    if (len == 0) throw std::logic_error("coo_cover_then_shuffle: empty row");
    const int64_t p = off + rng.uniform_int(0, len - 1);
    pick[static_cast<std::size_t>(i)] = p;
    c.row[static_cast<std::size_t>(i)] = static_cast<int32_t>(i);
    c.col[static_cast<std::size_t>(i)] = csr.indices[static_cast<std::size_t>(p)];
    c.val[static_cast<std::size_t>(i)] = csr.values[static_cast<std::size_t>(p)];
  }
  if (rest <= 0) return c;
  const int64_t buckets = std::max<int64_t>(1, rest / 1024);
  std::vector<uint32_t> bucket(static_cast<std::size_t>(rest));
  std::vector<int64_t> start(static_cast<std::size_t>(buckets) + 1, 0);
  for (auto& b : bucket) {
    b = static_cast<uint32_t>(rng.uniform_int(0, buckets - 1));
    ++start[static_cast<std::size_t>(b) + 1];
  }
  for (int64_t b = 0; b < buckets; ++b) start[static_cast<std::size_t>(b) + 1] += start[static_cast<std::size_t>(b)];
  std::vector<int64_t> head(start.begin(), start.end() - 1);
  int64_t q = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t p = csr.offsets[static_cast<std::size_t>(i)]; p < csr.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
      if (p == pick[static_cast<std::size_t>(i)]) continue;
      const auto slot = static_cast<std::size_t>(rows + head[bucket[static_cast<std::size_t>(q++)]]++);
      c.row[slot] = static_cast<int32_t>(i);
      c.col[slot] = csr.indices[static_cast<std::size_t>(p)];
      c.val[slot] = csr.values[static_cast<std::size_t>(p)];
    }
  const uint64_t base = rng.next();
  parallel_for(
      buckets,
      [&](int64_t b) {
        Rng r = sub_rng(base, b);
        const int64_t lo = rows + start[static_cast<std::size_t>(b)], hi = rows + start[static_cast<std::size_t>(b) + 1];
        for (int64_t i = hi - 1; i > lo; --i) {
          const auto a = static_cast<std::size_t>(i), z = static_cast<std::size_t>(lo + r.uniform_int(0, i - lo));
          std::swap(c.row[a], c.row[z]);
          std::swap(c.col[a], c.col[z]);
          std::swap(c.val[a], c.val[z]);
        }
      },
      16);
  return c;
}

// Plain row-major COO of a CSR matrix (for user matrices, which may have empty rows).
inline Coo coo_row_major(const Compressed& csr) {
  Coo c;
  for (int64_t i = 0; i < csr.major; ++i)
    for (int64_t p = csr.offsets[static_cast<std::size_t>(i)]; p < csr.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
      c.row.push_back(static_cast<int32_t>(i));
      c.col.push_back(csr.indices[static_cast<std::size_t>(p)]);
      c.val.push_back(csr.values[static_cast<std::size_t>(p)]);
    }
  return c;
}

// The task generator for COO, written straight into a task's buffers (values, row and column
// indices as doubles; nnz each, resized in place as build_compressed's): the matrix of
// generate_compressed(rows, cols, skew, 1) in a random order (the row cover: entry i < rows is a
// uniformly chosen entry of row i; the rest follow in uniformly random order). Values are drawn by
// final position (entry_value), which gives the same distribution as drawing them with the
// indices: they are independent of the structure. Every pass is parallel and deterministic:
//  1. per row (LineRng(index_key, i)): its sorted column subset, then its cover entry; the other
//     entries, packed (row << 32 | col) as 64-bit words, are parked in the column buffer's tail in
//     row order (the buffer is free until step 4; the words are copied bit for bit, never read as
//     doubles);
//  2. each parked entry q gets a bucket of ~16384 entries from counter_bits(bucket_key, q), counted
//     per fixed chunk of q (any i.i.d. bucket choice followed by a uniform shuffle of every bucket
//     is a uniform permutation);
//  3. the entries are scattered to their buckets' slots in the row buffer's tail (chunk by chunk,
//     in q order within a chunk);
//  4. per bucket (LineRng(shuffle_key, b)): a Fisher-Yates shuffle in cache, then the rows, columns
//     and values are written out.
inline void generate_coo(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& row, HostData& col) {
  const std::vector<int64_t> off = line_offsets(cols, generated_lengths(rows, cols, skew, 1, rng));
  const int64_t nnz = off.back(), rest = nnz - rows;
  if (nnz > (int64_t{1} << 31) - 1) throw std::logic_error("generate_coo: nnz exceeds the int32 range");
  const uint64_t index_key = rng.next(), value_key = rng.next(), bucket_key = rng.next(), shuffle_key = rng.next();
  val.resize(static_cast<std::size_t>(nnz));
  row.resize(static_cast<std::size_t>(nnz));
  col.resize(static_cast<std::size_t>(nnz));
  double *v = val.data(), *r = row.data(), *c = col.data();
  double* parked = c + rows;  // step 1's packed entries, in row order
  double* binned = r + rows;  // step 3's packed entries, by bucket
  const auto put = [](double* p, uint64_t bits) { std::memcpy(p, &bits, sizeof bits); };
  const auto get = [](const double* p) {
    uint64_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return bits;
  };
  parallel_blocks(
      rows,
      [&](int64_t lo, int64_t hi) {
        SampleScratch scratch;
        std::vector<int32_t> line;
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t len = off[static_cast<std::size_t>(i) + 1] - off[static_cast<std::size_t>(i)];
          if (len <= 0) throw std::logic_error("generate_coo: empty row");
          line.resize(static_cast<std::size_t>(len));
          LineRng g(index_key, i);
          sample_sorted_distinct(cols, len, g, scratch, line.data());
          const int64_t cover = g.below(static_cast<uint64_t>(len));
          r[i] = static_cast<double>(i);
          c[i] = line[static_cast<std::size_t>(cover)];
          v[i] = entry_value(value_key, i);
          int64_t q = off[static_cast<std::size_t>(i)] - i;
          for (int64_t j = 0; j < len; ++j)
            if (j != cover) put(parked + q++, (static_cast<uint64_t>(i) << 32) | static_cast<uint32_t>(line[static_cast<std::size_t>(j)]));
        }
      },
      kLineBlock);
  if (rest <= 0) return;
  const int64_t buckets = std::max<int64_t>(1, rest >> 14);
  const int64_t chunks = std::min<int64_t>(64, (rest + 65535) / 65536), chunk = (rest + chunks - 1) / chunks;
  const auto bucket_of = [&](int64_t q) {
    return static_cast<int64_t>(((counter_bits(bucket_key, static_cast<uint64_t>(q)) >> 32) * static_cast<uint64_t>(buckets)) >> 32);
  };
  // slot[c * buckets + b]: chunk c's next slot in bucket b (counts first).
  std::vector<int64_t> slot(static_cast<std::size_t>(chunks * buckets), 0), start(static_cast<std::size_t>(buckets) + 1, 0);
  parallel_for(
      chunks,
      [&](int64_t ch) {
        int64_t* count = slot.data() + ch * buckets;
        for (int64_t q = ch * chunk, end = std::min(rest, q + chunk); q < end; ++q) ++count[bucket_of(q)];
      },
      1);
  for (int64_t b = 0, at = 0; b < buckets; ++b) {
    start[static_cast<std::size_t>(b)] = at;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      const int64_t n = slot[static_cast<std::size_t>(ch * buckets + b)];
      slot[static_cast<std::size_t>(ch * buckets + b)] = at;
      at += n;
    }
    start[static_cast<std::size_t>(b) + 1] = at;
  }
  parallel_for(
      chunks,
      [&](int64_t ch) {
        int64_t* next = slot.data() + ch * buckets;
        for (int64_t q = ch * chunk, end = std::min(rest, q + chunk); q < end; ++q) put(binned + next[bucket_of(q)]++, get(parked + q));
      },
      1);
  parallel_for(
      buckets,
      [&](int64_t b) {
        const int64_t lo = start[static_cast<std::size_t>(b)], hi = start[static_cast<std::size_t>(b) + 1];
        LineRng g(shuffle_key, b);
        for (int64_t i = hi - 1; i > lo; --i) {
          const int64_t z = lo + g.below(static_cast<uint64_t>(i - lo + 1));
          const uint64_t a = get(binned + i);
          put(binned + i, get(binned + z));
          put(binned + z, a);
        }
        for (int64_t e = rows + lo; e < rows + hi; ++e) {
          const uint64_t packed = get(r + e);
          r[e] = static_cast<double>(packed >> 32);
          c[e] = static_cast<double>(static_cast<uint32_t>(packed));
          v[e] = entry_value(value_key, e);
        }
      },
      1);
}

// ---- ELL ---------------------------------------------------------------------------------------

struct Ell {
  int64_t rows = 0, width = 0;
  std::vector<int32_t> col;  // rows * width, row-major; -1 = padding
  std::vector<double> val;   // rows * width; 0 in padding slots
};

// Packs a CSR matrix (every row <= width entries) into ELL. scatter_padding = false puts each row's
// entries first and the padding at the end; true spreads the entries over random slots of the row
// (in column order), so padding also sits between entries.
inline Ell ell_from_csr(const Compressed& csr, int64_t width, bool scatter_padding, Rng& rng) {
  Ell e;
  e.rows = csr.major;
  e.width = width;
  e.col.assign(static_cast<std::size_t>(e.rows * width), -1);
  e.val.assign(static_cast<std::size_t>(e.rows * width), 0.0);
  const uint64_t base = rng.next();
  parallel_for(
      e.rows,
      [&](int64_t i) {
        const int64_t off = csr.offsets[static_cast<std::size_t>(i)], len = csr.line_length(i);
        if (len > width) throw std::logic_error("ell_from_csr: row longer than the width");
        std::vector<int32_t> slot(static_cast<std::size_t>(len));
        if (scatter_padding) {
          LineRng r(base, i);
          SampleScratch scratch;
          sample_sorted_distinct(width, len, r, scratch, slot.data());
        } else {
          std::iota(slot.begin(), slot.end(), 0);
        }
        for (int64_t q = 0; q < len; ++q) {
          const auto s = static_cast<std::size_t>(i * width + slot[static_cast<std::size_t>(q)]);
          e.col[s] = csr.indices[static_cast<std::size_t>(off + q)];
          e.val[s] = csr.values[static_cast<std::size_t>(off + q)];
        }
      },
      256);
  return e;
}

// Fills rows x width ELL slots (col: Idx, -1 = padding; val: 0 in padding slots), row i holding
// lengths[i] entries: its columns a uniformly random sorted subset of [0, cols) (LineRng(index_key,
// i)), placed in the row's first slots (scatter = false) or in a uniformly random sorted subset of
// its slots drawn next from the same stream (scatter = true); the entry in slot s of row i has the
// value entry_value(value_key, i * width + s). Every slot is written, in parallel.
template <class Idx>
void draw_ell(int64_t rows, int64_t cols, int64_t width, const std::vector<int64_t>& lengths, bool scatter, Rng& rng, Idx* col,
              double* val) {
  const uint64_t index_key = rng.next(), value_key = rng.next();
  parallel_blocks(
      rows,
      [&](int64_t lo, int64_t hi) {
        SampleScratch scratch;
        std::vector<int32_t> column, slot;
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t len = lengths[static_cast<std::size_t>(i)];
          if (len < 0 || len > width || len > cols) throw std::logic_error("draw_ell: bad row length");
          column.resize(static_cast<std::size_t>(len));
          slot.resize(static_cast<std::size_t>(len));
          LineRng g(index_key, i);
          sample_sorted_distinct(cols, len, g, scratch, column.data());
          if (scatter)
            sample_sorted_distinct(width, len, g, scratch, slot.data());
          else
            std::iota(slot.begin(), slot.end(), 0);
          Idx* c = col + i * width;
          double* v = val + i * width;
          std::fill(c, c + width, static_cast<Idx>(-1));
          std::fill(v, v + width, 0.0);
          for (int64_t q = 0; q < len; ++q) {
            const int64_t s = slot[static_cast<std::size_t>(q)];
            c[s] = static_cast<Idx>(column[static_cast<std::size_t>(q)]);
            v[s] = entry_value(value_key, i * width + s);
          }
        }
      },
      kLineBlock);
}

// Row lengths of the ELL task generator: uniform (3/4 width .. width) or skewed (power law capped at
// the width, total rows * per_line(cols)).
inline std::vector<int64_t> generated_ell_lengths(int64_t rows, int64_t cols, bool skew, Rng& rng) {
  const int64_t width = ell_width(cols, skew);
  return skew ? powerlaw_lengths(rows, width, total_nnz(rows, cols), 0, kEmptyFraction, rng) : ell_uniform_lengths(rows, width, rng);
}

// The task generator for ELL: uniform rows (3/4 width .. width entries, padding at the end) or
// skewed rows (power law capped at the width, total rows * per_line(cols), padding scattered).
inline Ell generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng) {
  Ell e;
  e.rows = rows;
  e.width = ell_width(cols, skew);
  const std::vector<int64_t> lengths = generated_ell_lengths(rows, cols, skew, rng);
  e.col.resize(static_cast<std::size_t>(rows * e.width));
  e.val.resize(static_cast<std::size_t>(rows * e.width));
  draw_ell(rows, cols, e.width, lengths, skew, rng, e.col.data(), e.val.data());
  return e;
}

// The same ELL matrix written straight into a task's buffers (rows * width each, column ids as
// doubles, resized in place as build_compressed's); returns the width.
inline int64_t generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& col) {
  const int64_t width = ell_width(cols, skew);
  const std::vector<int64_t> lengths = generated_ell_lengths(rows, cols, skew, rng);
  val.resize(static_cast<std::size_t>(rows * width));
  col.resize(static_cast<std::size_t>(rows * width));
  draw_ell(rows, cols, width, lengths, skew, rng, col.data(), val.data());
  return width;
}

// ---- user matrices -------------------------------------------------------------------------------

// The CSR a Matrix Market file was read into, as a Compressed matrix.
inline Compressed csr_of(const SparseMatrix& m) {
  Compressed c;
  c.major = m.rows;
  c.minor = m.cols;
  c.offsets = m.offsets;
  c.indices = m.indices;
  c.values = m.values;
  return c;
}

// COO order for a user's matrix: the published one (one entry per row first, the rest shuffled) when no row
// is empty, otherwise every entry in random order.
inline Coo coo_for_user(const Compressed& csr, Rng& rng) {
  bool every_row = true;
  for (int64_t i = 0; i < csr.major; ++i) every_row &= csr.line_length(i) > 0;
  if (every_row) return coo_cover_then_shuffle(csr, rng);
  Coo c = coo_row_major(csr);
  for (int64_t i = static_cast<int64_t>(c.val.size()) - 1; i > 0; --i) {
    const auto a = static_cast<std::size_t>(i), z = static_cast<std::size_t>(rng.uniform_int(0, i));
    std::swap(c.row[a], c.row[z]);
    std::swap(c.col[a], c.col[z]);
    std::swap(c.val[a], c.val[z]);
  }
  return c;
}

// ---- Args helpers and row grouping for references ------------------------------------------------

template <class Int>
HostData as_doubles(const std::vector<Int>& v) {
  HostData d(v.size());
  parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) { d[static_cast<std::size_t>(i)] = static_cast<double>(v[static_cast<std::size_t>(i)]); },
               1 << 16);
  return d;
}

inline int64_t to_i64(double d) { return static_cast<int64_t>(d); }

// Entries grouped by output row, in a fixed order (a stable counting sort): the CPU and GPU FP64
// references both sum each row in this order, so they agree bit for bit.
struct RowGrouped {
  std::vector<int64_t> offsets;  // rows + 1
  std::vector<int32_t> col;
  std::vector<double> val;
};

// From COO-like (row[e], col[e], val[e]) arrays, e in [0, n): entries of a row keep their order.
inline RowGrouped group_coo(int64_t rows, const double* row, const double* col, const double* val, int64_t n) {
  RowGrouped g;
  g.offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (int64_t e = 0; e < n; ++e) ++g.offsets[static_cast<std::size_t>(to_i64(row[e])) + 1];
  for (int64_t i = 0; i < rows; ++i) g.offsets[static_cast<std::size_t>(i) + 1] += g.offsets[static_cast<std::size_t>(i)];
  g.col.resize(static_cast<std::size_t>(n));
  g.val.resize(static_cast<std::size_t>(n));
  std::vector<int64_t> pos(g.offsets.begin(), g.offsets.end() - 1);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t q = pos[static_cast<std::size_t>(to_i64(row[e]))]++;
    g.col[static_cast<std::size_t>(q)] = static_cast<int32_t>(to_i64(col[e]));
    g.val[static_cast<std::size_t>(q)] = val[e];
  }
  return g;
}

// From CSC arrays (col_offsets has columns + 1 entries): a row's entries in column order.
inline RowGrouped group_csc(int64_t rows, int64_t columns, const double* row_indices, const double* col_offsets,
                            const double* val) {
  const int64_t nnz = to_i64(col_offsets[columns]);
  std::vector<double> col(static_cast<std::size_t>(nnz));
  for (int64_t j = 0; j < columns; ++j)
    for (int64_t p = to_i64(col_offsets[j]); p < to_i64(col_offsets[j + 1]); ++p)
      col[static_cast<std::size_t>(p)] = static_cast<double>(j);
  return group_coo(rows, row_indices, col.data(), val, nnz);
}

// From CSR arrays (row_offsets has rows + 1 entries).
inline RowGrouped group_csr(int64_t rows, const double* col_indices, const double* row_offsets, const double* val) {
  RowGrouped g;
  g.offsets.resize(static_cast<std::size_t>(rows) + 1);
  for (int64_t i = 0; i <= rows; ++i) g.offsets[static_cast<std::size_t>(i)] = to_i64(row_offsets[i]);
  const int64_t nnz = g.offsets.back();
  g.col.resize(static_cast<std::size_t>(nnz));
  g.val.assign(val, val + nnz);
  for (int64_t p = 0; p < nnz; ++p) g.col[static_cast<std::size_t>(p)] = static_cast<int32_t>(to_i64(col_indices[p]));
  return g;
}

// From row-major ELL arrays: padding slots (col < 0) are skipped.
inline RowGrouped group_ell(int64_t rows, int64_t width, const double* col_ids, const double* val) {
  RowGrouped g;
  g.offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t s = i * width; s < (i + 1) * width; ++s)
      if (col_ids[s] >= 0) {
        g.col.push_back(static_cast<int32_t>(to_i64(col_ids[s])));
        g.val.push_back(val[s]);
      }
    g.offsets[static_cast<std::size_t>(i) + 1] = static_cast<int64_t>(g.col.size());
  }
  return g;
}

// y[i] = sum over row i of val * x[col] (y is overwritten; accumulate tasks start from zero).
template <class In, class Out>
void spmv_rows(const RowGrouped& g, const In& x, Out& y) {
  const auto rows = static_cast<int64_t>(g.offsets.size()) - 1;
  parallel_for(
      rows,
      [&](int64_t i) {
        double acc = 0.0;
        for (int64_t p = g.offsets[static_cast<std::size_t>(i)]; p < g.offsets[static_cast<std::size_t>(i) + 1]; ++p)
          acc += g.val[static_cast<std::size_t>(p)] * x[static_cast<std::size_t>(g.col[static_cast<std::size_t>(p)])];
        y[static_cast<std::size_t>(i)] = acc;
      },
      4096);
}

// Y[i][k] = sum over row i of val * X[col][k]; X is cols x K and Y rows x K, both row-major.
// Each output is summed in row order (the GPU FP64 reference uses the same order, unfused).
template <class In, class Out>
void spmm_rows(const RowGrouped& g, int64_t K, const In& X, Out& Y) {
  const auto rows = static_cast<int64_t>(g.offsets.size()) - 1;
  parallel_for(
      rows,
      [&](int64_t i) {
        double* y = Y.data() + i * K;
        for (int64_t k = 0; k < K; ++k) y[k] = 0.0;
        for (int64_t p = g.offsets[static_cast<std::size_t>(i)]; p < g.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
          const double v = g.val[static_cast<std::size_t>(p)];
          const double* x = X.data() + static_cast<int64_t>(g.col[static_cast<std::size_t>(p)]) * K;
          for (int64_t k = 0; k < K; ++k) y[k] += v * x[k];
        }
      },
      16);
}

}  // namespace mskb::sparse

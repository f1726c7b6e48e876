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
// Everything is deterministic in the Rng it is given; large matrices are filled in parallel with
// one Rng per line derived from a single draw, so the result does not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

// Values of stored entries and dense operands: magnitude in [0.25, 1), random sign (never tiny,
// so every product is significant and a dropped term is always visible).
inline double draw_value(Rng& rng) {
  const double m = rng.uniform(0.25, 1.0);
  return (rng.next() >> 63) != 0 ? -m : m;
}

// Fills `v` with draw_value, in parallel chunks (deterministic for a given rng state).
inline void fill_values(std::vector<double>& v, Rng& rng) {
  constexpr int64_t kChunk = 1 << 16;
  const uint64_t base = rng.next();
  const auto n = static_cast<int64_t>(v.size());
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  parallel_for(
      chunks,
      [&](int64_t c) {
        Rng r = sub_rng(base, c);
        const int64_t hi = std::min(n, (c + 1) * kChunk);
        for (int64_t i = c * kChunk; i < hi; ++i) v[static_cast<std::size_t>(i)] = draw_value(r);
      },
      1);
}

// k distinct integers of [0, n), sorted ascending, written to out[0..k).
inline void sample_sorted_distinct(int64_t n, int64_t k, Rng& rng, int32_t* out) {
  if (k <= 0) return;
  if (k > n) throw std::logic_error("sample_sorted_distinct: k > n");
  if (k == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(i);
    return;
  }
  if (k * 4 >= n) {  // selection sampling (Knuth's algorithm S): O(n), sorted by construction
    int64_t need = k, j = 0;
    for (int64_t i = 0; i < n && need > 0; ++i) {
      if (rng.uniform_int(0, n - i - 1) < need) {
        out[j++] = static_cast<int32_t>(i);
        --need;
      }
    }
    return;
  }
  std::vector<int32_t> v;
  v.reserve(static_cast<std::size_t>(k));
  while (static_cast<int64_t>(v.size()) < k) {
    while (static_cast<int64_t>(v.size()) < k) v.push_back(static_cast<int32_t>(rng.uniform_int(0, n - 1)));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  std::copy(v.begin(), v.end(), out);
}

// Random permutation of [0, n) (Fisher-Yates).
inline std::vector<int64_t> random_permutation(int64_t n, Rng& rng) {
  std::vector<int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(rng.uniform_int(0, i))]);
  return p;
}

// ---- line lengths ------------------------------------------------------------------------------

// Power-law line lengths: `total` entries over `major` lines, each line holding between `min_len`
// and `cap` entries. Lines are ranked at random; rank r gets weight (r+1)^-alpha; lines whose
// share exceeds the cap are filled to the cap and the excess is re-shared among the others
// (water-filling), so the heaviest lines are completely dense. With min_len == 0 the lowest
// `empty_fraction` of the ranks are left empty (when the rest can hold the total).
inline std::vector<int64_t> powerlaw_lengths(int64_t major, int64_t cap, int64_t total, int64_t min_len, double empty_fraction,
                                             Rng& rng, double alpha = kPowerLawAlpha) {
  if (major <= 0) return {};
  if (min_len > cap || total > major * cap || total < major * min_len)
    throw std::logic_error("powerlaw_lengths: infeasible total " + std::to_string(total));
  const std::vector<int64_t> order = random_permutation(major, rng);
  int64_t active = major;
  if (min_len == 0 && empty_fraction > 0) {
    const auto empty = static_cast<int64_t>(empty_fraction * static_cast<double>(major));
    const int64_t need = (total + cap - 1) / std::max<int64_t>(cap, 1);  // lines needed to hold the total
    active = std::max<int64_t>({major - empty, need, 1});
  }
  const int64_t room = cap - min_len;  // what a line can take above min_len
  const int64_t rest = total - active * min_len;
  std::vector<double> w(static_cast<std::size_t>(active)), suffix(static_cast<std::size_t>(active) + 1, 0.0);
  for (int64_t r = 0; r < active; ++r) w[static_cast<std::size_t>(r)] = std::pow(static_cast<double>(r + 1), -alpha);
  for (int64_t r = active - 1; r >= 0; --r)
    suffix[static_cast<std::size_t>(r)] = suffix[static_cast<std::size_t>(r) + 1] + w[static_cast<std::size_t>(r)];
  // k = number of ranks filled to the cap.
  int64_t k = 0;
  while (k < active) {
    const double t = static_cast<double>(rest - k * room);
    if (t * w[static_cast<std::size_t>(k)] / suffix[static_cast<std::size_t>(k)] <= static_cast<double>(room)) break;
    ++k;
  }
  std::vector<int64_t> add(static_cast<std::size_t>(active), 0);
  int64_t given = 0;
  const double t = static_cast<double>(rest - k * room);
  for (int64_t r = 0; r < active; ++r) {
    int64_t a = room;
    if (r >= k) {
      const double share = t * w[static_cast<std::size_t>(r)] / suffix[static_cast<std::size_t>(k)];
      a = std::min<int64_t>(room, static_cast<int64_t>(std::floor(share)));
    }
    add[static_cast<std::size_t>(r)] = a;
    given += a;
  }
  // Rounding remainder: one more entry per line, heaviest uncapped ranks first.
  for (int64_t left = rest - given, r = k; left > 0; r = r + 1 < active ? r + 1 : 0) {
    if (add[static_cast<std::size_t>(r)] < room) {
      ++add[static_cast<std::size_t>(r)];
      --left;
    }
  }
  std::vector<int64_t> len(static_cast<std::size_t>(major), 0);
  for (int64_t r = 0; r < active; ++r)
    len[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] = min_len + add[static_cast<std::size_t>(r)];
  return len;
}

// Uniform ELL row lengths: each row holds between ceil(3/4 width) and width entries, one random
// row exactly width (so width is the true maximum).
inline std::vector<int64_t> ell_uniform_lengths(int64_t rows, int64_t width, Rng& rng) {
  std::vector<int64_t> len(static_cast<std::size_t>(rows));
  const int64_t lo = std::max<int64_t>(1, (3 * width + 3) / 4);
  for (auto& l : len) l = rng.uniform_int(lo, width);
  if (rows > 0) len[static_cast<std::size_t>(rng.uniform_int(0, rows - 1))] = width;
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

// Draws the indices (uniform among the minor positions) and values of lines with the given lengths.
inline Compressed build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng) {
  Compressed c;
  c.major = major;
  c.minor = minor;
  c.offsets.assign(static_cast<std::size_t>(major) + 1, 0);
  for (int64_t i = 0; i < major; ++i) {
    const int64_t l = lengths[static_cast<std::size_t>(i)];
    if (l < 0 || l > minor) throw std::logic_error("build_compressed: bad line length");
    c.offsets[static_cast<std::size_t>(i) + 1] = c.offsets[static_cast<std::size_t>(i)] + l;
  }
  c.indices.resize(static_cast<std::size_t>(c.nnz()));
  c.values.resize(static_cast<std::size_t>(c.nnz()));
  const uint64_t base = rng.next();
  parallel_for(
      major,
      [&](int64_t i) {
        Rng r = sub_rng(base, i);
        const int64_t off = c.offsets[static_cast<std::size_t>(i)], len = c.line_length(i);
        sample_sorted_distinct(minor, len, r, c.indices.data() + off);
        for (int64_t p = off; p < off + len; ++p) c.values[static_cast<std::size_t>(p)] = draw_value(r);
      },
      256);
  return c;
}

// The task generator: uniform (per_line entries per line) or skewed (power law, capped at the
// line capacity). min_len = 1 keeps every line non-empty (COO's row cover); 0 allows empty lines.
inline Compressed generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng) {
  const int64_t total = total_nnz(major, minor);
  std::vector<int64_t> lengths = skew ? powerlaw_lengths(major, minor, total, min_len, min_len == 0 ? kEmptyFraction : 0.0, rng)
                                      : std::vector<int64_t>(static_cast<std::size_t>(major), per_line(minor));
  return build_compressed(major, minor, lengths, rng);
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
          Rng r = sub_rng(base, i);
          sample_sorted_distinct(width, len, r, slot.data());
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

// The task generator for ELL: uniform rows (3/4 width .. width entries, padding at the end) or
// skewed rows (power law capped at the width, total rows * per_line(cols), padding scattered).
inline Ell generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng) {
  const int64_t width = ell_width(cols, skew);
  const std::vector<int64_t> lengths =
      skew ? powerlaw_lengths(rows, width, total_nnz(rows, cols), 0, kEmptyFraction, rng) : ell_uniform_lengths(rows, width, rng);
  const Compressed csr = build_compressed(rows, cols, lengths, rng);
  return ell_from_csr(csr, width, skew, rng);
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
std::vector<double> as_doubles(const std::vector<Int>& v) {
  std::vector<double> d(v.size());
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
inline void spmv_rows(const RowGrouped& g, const std::vector<double>& x, std::vector<double>& y) {
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
inline void spmm_rows(const RowGrouped& g, int64_t K, const std::vector<double>& X, std::vector<double>& Y) {
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

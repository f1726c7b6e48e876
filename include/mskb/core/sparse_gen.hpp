// Owns the sparse-matrix generators and host helpers of tasks/sparse/* and of task files' [sparse]
// matrices: declarations and the small inline pieces (value draws, LineRng) here, the generators in
// src/mskb/core/sparse_gen.cpp (shapes, line lengths, CSR/CSC) and sparse_formats.cpp (COO, ELL,
// users' matrices, the row grouping of the references).
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

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/task.hpp"
#include "mskb/util/parallel.hpp"

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
int64_t per_line(int64_t minor);

// Total stored entries of a major x minor matrix (both generators draw exactly this many).
int64_t total_nnz(int64_t major, int64_t minor);

// ELL width (max_nnz_per_row) for a matrix with `cols` columns.
int64_t ell_width(int64_t cols, bool skew);

// Stored entries of a row-major (CSR / COO) matrix: rows * per_line(cols) for both generators; a user
// matrix states its own.
int64_t rowwise_nnz(const Shape& s);

// Stored entries of a CSC matrix: cols * per_line(rows) for both generators; a user matrix states its own.
int64_t colwise_nnz(const Shape& s);

// Terms summed into one output of a row-major matrix: per_line(cols) (uniform), up to cols (skewed),
// or a user matrix's longest row.
int64_t row_terms(const Shape& s);

// Terms summed into one output of a CSC matrix: a row collects about nnz / rows entries (binomial, or
// a power law over the columns), a generous bound for the tolerance; a user matrix's longest row.
int64_t csc_row_terms(const Shape& s);

// ELL width (max_nnz_per_row): the generator's, or a user matrix's longest row (at least 1).
int64_t ell_width_of(const Shape& s);

// Tolerance for outputs that are sums of up to `max_terms` products of values of magnitude <= 1
// (each term has standard deviation ~0.44, a row sum ~0.5*sqrt(n)). FP32: accumulation-order
// error of any summation order: 1e-5 * 0.5 * sqrt(n) for tree-like orders, plus 3 u n for one
// sequential FP32 accumulator over the row (a thread per row in CSR/ELL, atomics in COO/CSC), which
// errs by 0.13 u n (standard deviation, u = 2^-24) with a heavy tail: 1 in 10^6 rows errs by 1.5 u n.
// (Without the linear term, on the dense rows of the skewed generator, n = 16384 in the large spmm
// shapes, 145 rows x K = 2048 outputs, the expected worst was 0.85 of the tolerance; now 0.27.)
// BF16: one output rounding plus the accumulation of a library that may round partial sums.
Tolerance sum_tolerance(int64_t max_terms, Precision p);

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
inline double entry_value(uint64_t key, int64_t index) { return value_of_bits(counter_bits(key, static_cast<uint64_t>(index))); }

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
void sample_sorted_distinct(int64_t n, int64_t k, LineRng& rng, SampleScratch& s, Out* out);

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
std::vector<int64_t> powerlaw_lengths(int64_t major, int64_t cap, int64_t total, int64_t min_len, double empty_fraction, Rng& rng,
                                      double alpha = kPowerLawAlpha);

// Uniform ELL row lengths: each row holds between ceil(3/4 width) and width entries, one random
// row exactly width (so width is the true maximum).
std::vector<int64_t> ell_uniform_lengths(int64_t rows, int64_t width, Rng& rng);

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
std::vector<int64_t> generated_lengths(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng);

// Offsets (major + 1 entries, from 0) of lines with the given lengths, each checked against the
// line capacity.
std::vector<int64_t> line_offsets(int64_t minor, const std::vector<int64_t>& lengths);

// Lines of minor-capacity `minor` in blocks of this many, one SampleScratch per block (blocks are
// handed to the threads in contiguous runs; the draws depend on the line only).
constexpr int64_t kLineBlock = 512;

// Draws the indices (uniform among the minor positions) and values of lines with the given lengths.
Compressed build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng);

// The same matrix as build_compressed (the same draws of `rng`, the same entries), written straight
// into a task's buffers: values and indices (nnz each) and offsets (major + 1), indices and offsets as
// doubles. The buffers are resized, not reallocated: the harness clears the previous instance's
// buffers and keeps their memory, so a second instance of a shape writes into pages already there
// (building int32 vectors and converting them allocated and faulted in gigabytes per instance).
void build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng, HostData& values,
                      HostData& indices, HostData& offsets);

// The task generator (lengths from generated_lengths).
Compressed generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng);

// The same, written into a task's buffers (see build_compressed above).
void generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng, HostData& values, HostData& indices,
                         HostData& offsets);

// Sorts and merges (sums) duplicate (major, minor) triplets into a Compressed matrix. For
// converting a user's matrix (e.g. Matrix Market) to CSR (pass rows) or CSC (pass columns).
Compressed from_triplets(int64_t major, int64_t minor, const std::vector<int64_t>& maj, const std::vector<int64_t>& mnr,
                         const std::vector<double>& val);

// CSR <-> CSC: the same matrix compressed along the other dimension (indices stay sorted).
Compressed transpose(const Compressed& a);

// ---- COO ---------------------------------------------------------------------------------------

struct Coo {
  std::vector<int32_t> row, col;
  std::vector<double> val;
};

// The published COO order (spmv_coo in docs/tasks.md): entry i < rows is one (random) entry of row i, the rest follow
// in uniformly random order. Every row of `csr` must be non-empty. The shuffle is cache friendly:
// each remaining entry is scattered to a random bucket of ~1024 slots, then every bucket is
// shuffled (i.i.d. bucket keys + a uniform order inside each bucket = a uniform permutation).
Coo coo_cover_then_shuffle(const Compressed& csr, Rng& rng);

// Plain row-major COO of a CSR matrix (for user matrices, which may have empty rows).
Coo coo_row_major(const Compressed& csr);

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
void generate_coo(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& row, HostData& col);

// ---- ELL ---------------------------------------------------------------------------------------

struct Ell {
  int64_t rows = 0, width = 0;
  std::vector<int32_t> col;  // rows * width, row-major; -1 = padding
  std::vector<double> val;   // rows * width; 0 in padding slots
};

// Packs a CSR matrix (every row <= width entries) into ELL. scatter_padding = false puts each row's
// entries first and the padding at the end; true spreads the entries over random slots of the row
// (in column order), so padding also sits between entries.
Ell ell_from_csr(const Compressed& csr, int64_t width, bool scatter_padding, Rng& rng);

// Row lengths of the ELL task generator: uniform (3/4 width .. width) or skewed (power law capped at
// the width, total rows * per_line(cols)).
std::vector<int64_t> generated_ell_lengths(int64_t rows, int64_t cols, bool skew, Rng& rng);

// The task generator for ELL: uniform rows (3/4 width .. width entries, padding at the end) or
// skewed rows (power law capped at the width, total rows * per_line(cols), padding scattered).
Ell generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng);

// The same ELL matrix written straight into a task's buffers (rows * width each, column ids as
// doubles, resized in place as build_compressed's); returns the width.
int64_t generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& col);

// ---- user matrices -------------------------------------------------------------------------------

// The CSR a Matrix Market file was read into, as a Compressed matrix.
Compressed csr_of(const SparseMatrix& m);

// COO order for a user's matrix: the published one (one entry per row first, the rest shuffled) when no row
// is empty, otherwise every entry in random order.
Coo coo_for_user(const Compressed& csr, Rng& rng);

// ---- Args helpers and row grouping for references ------------------------------------------------

template <class Int>
HostData as_doubles(const std::vector<Int>& v) {
  HostData d(v.size());
  parallel_for(
      static_cast<int64_t>(v.size()),
      [&](int64_t i) { d[static_cast<std::size_t>(i)] = static_cast<double>(v[static_cast<std::size_t>(i)]); }, 1 << 16);
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
RowGrouped group_coo(int64_t rows, const double* row, const double* col, const double* val, int64_t n);

// From CSC arrays (col_offsets has columns + 1 entries): a row's entries in column order.
RowGrouped group_csc(int64_t rows, int64_t columns, const double* row_indices, const double* col_offsets, const double* val);

// From CSR arrays (row_offsets has rows + 1 entries).
RowGrouped group_csr(int64_t rows, const double* col_indices, const double* row_offsets, const double* val);

// From row-major ELL arrays: padding slots (col < 0) are skipped.
RowGrouped group_ell(int64_t rows, int64_t width, const double* col_ids, const double* val);

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

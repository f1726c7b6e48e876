// The sparse generators' COO and ELL matrices, users' matrices and the row grouping the references
// sum in (mskb/core/sparse_gen.hpp documents each function).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "mskb/core/sparse_gen.hpp"

namespace mskb::sparse {

// ---- COO ---------------------------------------------------------------------------------------

Coo coo_cover_then_shuffle(const Compressed& csr, Rng& rng) {
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

Coo coo_row_major(const Compressed& csr) {
  Coo c;
  for (int64_t i = 0; i < csr.major; ++i)
    for (int64_t p = csr.offsets[static_cast<std::size_t>(i)]; p < csr.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
      c.row.push_back(static_cast<int32_t>(i));
      c.col.push_back(csr.indices[static_cast<std::size_t>(p)]);
      c.val.push_back(csr.values[static_cast<std::size_t>(p)]);
    }
  return c;
}

void generate_coo(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& row, HostData& col) {
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
            if (j != cover)
              put(parked + q++, (static_cast<uint64_t>(i) << 32) | static_cast<uint32_t>(line[static_cast<std::size_t>(j)]));
        }
      },
      kLineBlock);
  if (rest <= 0) return;
  const int64_t buckets = std::max<int64_t>(1, rest >> 14);
  const int64_t chunks = std::min<int64_t>(64, (rest + 65535) / 65536), chunk = (rest + chunks - 1) / chunks;
  const auto bucket_of = [&](int64_t q) {
    return static_cast<int64_t>(((counter_bits(bucket_key, static_cast<uint64_t>(q)) >> 32) * static_cast<uint64_t>(buckets)) >>
                                32);
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
        for (int64_t q = ch * chunk, end = std::min(rest, q + chunk); q < end; ++q)
          put(binned + next[bucket_of(q)]++, get(parked + q));
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

Ell ell_from_csr(const Compressed& csr, int64_t width, bool scatter_padding, Rng& rng) {
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

std::vector<int64_t> generated_ell_lengths(int64_t rows, int64_t cols, bool skew, Rng& rng) {
  const int64_t width = ell_width(cols, skew);
  return skew ? powerlaw_lengths(rows, width, total_nnz(rows, cols), 0, kEmptyFraction, rng)
              : ell_uniform_lengths(rows, width, rng);
}

Ell generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng) {
  Ell e;
  e.rows = rows;
  e.width = ell_width(cols, skew);
  const std::vector<int64_t> lengths = generated_ell_lengths(rows, cols, skew, rng);
  e.col.resize(static_cast<std::size_t>(rows * e.width));
  e.val.resize(static_cast<std::size_t>(rows * e.width));
  draw_ell(rows, cols, e.width, lengths, skew, rng, e.col.data(), e.val.data());
  return e;
}

int64_t generate_ell(int64_t rows, int64_t cols, bool skew, Rng& rng, HostData& val, HostData& col) {
  const int64_t width = ell_width(cols, skew);
  const std::vector<int64_t> lengths = generated_ell_lengths(rows, cols, skew, rng);
  val.resize(static_cast<std::size_t>(rows * width));
  col.resize(static_cast<std::size_t>(rows * width));
  draw_ell(rows, cols, width, lengths, skew, rng, col.data(), val.data());
  return width;
}

// ---- user matrices -------------------------------------------------------------------------------

Compressed csr_of(const SparseMatrix& m) {
  Compressed c;
  c.major = m.rows;
  c.minor = m.cols;
  c.offsets = m.offsets;
  c.indices = m.indices;
  c.values = m.values;
  return c;
}

Coo coo_for_user(const Compressed& csr, Rng& rng) {
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

RowGrouped group_coo(int64_t rows, const double* row, const double* col, const double* val, int64_t n) {
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

RowGrouped group_csc(int64_t rows, int64_t columns, const double* row_indices, const double* col_offsets, const double* val) {
  const int64_t nnz = to_i64(col_offsets[columns]);
  std::vector<double> col(static_cast<std::size_t>(nnz));
  for (int64_t j = 0; j < columns; ++j)
    for (int64_t p = to_i64(col_offsets[j]); p < to_i64(col_offsets[j + 1]); ++p)
      col[static_cast<std::size_t>(p)] = static_cast<double>(j);
  return group_coo(rows, row_indices, col.data(), val, nnz);
}

RowGrouped group_csr(int64_t rows, const double* col_indices, const double* row_offsets, const double* val) {
  RowGrouped g;
  g.offsets.resize(static_cast<std::size_t>(rows) + 1);
  for (int64_t i = 0; i <= rows; ++i) g.offsets[static_cast<std::size_t>(i)] = to_i64(row_offsets[i]);
  const int64_t nnz = g.offsets.back();
  g.col.resize(static_cast<std::size_t>(nnz));
  g.val.assign(val, val + nnz);
  for (int64_t p = 0; p < nnz; ++p) g.col[static_cast<std::size_t>(p)] = static_cast<int32_t>(to_i64(col_indices[p]));
  return g;
}

RowGrouped group_ell(int64_t rows, int64_t width, const double* col_ids, const double* val) {
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

}  // namespace mskb::sparse

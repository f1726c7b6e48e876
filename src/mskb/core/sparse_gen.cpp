// The sparse generators' shapes, building blocks, line lengths and compressed (CSR / CSC) matrices
// (mskb/core/sparse_gen.hpp documents each function).
#include "mskb/core/sparse_gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace mskb::sparse {

// ---- shape conventions -------------------------------------------------------------------------

int64_t per_line(int64_t minor) {
  const auto n = static_cast<int64_t>(std::llround(kDensity * static_cast<double>(minor)));
  return std::clamp<int64_t>(n, 1, std::max<int64_t>(minor, 1));
}

int64_t total_nnz(int64_t major, int64_t minor) { return major * per_line(minor); }

int64_t ell_width(int64_t cols, bool skew) {
  const int64_t avg = per_line(cols);
  return skew ? std::min<int64_t>(std::max<int64_t>(cols, 1), kEllSkewWidthFactor * avg) : avg;
}

int64_t rowwise_nnz(const Shape& s) { return s.has("nnz") ? std::max<int64_t>(1, s["nnz"]) : total_nnz(s["rows"], s["cols"]); }

int64_t colwise_nnz(const Shape& s) { return s.has("nnz") ? std::max<int64_t>(1, s["nnz"]) : total_nnz(s["cols"], s["rows"]); }

int64_t row_terms(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  return is_skewed(s) ? s["cols"] : per_line(s["cols"]);
}

int64_t csc_row_terms(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  const int64_t rows = s["rows"], cols = s["cols"];
  const int64_t mean = (total_nnz(cols, rows) + rows - 1) / rows;
  return std::min<int64_t>(cols, 2 * mean + 32);
}

int64_t ell_width_of(const Shape& s) {
  if (is_user_matrix(s)) return std::max<int64_t>(1, s["max_row_nnz"]);
  return ell_width(s["cols"], is_skewed(s));
}

Tolerance sum_tolerance(int64_t max_terms, Precision p) {
  const double n = static_cast<double>(std::max<int64_t>(max_terms, 1));
  const double s = 0.5 * std::sqrt(n);
  return p == Precision::fp32 ? Tolerance{1e-5 * s + 3.0 * 0x1.0p-24 * n, 1e-5} : Tolerance{4e-3 * s, 1e-2};
}

// ---- random building blocks --------------------------------------------------------------------

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

// ---- line lengths ------------------------------------------------------------------------------

std::vector<int64_t> powerlaw_lengths(int64_t major, int64_t cap, int64_t total, int64_t min_len, double empty_fraction, Rng& rng,
                                      double alpha) {
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

std::vector<int64_t> ell_uniform_lengths(int64_t rows, int64_t width, Rng& rng) {
  std::vector<int64_t> len(static_cast<std::size_t>(rows));
  const int64_t lo = std::max<int64_t>(1, (3 * width + 3) / 4);
  LineRng g(rng.next());
  for (auto& l : len) l = lo + g.below(static_cast<uint64_t>(width - lo + 1));
  if (rows > 0) len[g.below(static_cast<uint64_t>(rows))] = width;
  return len;
}

// ---- compressed (CSR / CSC) --------------------------------------------------------------------

std::vector<int64_t> generated_lengths(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng) {
  if (!skew) return std::vector<int64_t>(static_cast<std::size_t>(std::max<int64_t>(major, 0)), per_line(minor));
  return powerlaw_lengths(major, minor, total_nnz(major, minor), min_len, min_len == 0 ? kEmptyFraction : 0.0, rng);
}

std::vector<int64_t> line_offsets(int64_t minor, const std::vector<int64_t>& lengths) {
  std::vector<int64_t> off(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0 || lengths[i] > minor) throw std::logic_error("build_compressed: bad line length");
    off[i + 1] = off[i] + lengths[i];
  }
  return off;
}

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

Compressed build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng) {
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

void build_compressed(int64_t major, int64_t minor, const std::vector<int64_t>& lengths, Rng& rng, HostData& values,
                      HostData& indices, HostData& offsets) {
  if (static_cast<int64_t>(lengths.size()) != major) throw std::logic_error("build_compressed: lengths size");
  const std::vector<int64_t> off = line_offsets(minor, lengths);
  const auto nnz = static_cast<std::size_t>(off.back());
  values.resize(nnz);
  indices.resize(nnz);
  offsets.resize(off.size());
  for (std::size_t i = 0; i < off.size(); ++i) offsets[i] = static_cast<double>(off[i]);
  draw_lines(minor, off, rng, indices.data(), values.data());
}

Compressed generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng) {
  const std::vector<int64_t> lengths = generated_lengths(major, minor, skew, min_len, rng);
  return build_compressed(major, minor, lengths, rng);
}

void generate_compressed(int64_t major, int64_t minor, bool skew, int64_t min_len, Rng& rng, HostData& values, HostData& indices,
                         HostData& offsets) {
  const std::vector<int64_t> lengths = generated_lengths(major, minor, skew, min_len, rng);
  build_compressed(major, minor, lengths, rng, values, indices, offsets);
}

Compressed from_triplets(int64_t major, int64_t minor, const std::vector<int64_t>& maj, const std::vector<int64_t>& mnr,
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

Compressed transpose(const Compressed& a) {
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

template void sample_sorted_distinct<int32_t>(int64_t, int64_t, LineRng&, SampleScratch&, int32_t*);
template void sample_sorted_distinct<double>(int64_t, int64_t, LineRng&, SampleScratch&, double*);

}  // namespace mskb::sparse

// batch_norm: training-mode batch normalisation of an N x C input (row-major, one row per sample): batch
// statistics per channel over the N rows (biased variance), no running statistics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(batch_norm) {
  using namespace mskb;
  spec.semantics =
      "Batch normalisation with batch statistics. input is N x C row-major (element [n][c] at n*C + c). For every "
      "channel c: mean_c = sum_n input[n][c] / N, var_c = sum_n (input[n][c] - mean_c)^2 / N (biased variance), "
      "output[n][c] = gamma[c] * (input[n][c] - mean_c) / sqrt(var_c + epsilon) + beta[c]. gamma and beta have C "
      "elements; no running statistics are read or written. bf16 variant: input, gamma, beta, output are bf16, "
      "epsilon stays float. N >= 1, C >= 1.";
  spec.vendor =
      "cuDNN: cudnnBatchNormalizationForwardTraining(Ex) with the mode timed per shape on its first call (the warm-up, "
      "as cudnnFind* does for convolutions) and the fastest kept: PER_ACTIVATION on the N x C input viewed as an NCHW "
      "N x C x 1 x 1 tensor, or SPATIAL_PERSISTENT / SPATIAL (OPS_BN) on the NHWC view of the same memory (channels "
      "innermost; statistics per channel over N*H*W = N); no running or saved statistics; descriptors, workspace and "
      "the choice cached per shape. bf16: FP32 scale/bias (cuDNN's rule), widened from the ABI's bf16 gamma/beta by one "
      "glue kernel. Below the naive kernel on the H200's large sweep (P 0.50 fp32 / 0.58 bf16 at 4aae2a5): cuDNN's "
      "batch norm is built for a spatial extent and no mode streams a tall N x C matrix at bandwidth. fp32, per "
      "shape, the chosen mode against the naive kernel: 24.9 vs 2.31 ms at N = 2^20, C = 256 (PER_ACTIVATION alone "
      "took 222 ms there at 5c8c7aa: one accumulator per channel looping over N), 15.1 vs 1.56 ms at N = 2^16, "
      "C = 4096, 1.16 vs 1.52 ms at N = 1024, C = 2^18 (the one shape cuDNN wins)";
  spec.vendor_abi_cost =
      "bf16: the ABI passes gamma and beta as bf16, cuDNN takes FP32 scale and bias for bf16 data: one widening "
      "kernel (2C elements) per call";
  spec.params = {out("output"), in("input"), in("gamma"), in("beta"), float_arg("epsilon"), int_arg("N"), int_arg("C")};
  for (int64_t n : {16, 64, 256, 1024})
    for (int64_t c : {16, 64, 256, 1024}) spec.paper.push_back({{"N", n}, {"C", c}});
  spec.heldout = {{{"N", 2}, {"C", 7}},      {{"N", 3}, {"C", 1}},      {{"N", 100}, {"C", 37}},
                  {{"N", 1000}, {"C", 1000}}, {{"N", 1025}, {"C", 129}}, {{"N", 4097}, {"C", 3}},
                  {{"N", 5}, {"C", 20011}},   {{"N", 65537}, {"C", 17}}};
  spec.large = {{{"N", int64_t{1} << 20}, {"C", 256}}, {{"N", int64_t{1} << 16}, {"C", 4096}},
                {{"N", 1024}, {"C", int64_t{1} << 18}}};
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere): every
  // channel gets its own offset (|mean| <= 0.5) and spread (1..2), so per-channel statistics matter:
  // input[n][c] = offset(c) + spread(c) * U(-1, 1); gamma U(0.5, 1.5), beta U(-1, 1), epsilon 1e-5.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& e, std::vector<double>& v) {
                              const auto n = static_cast<std::size_t>(s["N"]), c = static_cast<std::size_t>(s["C"]);
                              e[0] = e[1] = n * c;
                              e[2] = e[3] = c;
                              v[4] = 1e-5;
                              v[5] = static_cast<double>(n);
                              v[6] = static_cast<double>(c);
                            },
                            {{}, {}, {0.5, 1.5}, {-1.0, 1.0}, {}, {}, {}},
                            [](const Shape& s, std::vector<UniformRange>& r) {
                              r[1] = channel_draws(-1.0, 1.0, static_cast<uint64_t>(s["C"]), -0.5, 0.5, 1.0, 2.0);
                            }});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const auto n = static_cast<std::size_t>(s["N"]), c = static_cast<std::size_t>(s["C"]);
    const mskb::HostData& x = a[1].data;
    // Per-channel sums over the rows: blocks of kRows rows x kCols channels summed in parallel into
    // per-row-block partials, which are added in row-block order: the same whatever the thread count
    // (and, up to kRows rows, exactly the sequential sum).
    constexpr std::size_t kRows = 1024, kCols = 1024;
    const std::size_t row_blocks = (n + kRows - 1) / kRows, col_blocks = (c + kCols - 1) / kCols;
    std::vector<double> partial(row_blocks * c);
    auto column_sums = [&](auto&& term, std::vector<double>& out) {
      parallel_for(static_cast<int64_t>(row_blocks * col_blocks), [&](int64_t t) {
        const std::size_t rb = static_cast<std::size_t>(t) / col_blocks, cb = static_cast<std::size_t>(t) % col_blocks;
        const std::size_t r0 = rb * kRows, r1 = std::min(n, r0 + kRows), k0 = cb * kCols, k1 = std::min(c, k0 + kCols);
        double* p = partial.data() + rb * c;
        for (std::size_t k = k0; k < k1; ++k) p[k] = 0.0;
        for (std::size_t r = r0; r < r1; ++r)
          for (std::size_t k = k0; k < k1; ++k) p[k] += term(r, k);
      }, 1);
      parallel_blocks(static_cast<int64_t>(c), [&](int64_t k0, int64_t k1) {
        for (auto k = static_cast<std::size_t>(k0); k < static_cast<std::size_t>(k1); ++k) {
          double acc = 0.0;
          for (std::size_t rb = 0; rb < row_blocks; ++rb) acc += partial[rb * c + k];
          out[k] = acc;
        }
      }, 1024);
    };
    std::vector<double> mean(c, 0.0), sq(c, 0.0);
    column_sums([&](std::size_t r, std::size_t k) { return x[r * c + k]; }, mean);
    for (std::size_t k = 0; k < c; ++k) mean[k] /= static_cast<double>(n);
    column_sums([&](std::size_t r, std::size_t k) {
      const double d = x[r * c + k] - mean[k];
      return d * d;
    }, sq);
    std::vector<double> rstd(c);
    for (std::size_t k = 0; k < c; ++k) rstd[k] = 1.0 / std::sqrt(sq[k] / static_cast<double>(n) + a[4].value);
    parallel_for(static_cast<int64_t>(n), [&](int64_t ri) {
      const auto r = static_cast<std::size_t>(ri);
      for (std::size_t k = 0; k < c; ++k)
        a[0].data[r * c + k] = a[2].data[k] * (x[r * c + k] - mean[k]) * rstd[k] + a[3].data[k];
    }, 64);
  };
  // |normalised| <= ~1.8, |output| <= ~3.7. FP32: float per-channel sums over up to 2^20 rows in blocked
  // orders stay well inside 2e-5 + 1e-5|ref|, but one FP32 accumulator per channel (a thread per channel,
  // the natural coalesced kernel for an N x C input) over m rows loses the squared deviations below half
  // an ulp of its running sum: the variance comes out -7e-6 (m = 2^16) to -4e-4 (m = 2^20, the large
  // sweep's 2^20 x 256) too small, so the worst output (|gamma (x - mean) rstd| <= 1.5 * 1.73) errs by
  // up to 5.4e-4, 12x the previous tolerance. atol adds u min(N, 2^20) / 32 (1.95e-3 at N = 2^20, as
  // layer_norm). Under 16 rows a channel's variance comes arbitrarily close to 0 (two draws of N = 2
  // within 3e-3 of each other: a few channels in a thousand), and rstd, up to 1/sqrt(eps) = 316,
  // amplifies the FP32 rounding of the mean (u |mean|, |mean| <= 2.5) in x - mean and again through the
  // variance: atol adds 2 * 1.5 * 2.5 u / sqrt(eps) = 1.4e-4 there (seen on the H200 at N = 2: the
  // baseline and cuDNN both 1.8x the previous tolerance). From 16 rows on, a channel's 16 draws
  // (spread >= 2) lying within 0.05 of each other has probability ~1e-19. BF16: one output rounding
  // (2^-9 relative) plus the input rounding that the reference already sees.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double m = static_cast<double>(std::min<int64_t>(s["N"], int64_t{1} << 20));
    const double few_rows = s["N"] < 16 ? 2.0 * 1.5 * 2.5 * 0x1.0p-24 / std::sqrt(1e-5) : 0.0;
    return p == Precision::fp32 ? Tolerance{2e-5 + 0x1.0p-24 * m / 32.0 + few_rows, 1e-5} : Tolerance{1.5e-2, 1e-2};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]) * static_cast<uint64_t>(s["C"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]), c = static_cast<double>(s["C"]);
    const double eb = static_cast<double>(real_bytes(p));
    return Cost{2.0 * n * c * eb + 2.0 * c * eb, 7.0 * n * c};
  };
}

// Owns how the loop scores a candidate and decides whether it replaces the current best. The
// formulas themselves (speedup, complexity-weighted P, geomean) are mskb/scoring.hpp's; this adds
// the measurement noise of P and the acceptance rule:
//   per timed size i: s_i = baseline_i / candidate_i (medians measured in the same run),
//     relative uncertainty e_i = sqrt(noise_cand_i^2 + noise_base_i^2) (each noise is the relative
//     standard error of that median's samples)
//   P = sum c_i s_i / sum c_i;  sigma_P / P = sqrt(sum (c_i s_i e_i)^2) / sum c_i s_i
//   accept  <=>  correct  and  P_new > P_best * (1 + max(min_gain, 2 * sqrt(rel_new^2 + rel_best^2)))
// min_gain (default 2 %) covers what the standard error does not: run-to-run drift (clocks, the
// harness's own 2 % repeatability target).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudamaster/agents/task_brief.hpp"
#include "cudamaster/store/store.hpp"
#include "mskb/harness/evaluator.hpp"

namespace cudamaster::loop {

struct Score {
  bool correct = false;
  std::optional<double> p;          // complexity-weighted speedup over the baseline
  std::optional<double> geomean;    // geometric mean of the per-size speedups
  std::optional<double> vs_vendor;  // complexity-weighted vendor time / this time
  double rel_noise = 0;             // sigma_P / P
  std::vector<agents::PerfRow> rows;     // per timed size, for prompts
  std::vector<store::ShapeRow> shapes;   // per timed size, for the store
};

// `vendor` may be null or not correct (then no vs_vendor). A contender that is not correct has
// no P. The baseline scored against itself has P = 1.
Score score_result(const mskb::ContenderResult& r, const mskb::ContenderResult& baseline,
                   const mskb::ContenderResult* vendor);

struct Verdict {
  bool accept = false;
  double required_p = 0;  // the P a candidate had to beat
  std::string reason;     // "P 2.31 > 1.04 required (best 1.00 + 4.0 % noise margin)"
};

Verdict judge(const Score& candidate, const Score& best, double min_gain);

}  // namespace cudamaster::loop

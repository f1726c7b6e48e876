// Owns how the loop scores a candidate and decides whether it replaces the current best. The
// formulas themselves (speedup, complexity-weighted P, geomean) are mskb/scoring.hpp's, the
// spread of P between two processes is mskb/core/spread.hpp's (the spread model measured on the
// H200, docs/harness.md section 5); this adds the acceptance rule:
//   per timed size i: s_i = baseline_i / candidate_i (medians measured in the same run)
//   P = sum c_i s_i / sum c_i
//   h = the half-width (log) of P's between-process interval over the candidate's shapes: each
//       shape's baseline and candidate bounded by the model's band for its time, widened by its
//       own noise (relative standard error of the samples), combined with P's weights
//   margin = max(min_gain, e^h - 1)
//   accept  <=>  correct  and  P_new > P_best * (1 + margin)
// So a candidate must beat the best by more than the same kernel moves between two processes
// (at the model's quantile), for the shapes and times it has. min_gain (default 0) is a floor the
// user may set. Without an interval (no complexities) the margin falls back to the noise alone:
//   sigma_P / P = sqrt(sum (c_i s_i e_i)^2) / sum c_i s_i, e_i = sqrt(noise_cand_i^2 + noise_base_i^2),
//   margin = max(min_gain, 2 sqrt(rel_new^2 + rel_best^2)).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudamaster/agents/task_brief.hpp"
#include "cudamaster/store/store.hpp"
#include "mskb/core/spread.hpp"
#include "mskb/harness/evaluator.hpp"

namespace cudamaster::loop {

struct Score {
  bool correct = false;
  std::optional<double> p;          // complexity-weighted speedup over the baseline
  std::optional<double> geomean;    // geometric mean of the per-size speedups
  std::optional<double> vs_vendor;  // complexity-weighted vendor time / this time
  double rel_noise = 0;             // sigma_P / P
  double spread = 0;                // h: P's between-process interval is [P e^-h, P e^h] (0: none)
  int spread_shapes = 0;            // the shapes h was computed over
  std::vector<agents::PerfRow> rows;     // per timed size, for prompts
  std::vector<store::ShapeRow> shapes;   // per timed size, for the store
};

// `vendor` may be null or not correct (then no vs_vendor). A contender that is not correct has
// no P. The baseline scored against itself has P = 1.
// `model`: the spread model whose between-process bounds give Score::spread.
Score score_result(const mskb::ContenderResult& r, const mskb::ContenderResult& baseline,
                   const mskb::ContenderResult* vendor, const mskb::SpreadModel& model = mskb::spread_model());

struct Verdict {
  bool accept = false;
  double required_p = 0;  // the P a candidate had to beat
  double margin = 0;      // required_p / best P - 1
  std::string margin_source;  // why this margin: "between-process spread of its 5 shapes (spread model v1, ...)"
  std::string reason;     // "P 2.31 > 1.10 required (best 1.00 + 10.3% margin: between-process spread of ...)"
  nlohmann::json json() const;  // {"accept", "required_p", "margin", "margin_source", "reason"}
};

// `model`: the spread model whose between-process bounds set the margin (mskb::spread_model());
// `gpu`: this GPU's model (device name), named in margin_source when the model was measured on another.
Verdict judge(const Score& candidate, const Score& best, double min_gain, const mskb::SpreadModel& model = mskb::spread_model(),
              const std::string& gpu = "");

}  // namespace cudamaster::loop

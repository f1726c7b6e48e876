// Owns a finished hardware analysis and its two faces: the text rendered for prompts (filtered,
// full or none) and the JSON contract of `cudamaster profile --json` (class, confidence,
// threshold, metrics, all_metrics, kernels, source). Also the token-counting rule used to
// compare the filtered and the full rendering.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudamaster/profile/classify.hpp"
#include "cudamaster/profile/filter.hpp"
#include "cudamaster/profile/metrics.hpp"

namespace cudamaster::profile {

struct ProfileOutcome {
  std::string source = "ncu";          // "ncu" or "sol_model"
  Classification classification;       // of the entry point (the aggregate over its kernels)
  std::optional<ProfileData> data;     // ncu only
  std::vector<Classification> kernel_classes;  // ncu only, one per kernel
  std::vector<double> weights;                 // ncu only, each kernel's share of the duration
  std::string message;                 // sol_model: why there were no counters
  nlohmann::json context = nlohmann::json::object();  // task, precision, shape, kernel, timings ...
};

// Classifies the aggregate and every kernel.
ProfileOutcome analyze(ProfileData data, const ClassifierConfig& config = {});

// The prompt text. `none` renders nothing; `full` renders every collected metric of every kernel
// (device attributes once); `filtered` the class's whitelist over the duration-weighted
// aggregate plus one line per kernel. Both start with the same class header.
std::string render(const ProfileOutcome& o, RenderMode mode);

// JSON: class, confidence, threshold, separability, source, reason, units, evidence, metrics
// (filtered; empty for none), all_metrics (every metric of the aggregate), kernels (per-kernel
// breakdown), stalls, rendered, profile_mode, plus the outcome's context fields.
nlohmann::json to_json(const ProfileOutcome& o, RenderMode mode);

// Token-counting rule for the filtered-vs-full comparison (stated in docs/profiling.md):
//   approx = ceil(chars / 4)  (the usual BPE rule of thumb for English and code), and
//   pieces = maximal runs of [A-Za-z0-9] + every other non-space character (a strict split that
//            penalises snake_case metric names as BPE tokenizers do).
struct TokenCount {
  std::size_t chars = 0;
  std::size_t approx = 0;
  std::size_t pieces = 0;
};
TokenCount count_tokens(std::string_view text);

struct TokenReport {
  std::string file;
  std::size_t kernels = 0;
  std::string cls;
  TokenCount full, filtered;
  double reduction_approx = 0;  // 1 - filtered/full, by the approx rule
  double reduction_pieces = 0;  // same, by the pieces rule
};
TokenReport token_report(const ProfileOutcome& o, const std::string& file);
nlohmann::json to_json(const TokenReport& r);

}  // namespace cudamaster::profile

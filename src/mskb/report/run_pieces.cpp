// Pieces the suite report's text and Markdown renderers share (see run_pieces.hpp).
#include "run_pieces.hpp"

#include <fmt/format.h>

#include "mskb/report/cells.hpp"
#include "mskb/report/numbers.hpp"

using json = nlohmann::json;

namespace mskb::report {

namespace {

// "task prec contender shape (PIDs)" of every timed shape that had other processes on its GPU.
std::vector<std::string> shared_gpu_shapes(const json& j) {
  std::vector<std::string> out;
  if (!j.contains("results")) return out;
  for (const auto& r : j["results"]) {
    if (!r.contains("gpu_others") || !r["gpu_others"].is_number_integer() || r["gpu_others"].get<int>() <= 0) continue;
    std::string pids;
    for (const auto& p : r.value("gpu_other_pids", json::array())) pids += (pids.empty() ? "" : " ") + std::to_string(p.get<uint64_t>());
    out.push_back(fmt::format("{} {} {} {} {} (PID {})", r["task"].get<std::string>(), r["precision"].get<std::string>(),
                              r["contender"].get<std::string>(), r.value("sweep", ""), report::shape_label(r["shape"]), pids));
  }
  return out;
}

}  // namespace

// The warning about those shapes (empty when none): a heading wrapped in `emphasis` and ended by
// `after_heading`, then one `bullet` line per shape (at most 20).
std::string shared_gpu_warning(const json& j, const std::string& emphasis, const char* after_heading, const char* bullet) {
  const auto shared = shared_gpu_shapes(j);
  if (shared.empty()) return "";
  // With overlapping timing parts the run's own waiting processes are among them: say so.
  std::string own = timing_overlap_note(j.value("device", json::object()));
  if (!own.empty()) own = " " + own;
  std::string out = fmt::format(
      "{0}WARNING: {1} timed shape(s) ran while other processes held a context on the GPU; their times (and the speedups "
      "computed from them) may be slowed by sharing it:{0}{3}{2}",
      emphasis, shared.size(), after_heading, own);
  for (std::size_t i = 0; i < shared.size() && i < 20; ++i) out += bullet + shared[i] + "\n";
  if (shared.size() > 20) out += fmt::format("{}... and {} more\n", bullet, shared.size() - 20);
  return out;
}

// A number of the submission summary: "-" for null, a share as a percentage, else two decimals.
std::string summary_cell(const json& row, const char* key, bool share) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_number()) return "-";
  return share ? fmt::format("{:.0f}%", 100 * it->get<double>()) : fmt::format("{:.2f}", it->get<double>());
}

const std::vector<std::pair<const char*, const char*>>& summary_columns() {
  static const std::vector<std::pair<const char*, const char*>> cols = {
      {"share_correct", "correct"}, {"fast_1", "fast_1"},   {"fast_1_5", "fast_1.5"},     {"fast_2", "fast_2"},
      {"mean_P", "mean P"},         {"geomean_P", "geomean P"}, {"vendor_ratio", "vs vendor"}};
  return cols;
}

bool is_share(const char* key) { return std::string(key) == "share_correct" || std::string(key).rfind("fast_", 0) == 0; }

// The heading line of the summary: kernels, skipped files, the sweep(s).
std::string summary_heading(const json& sum) {
  std::string sweeps;
  for (const json& r : sum["rows"])
    if (r["sweep"].is_string() && sweeps.find(r["sweep"].get<std::string>()) == std::string::npos)
      sweeps += (sweeps.empty() ? "" : ", ") + r["sweep"].get<std::string>();
  return fmt::format("{} kernel{} judged ({} correct), {} file{} skipped; {}", sum.value("kernels", 0), sum.value("kernels", 0) == 1 ? "" : "s",
                     sum.value("correct", 0), sum.value("skipped", 0), sum.value("skipped", 0) == 1 ? "" : "s",
                     sweeps.empty() ? std::string("not timed") : "P over the " + sweeps + " sweep");
}

}  // namespace mskb::report

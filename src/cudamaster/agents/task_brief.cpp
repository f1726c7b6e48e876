#include "cudamaster/agents/task_brief.hpp"

#include <fmt/format.h>

namespace cudamaster::agents {

TaskBrief make_task_brief(const mskb::TaskSpec& spec, mskb::Precision p, bool allow_libraries, const std::string& gpu) {
  TaskBrief b;
  b.task = spec.name;
  b.precision = mskb::to_string(p);
  b.category = spec.category;
  b.semantics = spec.semantics;
  // The C declaration; prompts and messages write the `extern "C"` in front of it themselves.
  b.signature = spec.signature(p);
  const std::string linkage = "extern \"C\" ";
  if (b.signature.rfind(linkage, 0) == 0) b.signature.erase(0, linkage.size());
  b.vendor = spec.vendor;
  b.allow_libraries = allow_libraries;
  if (!gpu.empty()) b.gpu = gpu;
  b.entry.symbol = spec.symbol(p);
  b.entry.signature = b.signature;
  for (const mskb::Param& q : spec.params) b.entry.pointer_params.push_back(q.is_buffer);
  // Only the paper sweep: held-out shapes never reach a prompt.
  double total = 0;
  for (const mskb::Shape& s : spec.paper) total += static_cast<double>(spec.complexity(s));
  for (const mskb::Shape& s : spec.paper) {
    const double w = total > 0 ? static_cast<double>(spec.complexity(s)) / total : 0.0;
    b.paper_sweep += fmt::format("- {} (weight {:.1f}%)\n", s.str(), 100.0 * w);
  }
  if (!b.paper_sweep.empty()) b.paper_sweep.pop_back();
  return b;
}

PromptVars task_vars(PromptLibrary& prompts, const TaskBrief& b) {
  PromptVars v = {{"task", b.task},
                  {"precision", b.precision},
                  {"category", b.category},
                  {"semantics", b.semantics},
                  {"signature", b.signature},
                  {"symbol", b.entry.symbol},
                  {"paper_sweep", b.paper_sweep},
                  {"vendor", b.vendor},
                  {"gpu", b.gpu},
                  {"allow_libraries", b.allow_libraries ? "yes" : ""}};
  v["rules"] = prompts.render("rules", v);
  while (!v["rules"].empty() && v["rules"].back() == '\n') v["rules"].pop_back();
  return v;
}

std::string render_performance_table(const std::vector<PerfRow>& rows) {
  if (rows.empty()) return "(no timings)";
  std::string out = "| size | time (us) | vs baseline | vs vendor | of roofline |\n|---|---:|---:|---:|---:|\n";
  for (const PerfRow& r : rows) {
    const std::string vendor = r.vendor_us && r.time_us > 0 ? fmt::format("{:.2f}x", *r.vendor_us / r.time_us) : "n/a";
    const std::string roof = r.roofline_us > 0 && r.time_us > 0 ? fmt::format("{:.1f}%", 100.0 * r.roofline_us / r.time_us) : "n/a";
    const std::string speed = r.time_us > 0 ? fmt::format("{:.2f}x", r.baseline_us / r.time_us) : "n/a";
    out += fmt::format("| {} | {:.2f} | {} | {} | {} |\n", r.shape, r.time_us, speed, vendor, roof);
  }
  out.pop_back();
  return out;
}

std::string render_history(const std::vector<RoundHistory>& history) {
  std::string out;
  for (const RoundHistory& h : history) {
    out += fmt::format("- Round {}: {}\n", h.round, h.outcome);
    if (!h.plan.empty()) out += fmt::format("  plan: {}\n", h.plan);
    for (const std::string& s : h.steps) out += fmt::format("  - {}\n", s);
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace cudamaster::agents

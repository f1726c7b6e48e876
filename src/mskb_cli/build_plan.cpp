// What `mskb build` builds and prints per kernel (build_plan.hpp).
#include "build_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "mskb/core/registry.hpp"
#include "mskb/harness/diagnostics.hpp"
#include "mskb/harness/suite_plan.hpp"
#include "mskb/util/text.hpp"

namespace mskb::cli {

std::vector<ContenderKind> parse_build_contenders(const std::string& list) {
  std::vector<ContenderKind> kinds;
  if (list == "none") return kinds;
  for (const std::string& c : split(list, ',')) {
    ContenderKind k;
    if (c == "baseline") k = ContenderKind::baseline;
    else if (c == "vendor") k = ContenderKind::vendor;
    else if (c == "wrong") k = ContenderKind::wrong;
    else if (c == "adversarial") k = ContenderKind::adversarial;
    else throw std::invalid_argument("unknown contender '" + c + "' (baseline, vendor, wrong, adversarial or none)");
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  if (kinds.empty()) throw std::invalid_argument("empty: give baseline, vendor, wrong, adversarial (comma-separated) or none");
  return kinds;
}

BuildList select_build_files(const std::vector<std::string>& tasks, const std::vector<ContenderKind>& kinds,
                             const std::vector<KernelFile>& extra) {
  auto wants = [&kinds](ContenderKind k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); };
  std::vector<ContenderKind> shipped;
  for (ContenderKind k : {ContenderKind::baseline, ContenderKind::vendor})
    if (wants(k)) shipped.push_back(k);
  BuildList list;
  list.files = extra;
  for (const std::string& n : tasks) {
    const TaskSpec& t = get_task(n);
    if (!shipped.empty())
      for (Precision p : {Precision::fp32, Precision::bf16})
        for (auto& k : shipped_kernels(t, p, shipped)) list.files.push_back(k);
    if (wants(ContenderKind::wrong))
      for (const auto& w : wrong_kernels(t)) {
        list.files.push_back({w.path, "wrong", true});  // ours: may link libraries, as in mskb check
        list.expect[w.path] = w.expect;
      }
    if (wants(ContenderKind::adversarial))
      for (const auto& w : adversarial_kernels(t)) {
        list.files.push_back({w.path, "adversarial", false});
        list.expect[w.path] = w.expect;
      }
  }
  auto& files = list.files;
  std::stable_sort(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path < b.path; });
  files.erase(std::unique(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path == b.path; }), files.end());
  return list;
}

bool refused_as_declared(const BuildList& list, const std::string& path, const CompileResult& r) {
  const auto e = list.expect.find(path);
  if (e == list.expect.end()) return false;
  return (r.refused_policy && e->second == "rejected_static") || (!r.ok && !r.refused_policy && e->second == "compile_error");
}

std::vector<std::string> build_result_lines(std::size_t done, std::size_t total, const std::string& shown, const CompileResult& r,
                                            bool as_declared) {
  const std::size_t width = std::to_string(total).size();
  const char* status = r.ok || as_declared ? "ok  " : r.refused_policy ? "REFUSED" : "FAIL";
  std::vector<std::string> lines = {fmt::format("[{:>{}}/{}] {} {} ({:.1f} s{}{})", done, width, total, status, shown, r.seconds,
                                                r.cache_hit ? ", cached" : "", as_declared ? ", refused as declared" : "")};
  // The error line unless it is the first compiler error, which the diagnostics list anyway.
  bool error_listed = false;
  if (r.outcome == CompileOutcome::compile_error)
    for (const auto& d : r.diagnostics)
      if (d.severity == "error") {
        error_listed = r.error.size() >= d.message.size() &&
                       r.error.compare(r.error.size() - d.message.size(), d.message.size(), d.message) == 0;
        break;
      }
  if (!r.ok && !error_listed) lines.push_back("     " + r.error);
  for (const auto& d : r.diagnostics) lines.push_back("     " + format_diagnostic(d));
  for (const auto& n : r.policy_notes) lines.push_back("     note: " + n);
  return lines;
}

}  // namespace mskb::cli

// The suite's plan (mskb/harness/suite_plan.hpp): the kernel files of a task (shipped, wrong/,
// the adversarial corpus), a submission's kernels, contender names, and the plan's groups less
// the done ones.
#include "mskb/harness/suite_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

// Unlike mskb::read_text, an unreadable file reads as empty (a wrong/ kernel then declares nothing).
std::string read_text_or_empty(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The kernel naming rules, for the reason a file is skipped.
constexpr const char* kSubmissionLayout = "kernels are TASK.cu, TASK_bf16.cu, fp32/TASK.cu or bf16/TASK.cu; mskb list names the tasks";

// A file's parent folders, nearest first (the root left out).
std::vector<std::string> parent_names(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p.parent_path().relative_path()) out.push_back(c.string());
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_kernel_file(const fs::path& p) {
  std::error_code ec;
  return p.extension() == ".cu" && fs::is_regular_file(p, ec);
}

}  // namespace

Submission scan_submission(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::invalid_argument("--submission: " + dir + " is not a folder");
  const fs::path root = fs::absolute(dir).lexically_normal();
  Submission s;
  s.dir = root.string();
  auto skip = [&](const fs::path& p, const std::string& reason) { s.skipped.push_back({p.lexically_relative(root).string(), reason}); };
  const std::string bf16 = std::string("_") + to_string(Precision::bf16);
  for (const fs::path& p : sorted_entries(root)) {
    const std::string name = p.filename().string();
    if (fs::is_directory(p, ec)) {
      const std::optional<Precision> folder = name == to_string(Precision::fp32)   ? std::optional<Precision>(Precision::fp32)
                                              : name == to_string(Precision::bf16) ? std::optional<Precision>(Precision::bf16)
                                                                                  : std::nullopt;
      for (const fs::path& f : sorted_entries(p)) {
        if (!is_kernel_file(f)) continue;
        const std::string stem = f.stem().string();
        if (!folder)
          skip(f, "not a precision folder (" + std::string(kSubmissionLayout) + ")");
        else if (find_task(stem) == nullptr)
          skip(f, "no task named '" + stem + "' (" + kSubmissionLayout + ")");
        else
          s.kernels.push_back({find_task(stem)->name, f.string(), folder});
      }
      continue;
    }
    if (!is_kernel_file(p)) continue;
    const std::string stem = p.stem().string();
    if (const TaskSpec* t = find_task(stem)) {
      s.kernels.push_back({t->name, p.string(), std::nullopt});
    } else if (stem.size() > bf16.size() && stem.compare(stem.size() - bf16.size(), bf16.size(), bf16) == 0 &&
               find_task(stem.substr(0, stem.size() - bf16.size())) != nullptr) {
      s.kernels.push_back({find_task(stem.substr(0, stem.size() - bf16.size()))->name, p.string(), Precision::bf16});
    } else {
      skip(p, "no task named '" + stem + "' (" + kSubmissionLayout + ")");
    }
  }
  // TASK.cu is the task's bf16 kernel too unless the submission has a bf16 file of that task.
  std::set<std::string> has_bf16;
  for (const TaskKernel& k : s.kernels)
    if (k.precision == Precision::bf16) has_bf16.insert(k.task);
  for (TaskKernel& k : s.kernels)
    if (!k.precision && has_bf16.count(k.task)) k.precision = Precision::fp32;
  std::sort(s.kernels.begin(), s.kernels.end(), [](const TaskKernel& a, const TaskKernel& b) { return a.path < b.path; });
  std::sort(s.skipped.begin(), s.skipped.end(), [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
  return s;
}

std::map<std::string, std::string> user_contender_names(const std::vector<std::string>& paths) {
  // Distinct files by absolute path; each starts at its stem and takes one more parent folder
  // while its name collides with another file's.
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    const fs::path a = fs::absolute(p).lexically_normal();
    if (std::find(files.begin(), files.end(), a) == files.end()) files.push_back(a);
  }
  std::vector<std::vector<std::string>> parents;
  for (const fs::path& f : files) parents.push_back(parent_names(f));
  std::vector<std::size_t> depth(files.size(), 0);
  auto name_of = [&](std::size_t i) {
    std::string n = files[i].stem().string();
    for (std::size_t d = 0; d < depth[i]; ++d) n = parents[i][d] + "/" + n;
    return contender_kind(n) == ContenderKind::candidate ? n : to_string(ContenderKind::candidate) + "/" + n;
  };
  std::vector<std::string> names(files.size());
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::vector<std::size_t>> by_name;
    for (std::size_t i = 0; i < files.size(); ++i) by_name[names[i] = name_of(i)].push_back(i);
    for (const auto& [n, same] : by_name)
      if (same.size() > 1)
        for (std::size_t i : same)
          if (depth[i] < parents[i].size()) {
            ++depth[i];
            changed = true;
          }
  }
  // Names that no folder tells apart (a name equal to another's longer one): numbered.
  std::map<std::string, int> seen;
  for (std::string& n : names)
    if (++seen[n] > 1) n += "#" + std::to_string(seen[n]);
  std::map<std::string, std::string> out;
  for (const std::string& p : paths) {
    const fs::path a = fs::absolute(p).lexically_normal();
    out[p] = names[static_cast<std::size_t>(std::find(files.begin(), files.end(), a) - files.begin())];
  }
  return out;
}

std::vector<KernelFile> shipped_kernels(const TaskSpec& spec, Precision p, const std::vector<ContenderKind>& which) {
  std::vector<KernelFile> out;
  if (const TaskFile* tf = spec.file) {  // a user's task: its baseline (no vendor)
    const auto b = tf->baseline.find(p);
    if (b != tf->baseline.end() && std::find(which.begin(), which.end(), ContenderKind::baseline) != which.end())
      out.push_back({b->second, "baseline", true});
    return out;
  }
  const fs::path dir = fs::path(source_root()) / spec.folder;
  std::error_code ec;
  for (const ContenderKind w : which) {
    if (w == ContenderKind::baseline) {
      const fs::path f = dir / (std::string("baseline_") + to_string(p) + ".cu");
      if (fs::exists(f, ec)) out.push_back({f.string(), "baseline", true});
    } else if (w == ContenderKind::vendor) {
      const fs::path f = dir / "vendor.cu";
      if (!spec.vendor.empty() && fs::exists(f, ec)) out.push_back({f.string(), "vendor", true});
    }
  }
  return out;
}

std::vector<WrongKernel> wrong_kernels(const TaskSpec& spec) {
  return declared_kernels((fs::path(source_root()) / spec.folder / "wrong").string());
}

std::vector<WrongKernel> adversarial_kernels(const TaskSpec& spec) {
  return declared_kernels((fs::path(source_root()) / "tests" / "adversarial" / spec.name).string());
}

std::vector<WrongKernel> declared_kernels(const std::string& folder) {
  std::vector<WrongKernel> out;
  const fs::path dir = folder;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  static const std::regex expect(R"(//\s*mskb-expect:\s*([a-z_]+))");
  static const std::regex prec(R"(//\s*mskb-precision:\s*([a-z0-9 ,]+))");
  static const std::regex gate(R"(//\s*mskb-gate:\s*([a-z_]+))");
  static const std::regex klass(R"(//\s*mskb-class:\s*([0-9]+))");
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cu") continue;
    WrongKernel w;
    w.path = e.path().string();
    const std::string src = read_text_or_empty(w.path);
    std::smatch m;
    if (std::regex_search(src, m, expect)) w.expect = m[1];
    if (std::regex_search(src, m, prec)) {
      if (m[1].str().find("fp32") != std::string::npos) w.precisions.push_back(Precision::fp32);
      if (m[1].str().find("bf16") != std::string::npos) w.precisions.push_back(Precision::bf16);
    } else {
      w.precisions = {Precision::fp32};
    }
    if (std::regex_search(src, m, gate)) w.gate = m[1];
    if (std::regex_search(src, m, klass)) w.klass = std::stoi(m[1]);
    out.push_back(w);
  }
  std::sort(out.begin(), out.end(), [](const WrongKernel& a, const WrongKernel& b) { return a.path < b.path; });
  return out;
}

namespace {

// (task, precision) groups a previous report already has whole: every contender this run would
// evaluate is there, finished (not waiting for its timing). They are not run again. In a timed
// run, a correct contender without a single timed shape in that report is not done either
// (reports written before `timing_pending` existed mark such contenders just `passed`).
std::map<std::string, std::set<std::string>> done_groups(const json& previous, bool timed_plan) {
  std::map<std::string, std::set<std::string>> done;
  if (!previous.is_object()) return done;
  std::set<std::string> timed;
  for (const json& r : previous.value("results", json::array()))
    if (r.is_object())
      timed.insert(r.value("task", std::string()) + "|" + r.value("precision", std::string()) + "|" + r.value("contender", std::string()));
  for (const json& c : previous.value("contenders", json::array())) {
    if (!c.is_object() || c.value("timing_pending", false)) continue;
    const std::string group = c.value("task", std::string()) + "|" + c.value("precision", std::string());
    const std::string who = c.value("contender", std::string());
    const std::optional<Disposition> d = from_string<Disposition>(c.value("disposition", std::string()));
    if (timed_plan && d && is_correct(*d) && timed.count(group + "|" + who) == 0) continue;
    done[group].insert(who);
  }
  return done;
}

bool has_precision(const WrongKernel& w, Precision p) { return std::find(w.precisions.begin(), w.precisions.end(), p) != w.precisions.end(); }

std::string declared(const WrongKernel& w) { return w.expect.empty() ? std::string("(no mskb-expect header)") : w.expect; }

// Why an adversarial kernel is not judged in this run ("" when it is): `mskb-gate: memcheck`
// kernels run only under --memcheck (and then only they), `mskb-gate: timing` ones only in a
// timed run (mskb run).
std::string adversarial_skip(const WrongKernel& w, const SuitePlan& plan) {
  const std::string memcheck = to_string(SanitizerTool::memcheck);
  const bool timed_run = !plan.eval.check_only && !plan.sanitizer;
  if (w.gate == memcheck && plan.sanitizer != SanitizerTool::memcheck) return "gate memcheck: judged only by mskb check --memcheck";
  if (w.gate != memcheck && plan.sanitizer) return "judged only without --" + to_string(*plan.sanitizer);
  if (w.gate == to_string(Part::timing) && !timed_run) return "gate timing: judged only by mskb run";
  return "";
}

// The kernels of one (task, precision) with their declared dispositions ("" for none).
std::vector<std::pair<KernelFile, std::string>> group_kernels(const SuitePlan& plan, const TaskSpec& spec, Precision p,
                                                              const std::map<std::string, std::string>& names, const Progress& progress) {
  auto wanted = [&](ContenderKind k) { return std::find(plan.contenders.begin(), plan.contenders.end(), k) != plan.contenders.end(); };
  std::vector<std::pair<KernelFile, std::string>> group;
  for (auto& k : shipped_kernels(spec, p, plan.contenders)) group.push_back({k, ""});
  if (wanted(ContenderKind::wrong))
    for (const auto& w : wrong_kernels(spec))
      if (has_precision(w, p))
        group.push_back({KernelFile{w.path, to_string(ContenderKind::wrong) + "/" + fs::path(w.path).stem().string(), true}, declared(w)});
  // The adversarial corpus (tests/adversarial/<task>): user kernels (the binary policy applies),
  // each judged against its declared disposition.
  if (wanted(ContenderKind::adversarial))
    for (const auto& w : adversarial_kernels(spec)) {
      if (!has_precision(w, p)) continue;
      const std::string contender = to_string(ContenderKind::adversarial) + "/" + fs::path(w.path).stem().string();
      if (const std::string skip = adversarial_skip(w, plan); !skip.empty()) {
        if (progress) progress(fmt::format("{} {} {}: skipped ({})", spec.name, to_string(p), contender, skip), true);
        continue;
      }
      group.push_back({KernelFile{w.path, contender, false}, declared(w)});
    }
  for (const auto& path : plan.kernels) group.push_back({KernelFile{path, names.at(path), false}, ""});
  if (plan.submission)
    for (const TaskKernel& k : plan.submission->kernels) {
      if (k.task != spec.name || (k.precision && *k.precision != p)) continue;
      KernelFile f{k.path, names.at(k.path), false};
      f.optional = !k.precision && p != Precision::fp32;  // TASK.cu: bf16 when it exports it
      group.push_back({f, ""});
    }
  return group;
}

// The contender names of the plan's user kernels (user_contender_names over all of them).
std::map<std::string, std::string> plan_kernel_names(const SuitePlan& plan) {
  std::vector<std::string> paths = plan.kernels;
  if (plan.submission)
    for (const TaskKernel& k : plan.submission->kernels) paths.push_back(k.path);
  return user_contender_names(paths);
}

}  // namespace

std::vector<SuiteGroup> plan_groups(const SuitePlan& plan, const Progress& progress, std::size_t& skipped) {
  const auto done = done_groups(plan.skip_done, !plan.eval.check_only && !plan.sanitizer);
  const auto names = plan_kernel_names(plan);
  std::vector<SuiteGroup> out;
  for (const auto& name : plan.tasks) {
    const TaskSpec& spec = get_task(name);
    for (Precision p : plan.precisions) {
      if (!plan.only_groups.empty() &&
          std::find(plan.only_groups.begin(), plan.only_groups.end(), spec.name + "|" + to_string(p)) == plan.only_groups.end())
        continue;
      auto group = group_kernels(plan, spec, p, names, progress);
      // A submission's group without a kernel of the submission: nothing to compare.
      if (plan.submission && std::none_of(group.begin(), group.end(), [&](const auto& g) { return names.count(g.first.path) > 0; })) continue;
      const auto d = done.find(spec.name + "|" + to_string(p));
      // Done: every contender is in the previous report (an optional one may have been left out).
      if (d != done.end() && !group.empty() && std::all_of(group.begin(), group.end(), [&](const auto& g) {
            return g.first.optional || d->second.count(g.first.contender) > 0;
          })) {
        ++skipped;
        continue;
      }
      SuiteGroup sg{spec.name, p, {}, {}};
      for (auto& [k, expect] : group) {
        sg.kernels.push_back(std::move(k));
        sg.expect.push_back(std::move(expect));
      }
      out.push_back(std::move(sg));
    }
  }
  return out;
}

std::vector<SuiteGroup> suite_groups(const SuitePlan& plan, std::size_t* skipped) {
  std::size_t n = 0;
  std::vector<SuiteGroup> out;
  for (auto& g : plan_groups(plan, {}, n)) {
    if (g.kernels.empty()) continue;
    out.push_back(std::move(g));
  }
  if (skipped != nullptr) *skipped = n;
  return out;
}


}  // namespace mskb

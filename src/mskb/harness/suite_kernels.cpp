// The suite's inputs: the kernel files of a task (shipped, wrong/, the adversarial corpus), their
// builds (compile_all), the GPU lanes, and the compute-sanitizer command and shapes.
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

#include "build_pool.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/process.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

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

std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs) {
  std::vector<std::shared_future<CompileResult>> futures;
  {
    BuildPool pool(opt, jobs);
    for (const auto& f : files) futures.push_back(pool.submit(f));
    pool.start();
  }  // joins the workers
  std::vector<CompileResult> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

std::vector<std::string> exported_symbols(const std::string& so_path) {
  std::string out;
  if (run_command({"nm", "-D", "--defined-only", so_path}, out, 30) != 0) return {};
  std::vector<std::string> syms;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    if (sp != std::string::npos && line.size() > sp + 1 && line[sp - 1] == 'T') syms.push_back(line.substr(sp + 1));
  }
  return syms;
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

int auto_checks_per_gpu(int cpus, double host_memory_gb, std::size_t lanes) {
  const double per_lane = static_cast<double>(std::max<std::size_t>(1, lanes));
  const double by_cpu = std::max(1, cpus) / 2.0 / per_lane, by_memory = host_memory_gb / 12.0 / per_lane;
  return static_cast<int>(std::clamp(std::floor(std::min(by_cpu, by_memory)), 1.0, 8.0));
}

int auto_timing_overlap(bool all_trusted) { return all_trusted ? 3 : 1; }

std::vector<std::string> gpu_lanes(const std::vector<int>& requested, int device_count, const char* visible_env) {
  // Ordinals as this process sees them, mapped to what a child's CUDA_VISIBLE_DEVICES must say when
  // the parent already runs under a CUDA_VISIBLE_DEVICES list (e.g. a Slurm allocation).
  std::vector<std::string> visible;
  if (visible_env && *visible_env) visible = split(visible_env, ',', /*skip_empty=*/true);
  const int count = visible.empty() ? std::max(1, device_count) : std::min<int>(std::max(1, device_count), static_cast<int>(visible.size()));
  std::vector<int> ordinals = requested;
  if (ordinals.empty())
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  std::vector<std::string> lanes;
  for (int o : ordinals) {
    if (o < 0 || o >= count)
      throw std::invalid_argument(fmt::format("--gpus: no GPU {} ({} visible)", o, count));
    const std::string id = visible.empty() ? std::to_string(o) : visible[static_cast<std::size_t>(o)];
    if (std::find(lanes.begin(), lanes.end(), id) == lanes.end()) lanes.push_back(id);
  }
  return lanes;
}

std::vector<std::string> sanitizer_wrapper(SanitizerTool tool, const std::string& path) {
  // API errors a contender handles itself (e.g. a cuDNN engine that fails its trial launch and is
  // skipped) are not memory errors; launch errors that matter fail the checks. racecheck:
  // shared-memory hazards (a missing __syncthreads) are errors. --target-processes all: the
  // runner may start a child process that loads and calls the kernel.
  return {path, "--tool", to_string(tool), "--report-api-errors", "no", "--error-exitcode", std::to_string(kSanitizerExitCode),
          "--print-limit", "5", "--target-processes", "all"};
}

std::string find_sanitizer() {
  const char* e = std::getenv("MSKB_SANITIZER");
  return find_cuda_tool("compute-sanitizer", e != nullptr ? e : "");
}

TaskSpec sanitizer_subset(const TaskSpec& spec) {
  auto smallest = [&](std::vector<Shape> shapes, std::size_t n) {
    std::stable_sort(shapes.begin(), shapes.end(), [&](const Shape& a, const Shape& b) { return spec.complexity(a) < spec.complexity(b); });
    if (shapes.size() > n) shapes.resize(n);
    return shapes;
  };
  TaskSpec s = spec;
  s.paper = smallest(spec.paper, 2);
  s.heldout = smallest(spec.heldout, 1);
  s.large.clear();
  s.seeds = 2;
  return s;
}

}  // namespace mskb

#include "mskb/harness/suite.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "mskb/util/parallel.hpp"
#include "mskb/util/process.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fixed pool of build workers; each job is a kernel file, deduplicated by path.
class BuildPool {
 public:
  BuildPool(CompileOptions opt, int jobs) : opt_(std::move(opt)), jobs_(jobs > 0 ? jobs : available_cpus()) {}
  std::shared_future<CompileResult> submit(const KernelFile& k) {
    std::lock_guard<std::mutex> lock(m_);
    auto it = futures_.find(k.path + (k.trusted ? "#t" : ""));
    if (it != futures_.end()) return it->second;
    auto p = std::make_shared<std::promise<CompileResult>>();
    auto f = p->get_future().share();
    futures_.emplace(k.path + (k.trusted ? "#t" : ""), f);
    queue_.push_back({k, p});
    return f;
  }
  void start() {
    for (int i = 0; i < jobs_; ++i)
      threads_.emplace_back([this] {
        while (true) {
          std::pair<KernelFile, std::shared_ptr<std::promise<CompileResult>>> job;
          {
            std::lock_guard<std::mutex> lock(m_);
            if (next_ >= queue_.size()) return;
            job = queue_[next_++];
          }
          CompileOptions o = opt_;
          o.allow_libraries = o.allow_libraries || job.first.trusted;
          o.binary_policy = job.first.contender != "vendor";  // vendor contenders are trusted; everything else is screened
          try {
            job.second->set_value(compile_kernel(job.first.path, o));
          } catch (const std::exception& e) {
            CompileResult r;
            r.error = std::string("build failed: ") + e.what();
            job.second->set_value(r);
          }
        }
      });
  }
  ~BuildPool() {
    for (auto& t : threads_) t.join();
  }
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

 private:
  CompileOptions opt_;
  int jobs_;
  std::mutex m_;
  std::map<std::string, std::shared_future<CompileResult>> futures_;
  std::vector<std::pair<KernelFile, std::shared_ptr<std::promise<CompileResult>>>> queue_;
  std::size_t next_ = 0;
  std::vector<std::thread> threads_;
};

struct Item {
  const TaskSpec* spec;
  Precision precision;
  KernelFile kernel;
  std::shared_future<CompileResult> build;
  std::string expect;  // wrong/ kernels: the disposition their header declares
};

json num_or_null(double x) { return std::isfinite(x) && x > 0 ? json(x) : json(nullptr); }

}  // namespace

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

std::vector<KernelFile> shipped_kernels(const TaskSpec& spec, Precision p, const std::vector<std::string>& which) {
  std::vector<KernelFile> out;
  const fs::path dir = fs::path(source_root()) / spec.folder;
  std::error_code ec;
  for (const auto& w : which) {
    if (w == "baseline") {
      const fs::path f = dir / (std::string("baseline_") + to_string(p) + ".cu");
      if (fs::exists(f, ec)) out.push_back({f.string(), "baseline", true});
    } else if (w == "vendor") {
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
    const std::string src = read_text(w.path);
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

std::vector<std::string> gpu_lanes(const std::vector<int>& requested, int device_count, const char* visible_env) {
  // Ordinals as this process sees them, mapped to what a child's CUDA_VISIBLE_DEVICES must say when
  // the parent already runs under a CUDA_VISIBLE_DEVICES list (e.g. a Slurm allocation).
  std::vector<std::string> visible;
  if (visible_env && *visible_env) {
    std::stringstream ss(visible_env);
    for (std::string v; std::getline(ss, v, ',');)
      if (!v.empty()) visible.push_back(v);
  }
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

std::vector<std::string> sanitizer_wrapper(const std::string& tool, const std::string& path) {
  if (tool != "memcheck" && tool != "racecheck")
    throw std::invalid_argument("unknown sanitizer tool '" + tool + "' (memcheck or racecheck)");
  // API errors a contender handles itself (e.g. a cuDNN engine that fails its trial launch and is
  // skipped) are not memory errors; launch errors that matter fail the checks. racecheck:
  // shared-memory hazards (a missing __syncthreads) are errors. --target-processes all: the
  // runner may start a child process that loads and calls the kernel.
  return {path, "--tool", tool, "--report-api-errors", "no", "--error-exitcode", std::to_string(disposition::kSanitizerExitCode),
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

SuiteReport run_suite(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial) {
  SuiteReport report;
  EvalOptions eval = plan.eval;
  // Random shapes besides the public ones: drawn per run unless the seed is given (recorded).
  eval.random_shapes = plan.eval.matrix_path.empty() ? plan.random_shapes : 0;
  eval.shape_seed = plan.shape_seed != 0 ? plan.shape_seed : fresh_shape_seed();
  report.shape_seed = eval.shape_seed;
  if (!eval.check_only && plan.sanitizer.empty()) {
    report.device = device_info(false, eval.runner);
    eval.ceilings = ceilings_from(report.device);
  } else {
    report.device = query_device("identify", eval.runner);
  }
  const std::vector<std::string> lanes =
      gpu_lanes(plan.gpus, report.device.value("device_count", 1), std::getenv("CUDA_VISIBLE_DEVICES"));
  report.device["lanes"] = lanes;
  std::string sanitizer;
  if (plan.sanitize_gate && plan.sanitizer.empty() && !eval.check_only) {
    sanitizer = find_sanitizer();
    if (sanitizer.empty())
      throw std::runtime_error("--sanitize: compute-sanitizer not found on PATH, in $CUDA_HOME/bin, next to nvcc or in "
                               "/usr/local/cuda/bin (set MSKB_SANITIZER)");
  }
  if (!plan.sanitizer.empty()) {
    if (plan.sanitizer != "memcheck" && plan.sanitizer != "racecheck")
      throw std::invalid_argument("unknown sanitizer tool '" + plan.sanitizer + "' (memcheck or racecheck)");
    sanitizer = find_sanitizer();
    if (sanitizer.empty())
      throw std::runtime_error("--" + plan.sanitizer + ": compute-sanitizer not found on PATH, in $CUDA_HOME/bin, next to nvcc or in "
                               "/usr/local/cuda/bin (set MSKB_SANITIZER)");
  }
  BuildPool pool(plan.compile, plan.build_jobs);
  // (task, precision) groups a previous report already has whole: every contender this run would
  // evaluate is there, finished (not waiting for its timing). They are not run again.
  // In a timed run, a correct contender without a single timed shape in that report is not done
  // either (reports written before `timing_pending` existed mark such contenders just `passed`).
  std::map<std::string, std::set<std::string>> done;
  if (plan.skip_done.is_object()) {
    const bool timed_plan = !eval.check_only && plan.sanitizer.empty();
    std::set<std::string> timed;
    for (const json& r : plan.skip_done.value("results", json::array()))
      if (r.is_object())
        timed.insert(r.value("task", std::string()) + "|" + r.value("precision", std::string()) + "|" + r.value("contender", std::string()));
    for (const json& c : plan.skip_done.value("contenders", json::array())) {
      if (!c.is_object() || c.value("timing_pending", false)) continue;
      const std::string group = c.value("task", std::string()) + "|" + c.value("precision", std::string());
      const std::string who = c.value("contender", std::string());
      if (timed_plan && is_correct(c.value("disposition", std::string())) && timed.count(group + "|" + who) == 0) continue;
      done[group].insert(who);
    }
  }
  std::vector<Item> items;
  std::size_t skipped_groups = 0;
  for (const auto& name : plan.tasks) {
    const TaskSpec& spec = get_task(name);
    for (Precision p : plan.precisions) {
      std::vector<std::pair<KernelFile, std::string>> group;  // kernel, declared disposition
      for (auto& k : shipped_kernels(spec, p, plan.contenders)) group.push_back({k, ""});
      if (std::find(plan.contenders.begin(), plan.contenders.end(), "wrong") != plan.contenders.end())
        for (const auto& w : wrong_kernels(spec)) {
          if (std::find(w.precisions.begin(), w.precisions.end(), p) == w.precisions.end()) continue;
          group.push_back({KernelFile{w.path, "wrong/" + fs::path(w.path).stem().string(), true},
                           w.expect.empty() ? std::string("(no mskb-expect header)") : w.expect});
        }
      // The adversarial corpus (tests/adversarial/<task>): user kernels (the binary policy applies),
      // each judged against its declared disposition. `mskb-gate: memcheck` kernels run only under
      // --memcheck (and then only they); `mskb-gate: timing` ones only in a timed run (mskb run).
      if (std::find(plan.contenders.begin(), plan.contenders.end(), "adversarial") != plan.contenders.end())
        for (const auto& w : adversarial_kernels(spec)) {
          if (std::find(w.precisions.begin(), w.precisions.end(), p) == w.precisions.end()) continue;
          const std::string contender = "adversarial/" + fs::path(w.path).stem().string();
          const bool timed_run = !plan.eval.check_only && plan.sanitizer.empty();
          std::string skip;
          if (w.gate == "memcheck" && plan.sanitizer != "memcheck") skip = "gate memcheck: judged only by mskb check --memcheck";
          else if (w.gate != "memcheck" && !plan.sanitizer.empty()) skip = "judged only without --" + plan.sanitizer;
          else if (w.gate == "timing" && !timed_run) skip = "gate timing: judged only by mskb run";
          if (!skip.empty()) {
            if (progress) progress(fmt::format("{} {} {}: skipped ({})", spec.name, to_string(p), contender, skip), true);
            continue;
          }
          group.push_back({KernelFile{w.path, contender, false}, w.expect.empty() ? std::string("(no mskb-expect header)") : w.expect});
        }
      for (const auto& path : plan.kernels) group.push_back({KernelFile{path, fs::path(path).stem().string(), false}, ""});
      const auto d = done.find(spec.name + "|" + to_string(p));
      if (d != done.end() && !group.empty() &&
          std::all_of(group.begin(), group.end(), [&](const auto& g) { return d->second.count(g.first.contender) > 0; })) {
        ++skipped_groups;
        continue;
      }
      for (auto& [k, expect] : group) items.push_back({&spec, p, k, pool.submit(k), expect});
    }
  }
  if (skipped_groups > 0 && progress)
    progress(fmt::format("skipping {} (task, precision) group{} already complete in the previous report", skipped_groups,
                         skipped_groups == 1 ? "" : "s"),
             true);
  pool.start();

  // Work units: a timed run keeps one (task, precision) on one GPU, so baseline, vendor and the
  // candidates it compares are timed on the same device, one evaluation per GPU at a time. A
  // correctness-only run (check, memcheck) takes items one by one, `checks_per_gpu` per GPU. A
  // timed run with checks_per_gpu > 1 goes in two phases: every contender's checks first, several
  // per GPU at once (checking needs no exclusive GPU), then, one per GPU and grouped as above,
  // the timing part of those that passed (the timed shapes re-checked with the timed seed, then
  // timed) while nothing else runs on that GPU.
  const bool check_only = eval.check_only || !plan.sanitizer.empty();
  const bool two_phase = !check_only && plan.checks_per_gpu > 1;
  auto make_units = [&](bool grouped) {
    std::vector<std::vector<std::size_t>> units;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (grouped && !units.empty()) {
        const Item& prev = items[units.back().front()];
        if (prev.spec == items[i].spec && prev.precision == items[i].precision) {
          units.back().push_back(i);
          continue;
        }
      }
      units.push_back({i});
    }
    return units;
  };

  std::vector<std::optional<ContenderRun>> results(items.size());
  std::mutex progress_mutex, partial_mutex;
  std::atomic<std::size_t> started{0};
  auto say = [&](const std::string& line, bool final_line) {
    std::lock_guard<std::mutex> lock(progress_mutex);
    progress(line, final_line);
  };
  // One item, one part ("all", "checks" or "timing"). `prior` is this item's checks part, when
  // the run is two-phase: a contender that failed it is not timed, one that passed adds its counts.
  auto run_item = [&](Item& it, const std::string& lane, const std::string& part, const std::optional<ContenderRun>* prior) {
    // Skipped or failed its checks (a declared kernel that failed as declared too): not timed.
    if (prior && !(*prior && is_correct((*prior)->result.disposition))) return *prior;
    const std::size_t idx = ++started;
    const std::string label = fmt::format("[{:>3}/{}] {} {} {}{}{}", idx, items.size(), it.spec->name, to_string(it.precision),
                                          it.kernel.contender, lanes.size() > 1 ? " (gpu " + lane + ")" : "",
                                          part == "all" ? "" : " " + part);
    say(label + ": building", false);
    ContenderRun run;
    run.build = it.build.get();
    run.gpu = lane;
    run.expect = it.expect;
    ContenderResult& r = run.result;
    r.task = it.spec->name;
    r.precision = to_string(it.precision);
    r.contender = it.kernel.contender;
    r.kernel = it.kernel.path;
    if (!run.build.ok) {
      const bool missing = run.build.error.rfind("kernel file not found", 0) == 0;
      const bool refused = run.build.refused_policy || run.build.error.find("not allowed") != std::string::npos || run.build.error.find("whitelist") != std::string::npos ||
                           run.build.error.find("unknown library") != std::string::npos;
      r.disposition = missing ? disposition::harness_error : refused ? disposition::rejected_static : disposition::compile_error;
      r.message = run.build.error;
    } else {
      const auto syms = exported_symbols(run.build.so_path);
      const std::string sym = it.spec->symbol(it.precision);
      auto exports = [&](const std::string& s) { return std::find(syms.begin(), syms.end(), s) != syms.end(); };
      if (!syms.empty() && !exports(sym) && !it.kernel.trusted && plan.skip_missing_precisions &&
          (exports(it.spec->symbol(Precision::fp32)) || exports(it.spec->symbol(Precision::bf16)))) {
        say(label + ": skipped (exports no " + sym + ")", true);
        return std::optional<ContenderRun>{};
      }
      if (!syms.empty() && !exports(sym)) {
        r.disposition = disposition::missing_entry;
        r.message = "missing_entry: " + fs::path(it.kernel.path).filename().string() + " does not export " + it.spec->signature(it.precision);
      } else {
        say(label + ": evaluating", false);
        EvalOptions e = eval;
        e.part = part;
        if (lanes.size() > 1 || !plan.gpus.empty()) e.env.push_back({"CUDA_VISIBLE_DEVICES", lane});
        if (!plan.sanitizer.empty()) {
          e.check_only = true;
          e.seeds = 2;  // the least (the second in the first's buffers): the sanitizer checks accesses, values were checked with every seed without it
          e.wrapper = sanitizer_wrapper(plan.sanitizer, sanitizer);
          e.call_timeout_scale *= 20;  // instrumented kernels run far slower
        }
        // The sanitizer gate of a timed run: memcheck and racecheck before the timing (vendor
        // contenders are trusted library code).
        const bool gate = plan.sanitize_gate && plan.sanitizer.empty() && !eval.check_only && part != "checks" &&
                          it.kernel.contender != "vendor";
        std::vector<std::string> sanitized;
        double gate_s = 0;
        if (gate)
          for (const char* tool : {"memcheck", "racecheck"}) {
            say(label + ": " + tool + " on " + kSanitizerShapes, false);
            EvalOptions g = e;
            g.part = "all";
            g.check_only = true;
            g.random_shapes = 0;
            g.wrapper = sanitizer_wrapper(tool, sanitizer);
            g.call_timeout_scale *= 20;
            const ContenderResult sr = evaluate(sanitizer_subset(*it.spec), it.precision, it.kernel.contender, it.kernel.path,
                                                run.build.so_path, g);
            gate_s += sr.seconds;
            if (sr.disposition != disposition::passed) {
              r = sr;
              r.seconds = 0;  // counted in gate_s
              r.message = std::string(tool) + " on " + kSanitizerShapes + ": " + sr.message;
              break;
            }
            sanitized.push_back(tool);
          }
        if (!gate || r.disposition == disposition::not_run) {
          r = evaluate(*it.spec, it.precision, it.kernel.contender, it.kernel.path, run.build.so_path, e);
          r.sanitized = sanitized;
        }
        if (gate) {
          r.seconds += gate_s;
          r.phase_seconds["sanitizer"] += gate_s;
          r.sanitized = sanitized;
        }
        if (prior) {
          r.checks_passed += (*prior)->result.checks_passed;
          r.checks_total += (*prior)->result.checks_total;
          r.seconds += (*prior)->result.seconds;
          for (const auto& [k, v] : (*prior)->result.phase_seconds) r.phase_seconds[k] += v;
        }
      }
    }
    say(fmt::format("{}: {}{}{}{} ({:.1f} s{})", label, r.disposition,
                    r.sanitized.empty() ? "" : " (" + r.sanitized.front() + (r.sanitized.size() > 1 ? " + " + r.sanitized.back() : "") + " clean)",
                    it.expect.empty() ? "" : (r.disposition == it.expect ? " (as declared)" : " (DECLARED " + it.expect + ")"),
                    r.message.empty() ? "" : " - " + r.message,
                    r.seconds + run.build.seconds, run.build.cache_hit ? ", cached build" : ""),
        true);
    return std::optional<ContenderRun>{std::move(run)};
  };
  // Runs `units` on `per_lane` workers per GPU lane.
  auto run_phase = [&](const std::vector<std::vector<std::size_t>>& units, int per_lane, const std::string& part,
                       const std::vector<std::optional<ContenderRun>>* prior) {
    started = 0;
    std::atomic<std::size_t> next_unit{0};
    const std::size_t workers =
        std::max<std::size_t>(1, std::min(units.size(), lanes.size() * static_cast<std::size_t>(std::max(1, per_lane))));
    auto worker = [&](std::size_t w) {
      const std::string& lane = lanes[w % lanes.size()];
      for (std::size_t u; (u = next_unit++) < units.size();)
        for (std::size_t i : units[u]) {
          std::optional<ContenderRun> r = run_item(items[i], lane, part, prior ? &(*prior)[i] : nullptr);
          std::lock_guard<std::mutex> lock(partial_mutex);
          results[i] = std::move(r);
          if (!on_partial) continue;
          SuiteReport so_far;
          so_far.device = report.device;
          so_far.shape_seed = report.shape_seed;
          so_far.partial = true;
          for (std::size_t k = 0; k < items.size(); ++k) {
            if (results[k]) so_far.runs.push_back(*results[k]);
            else if (prior && (*prior)[k]) {  // checked, not yet timed
              so_far.runs.push_back(*(*prior)[k]);
              so_far.runs.back().timing_pending = is_correct(so_far.runs.back().result.disposition);
            }
          }
          on_partial(so_far);
        }
    };
    if (workers == 1) {
      worker(0);
      return;
    }
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(worker, w);
    for (auto& t : threads) t.join();
  };
  if (check_only) {
    run_phase(make_units(false), plan.checks_per_gpu, "all", nullptr);
  } else if (!two_phase) {
    run_phase(make_units(true), 1, "all", nullptr);
  } else {
    run_phase(make_units(false), plan.checks_per_gpu, "checks", nullptr);
    const std::vector<std::optional<ContenderRun>> checked = std::move(results);
    results.assign(items.size(), std::nullopt);
    run_phase(make_units(true), 1, "timing", &checked);
  }
  for (auto& r : results)
    if (r) report.runs.push_back(std::move(*r));
  return report;
}

json SuiteReport::to_json() const {
  json results = json::array(), scores = json::array(), contenders = json::array();
  // Index timings of baseline and vendor per (task, precision, sweep, shape).
  std::map<std::string, double> base, vend;
  auto key = [](const ContenderResult& r, const ShapeTiming& t) { return r.task + "|" + r.precision + "|" + t.sweep + "|" + t.shape.str(); };
  for (const auto& run : runs) {
    const auto& r = run.result;
    if (!is_correct(r.disposition)) continue;
    for (const auto& t : r.timings) {
      if (r.contender == "baseline") base[key(r, t)] = t.time.median_us;
      if (r.contender == "vendor") vend[key(r, t)] = t.time.median_us;
    }
  }
  for (const auto& run : runs) {
    const auto& r = run.result;
    contenders.push_back({{"task", r.task},
                          {"precision", r.precision},
                          {"contender", r.contender},
                          {"kernel", r.kernel},
                          {"disposition", r.disposition},
                          {"message", r.message},
                          {"checks_passed", r.checks_passed},
                          {"checks_total", r.checks_total},
                          {"failure", r.failure},
                          {"build", {{"ok", run.build.ok}, {"cache_hit", run.build.cache_hit}, {"seconds", run.build.seconds}, {"key", run.build.key}}},
                          {"seconds", r.seconds},
                          {"phase_seconds", r.phase_seconds},
                          {"gpu", run.gpu.empty() ? json(nullptr) : json(run.gpu)},
                          {"expect", run.expect.empty() ? json(nullptr) : json(run.expect)}});
    if (run.timing_pending) contenders.back()["timing_pending"] = true;
    if (!r.sanitized.empty()) contenders.back()["sanitized"] = {{"tools", r.sanitized}, {"shapes", kSanitizerShapes}};
    std::map<std::string, std::vector<WeightedSample>> weighted;
    std::map<std::string, std::vector<double>> speedups;
    for (const auto& t : r.timings) {
      const auto b = base.find(key(r, t));
      const auto v = vend.find(key(r, t));
      const double s = b != base.end() ? speedup(b->second, t.time.median_us) : 0;
      const double rv = v != vend.end() ? ratio_vs_vendor(v->second, t.time.median_us) : 0;
      results.push_back({{"task", r.task},
                         {"precision", r.precision},
                         {"contender", r.contender},
                         {"sweep", t.sweep},
                         {"shape", t.shape},
                         {"complexity", t.complexity},
                         {"disposition", is_correct(r.disposition) ? t.disposition : r.disposition},
                         {"time_us", {{"median", t.time.median_us}, {"min", t.time.min_us}, {"max", t.time.max_us}, {"n", t.time.n},
                                      {"noise", t.time.noise}, {"wall_median", t.time.wall_median_us}}},
                         {"sm_clock_mhz", t.time.sm_clock_mhz},
                         {"roofline_us", num_or_null(t.roofline_us)},
                         {"speedup_vs_baseline", num_or_null(s)},
                         {"ratio_vs_vendor", num_or_null(rv)},
                         {"sol_fraction", num_or_null(t.roofline_us > 0 ? sol_fraction(t.roofline_us, t.time.median_us) : 0)},
                         // Other processes on the GPU around the samples (null: not known).
                         {"gpu_others", t.time.gpu_others >= 0 ? json(t.time.gpu_others) : json(nullptr)}});
      if (t.time.gpu_others > 0) results.back()["gpu_other_pids"] = t.time.gpu_other_pids;
      if (s > 0 && is_correct(r.disposition)) {
        weighted[t.sweep].push_back({t.complexity, s});
        speedups[t.sweep].push_back(s);
      }
    }
    for (const auto& [sweep, w] : weighted) {
      const auto P = complexity_weighted(w);
      const auto g = geomean(speedups[sweep]);
      scores.push_back({{"task", r.task}, {"precision", r.precision}, {"contender", r.contender}, {"sweep", sweep},
                        {"P", P ? json(*P) : json(nullptr)}, {"geomean", g ? json(*g) : json(nullptr)}});
    }
  }
  json out = {{"device", device}, {"contenders", contenders}, {"results", results}, {"scores", scores}};
  if (shape_seed != 0) out["shape_seed"] = shape_seed;
  if (partial) out["partial"] = true;
  return out;
}

std::string SuiteReport::markdown() const { return render_markdown(to_json()); }

std::vector<std::string> expected_groups(const std::vector<std::string>& selectors) {
  std::vector<std::string> out;
  auto add = [&](const TaskSpec& t) {
    for (Precision p : {Precision::fp32, Precision::bf16}) {  // every task has both
      const std::string g = t.name + "|" + to_string(p);
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
  };
  for (const std::string& sel : selectors) {
    bool matched = false;
    for (const TaskSpec& t : all_tasks())
      if (sel == "all" || t.category == sel) {
        add(t);
        matched = true;
      }
    if (!matched) add(get_task(sel));  // throws on an unknown name
  }
  return out;
}

namespace {

// Whether report `r` holds the (task, precision) group whole (see merge_reports).
// A report's array member, by reference (json::value() would copy it), or an empty array.
const json& array_of(const json& r, const char* key) {
  static const json empty = json::array();
  const auto it = r.find(key);
  return it != r.end() && it->is_array() ? *it : empty;
}

bool group_whole(const json& r, const std::string& task, const std::string& precision) {
  const TaskSpec* spec = find_task(task);
  if (spec == nullptr) return false;
  if (precision != "fp32" && precision != "bf16") return false;
  const Precision p = parse_precision(precision);
  const json& results = array_of(r, "results");
  const bool timed = !results.empty();
  std::set<std::string> finished, timed_ok;
  for (const json& x : results)
    if (x.value("task", "") == task && x.value("precision", "") == precision) timed_ok.insert(x.value("contender", ""));
  for (const json& c : array_of(r, "contenders")) {
    if (c.value("task", "") != task || c.value("precision", "") != precision) continue;
    if (c.value("timing_pending", false)) return false;
    const std::string who = c.value("contender", "");
    if (timed && is_correct(c.value("disposition", "")) && timed_ok.count(who) == 0) return false;
    finished.insert(who);
  }
  for (const KernelFile& k : shipped_kernels(*spec, p, {"baseline", "vendor"}))
    if (finished.count(k.contender) == 0) return false;
  return true;
}

}  // namespace

json merge_reports(const std::vector<json>& reports, const std::vector<std::string>& expect) {
  if (reports.empty()) throw std::invalid_argument("merge: no reports");
  json out = {{"device", json::object()}, {"contenders", json::array()}, {"results", json::array()}, {"scores", json::array()}};
  bool partial = false;
  std::string name;
  // (task, precision) groups, each from the last report that has it: speedups and scores compare
  // contenders measured in the same run, so a group is never assembled from two runs.
  std::map<std::string, std::size_t> owner;
  auto group = [](const json& e) { return e.value("task", std::string()) + "|" + e.value("precision", std::string()); };
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    if (!r.is_object() || !r.contains("contenders") || !r["contenders"].is_array() || !r.contains("device"))
      throw std::invalid_argument("merge: report " + std::to_string(i + 1) + " is not an mskb run/check JSON report");
    const std::string n = r["device"].value("name", std::string());
    if (i == 0) {
      name = n;
      out["device"] = r["device"];
    } else if (n != name) {
      throw std::invalid_argument("merge: reports from different GPU models (" + name + " and " + n + ")");
    }
    partial = partial || r.value("partial", false);
    for (const json& c : r["contenders"]) owner[group(c)] = i;
  }
  for (std::size_t i = 0; i < reports.size(); ++i)
    for (const char* k : {"contenders", "results", "scores"})
      for (const json& e : array_of(reports[i], k))
        if (owner.count(group(e)) && owner[group(e)] == i) out[k].push_back(e);
  if (!expect.empty()) {
    json incomplete = json::array();
    for (const std::string& g : expect) {
      const auto o = owner.find(g);
      const std::size_t bar = g.find('|');
      if (o == owner.end() || !group_whole(reports[o->second], g.substr(0, bar), g.substr(bar + 1))) incomplete.push_back(g);
    }
    partial = !incomplete.empty();
    if (partial) out["incomplete_groups"] = incomplete;
  }
  if (partial) out["partial"] = true;
  return out;
}

namespace {
// "N=1024,M=8" from a report's shape object (its "_order" key left out).
std::string shape_label(const json& shape) {
  std::string out;
  for (auto it = shape.begin(); it != shape.end(); ++it)
    if (it.key() != "_order") out += (out.empty() ? "" : ",") + it.key() + "=" + std::to_string(it.value().get<int64_t>());
  return out;
}

// "task prec contender shape (PIDs)" of every timed shape that had other processes on its GPU.
std::vector<std::string> shared_gpu_shapes(const json& j) {
  std::vector<std::string> out;
  if (!j.contains("results")) return out;
  for (const auto& r : j["results"]) {
    if (!r.contains("gpu_others") || !r["gpu_others"].is_number_integer() || r["gpu_others"].get<int>() <= 0) continue;
    std::string pids;
    for (const auto& p : r.value("gpu_other_pids", json::array())) pids += (pids.empty() ? "" : " ") + std::to_string(p.get<uint64_t>());
    out.push_back(fmt::format("{} {} {} {} {} (PID {})", r["task"].get<std::string>(), r["precision"].get<std::string>(),
                              r["contender"].get<std::string>(), r.value("sweep", ""), shape_label(r["shape"]), pids));
  }
  return out;
}

// The warning about those shapes (empty when none): a heading wrapped in `emphasis` and ended by
// `after_heading`, then one `bullet` line per shape (at most 20).
std::string shared_gpu_warning(const json& j, const std::string& emphasis, const char* after_heading, const char* bullet) {
  const auto shared = shared_gpu_shapes(j);
  if (shared.empty()) return "";
  std::string out = fmt::format(
      "{0}WARNING: {1} timed shape(s) ran while other processes held a context on the GPU; their times (and the speedups "
      "computed from them) may be slowed by sharing it:{0}{2}",
      emphasis, shared.size(), after_heading);
  for (std::size_t i = 0; i < shared.size() && i < 20; ++i) out += bullet + shared[i] + "\n";
  if (shared.size() > 20) out += fmt::format("{}... and {} more\n", bullet, shared.size() - 20);
  return out;
}
}  // namespace

std::string render_markdown(const json& j) {
  std::string out = "# mskb run\n\n";
  if (const std::string w = shared_gpu_warning(j, "**", "\n\n", "- "); !w.empty()) out += w + "\n";
  if (j.contains("incomplete_groups")) {
    std::string groups;
    for (const auto& g : j["incomplete_groups"]) groups += (groups.empty() ? "" : ", ") + g.get<std::string>();
    out += "**Partial report: these (task, precision) groups are missing or not finished: " + groups + ".**\n\n";
  } else if (j.value("partial", false)) {
    out += "**Partial report: the run was still going when this was written.**\n\n";
  }
  const json& d = j["device"];
  out += fmt::format("Device: {} ({} SMs), measured DRAM {:.0f} GB/s, FP32 {:.1f} TFLOP/s, BF16 {:.1f} TFLOP/s.\n\n",
                     d.value("name", "?"), d.value("sms", 0), d.value("dram_bandwidth_gbs", 0.0), d.value("fp32_tflops", 0.0),
                     d.value("bf16_tflops", 0.0));
  out += "Speedup = baseline time / contender time; vs vendor = vendor time / contender time (> 1: faster than the vendor); "
         "SOL = roofline time / contender time. Times are medians of cold-L2 samples (CUDA events around the entry point).\n\n";
  // P and geomean per timed sweep (paper first), as columns when more than one sweep was timed.
  std::vector<std::string> sweeps;
  for (const auto& s : j["scores"]) {
    const std::string w = s.value("sweep", "paper");
    if (std::find(sweeps.begin(), sweeps.end(), w) == sweeps.end()) sweeps.push_back(w);
  }
  std::stable_sort(sweeps.begin(), sweeps.end(), [](const std::string& a, const std::string& b) { return a == "paper" && b != "paper"; });
  if (sweeps.empty()) sweeps.push_back("paper");
  std::string head = "| task | prec | contender | disposition | checks |", rule = "|---|---|---|---|---|";
  for (const auto& w : sweeps) {
    head += sweeps.size() > 1 ? " P " + w + " | geomean " + w + " |" : std::string(" P | geomean |");
    rule += "---|---|";
  }
  out += "## Summary (complexity-weighted speedup P and geomean over the " +
         (sweeps.size() > 1 ? std::string("timed sweeps") : sweeps.front() + " sweep") + ")\n\n" + head +
         " vs vendor (geomean) | best SOL |\n" + rule + "---|---|\n";
  for (const auto& c : j["contenders"]) {
    std::string PG, V = "-", S = "-";
    for (const auto& w : sweeps) {
      std::string P = "-", G = "-";
      for (const auto& s : j["scores"])
        if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s.value("sweep", "paper") == w) {
          if (!s["P"].is_null()) P = fmt::format("{:.2f}", s["P"].get<double>());
          if (!s["geomean"].is_null()) G = fmt::format("{:.2f}", s["geomean"].get<double>());
        }
      PG += " " + P + " | " + G + " |";
    }
    std::vector<double> vv, sol;
    for (const auto& r : j["results"])
      if (r["task"] == c["task"] && r["precision"] == c["precision"] && r["contender"] == c["contender"]) {
        if (!r["ratio_vs_vendor"].is_null()) vv.push_back(r["ratio_vs_vendor"]);
        if (!r["sol_fraction"].is_null()) sol.push_back(r["sol_fraction"]);
      }
    if (auto g = geomean(vv)) V = fmt::format("{:.2f}", *g);
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    out += fmt::format("| {} | {} | {} | {} | {}/{} |{} {} | {} |\n", c["task"].get<std::string>(), c["precision"].get<std::string>(),
                       c["contender"].get<std::string>(),
                       c["disposition"].get<std::string>() + (c.value("timing_pending", false) ? " (checks; timing pending)" : ""),
                       c["checks_passed"].get<int>(),
                       c["checks_total"].get<int>(), PG, V, S);
  }
  out += "\n## Per shape\n\n| task | prec | contender | sweep | shape | median us | n | noise | speedup | vs vendor | SOL | SM MHz |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto f2 = [](const json& x) { return x.is_null() ? std::string("-") : fmt::format("{:.2f}", x.get<double>()); };
  for (const auto& r : j["results"]) {
    const std::string shape = shape_label(r["shape"]);
    out += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {} | {:.2f}% | {} | {} | {} | {:.0f} |\n", r["task"].get<std::string>(),
                       r["precision"].get<std::string>(), r["contender"].get<std::string>(), r["sweep"].get<std::string>(), shape,
                       r["time_us"]["median"].get<double>(), r["time_us"]["n"].get<int>(), 100 * r["time_us"]["noise"].get<double>(),
                       f2(r["speedup_vs_baseline"]), f2(r["ratio_vs_vendor"]),
                       r["sol_fraction"].is_null() ? std::string("-") : fmt::format("{:.0f}%", 100 * r["sol_fraction"].get<double>()),
                       r["sm_clock_mhz"].get<double>());
  }
  // Where each contender's evaluation time went (runner phases, both parts of a two-phase run).
  out += "\n## Evaluation time by phase (seconds)\n\n| task | prec | contender | generate | reference | check | timing | total |\n"
         "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : j["contenders"]) {
    const json ps = c.value("phase_seconds", json::object());
    auto sec = [&](const char* k) { return fmt::format("{:.1f}", ps.value(k, 0.0)); };
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.1f} |\n", c["task"].get<std::string>(), c["precision"].get<std::string>(),
                       c["contender"].get<std::string>(), sec("generate"), sec("reference"), sec("check"), sec("timing"),
                       c.value("seconds", 0.0));
  }
  return out;
}

std::string SuiteReport::table() const {
  const json j = to_json();
  std::string out = fmt::format("{:<22} {:<5} {:<12} {:<17} {:>8} {:>8} {:>9} {:>8} {:>10}\n", "task", "prec", "contender",
                                "disposition", "P", "geomean", "vs vendor", "best SOL", "median(us)");
  for (const auto& c : j["contenders"]) {
    std::string P = "-", G = "-", V = "-", S = "-", T = "-";
    for (const auto& s : j["scores"])
      if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s["sweep"] == "paper") {
        if (!s["P"].is_null()) P = fmt::format("{:.2f}", s["P"].get<double>());
        if (!s["geomean"].is_null()) G = fmt::format("{:.2f}", s["geomean"].get<double>());
      }
    std::vector<double> vv, sol;
    double largest = 0;
    for (const auto& r : j["results"])
      if (r["task"] == c["task"] && r["precision"] == c["precision"] && r["contender"] == c["contender"]) {
        if (!r["ratio_vs_vendor"].is_null()) vv.push_back(r["ratio_vs_vendor"]);
        if (!r["sol_fraction"].is_null()) sol.push_back(r["sol_fraction"]);
        largest = r["time_us"]["median"];
      }
    if (auto g = geomean(vv)) V = fmt::format("{:.2f}", *g);
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    if (largest > 0) T = fmt::format("{:.1f}", largest);
    out += fmt::format("{:<22} {:<5} {:<12} {:<17} {:>8} {:>8} {:>9} {:>8} {:>10}\n", c["task"].get<std::string>(),
                       c["precision"].get<std::string>(), c["contender"].get<std::string>().substr(0, 12),
                       c["disposition"].get<std::string>(), P, G, V, S, T);
  }
  return out + shared_gpu_warning(j, "", "\n", "  ");
}

}  // namespace mskb

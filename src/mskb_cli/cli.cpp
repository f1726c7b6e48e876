// The mskb command line: list | device | run | check | build. Thin: parsing and printing only;
// the work is in mskb_core (suite.hpp, evaluator.hpp, compiler.hpp).
#include "mskb/cli.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "mskb/util/files.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/harness/protocol.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/suite.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

bool stderr_is_tty() { return ::isatty(2) == 1; }

Progress stderr_progress(bool quiet) {
  return [quiet](const std::string& line, bool final_line) {
    if (quiet) return;
    if (stderr_is_tty()) {
      std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
    } else if (final_line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  };
}

std::vector<Precision> parse_precisions(const std::string& s) {
  if (s == "all") return {Precision::fp32, Precision::bf16};
  return {parse_precision(s)};
}

// Atomic: a reader (or a run killed mid-write) sees the old file or the new one, never half.
void write_text(const std::string& text, const std::string& path) { write_file_atomic(path, text); }

void write_json(const json& j, const std::string& path) {
  if (path == "-") {
    std::cout << j.dump(2) << "\n";
    return;
  }
  write_text(j.dump(2) + "\n", path);
}

int cmd_list(const std::string& category, bool as_json) {
  json out = json::array();
  for (const auto& t : all_tasks()) {
    if (!category.empty() && t.category != category) continue;
    out.push_back({{"name", t.name},
                   {"category", t.category},
                   {"precisions", {"fp32", "bf16"}},
                   {"vendor", t.vendor.empty() ? json(nullptr) : json(t.vendor)},
                   {"sweeps", {{"paper", t.paper.size()}, {"heldout", t.heldout.size()}, {"large", t.large.size()}}},
                   {"signature", {{"fp32", t.signature(Precision::fp32)}, {"bf16", t.signature(Precision::bf16)}}},
                   {"paper_shapes", t.paper}});
  }
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", "task", "category", "paper", "heldout", "large", "vendor");
  for (const auto& t : out)
    std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", t["name"].get<std::string>(), t["category"].get<std::string>(),
                             t["sweeps"]["paper"].get<int>(), t["sweeps"]["heldout"].get<int>(), t["sweeps"]["large"].get<int>(),
                             t["vendor"].is_null() ? "none" : t["vendor"].get<std::string>());
  std::cout << out.size() << " tasks x {fp32, bf16}\n";
  return 0;
}

int cmd_device(bool as_json, bool refresh) {
  const json d = device_info(refresh, "");
  if (as_json) {
    std::cout << d.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} ({}, sm {}, {} SMs)\n", d.value("name", "?"), d.value("uuid", "?"), d.value("compute_capability", "?"),
                           d.value("sms", 0));
  std::cout << fmt::format("  DRAM bandwidth  {:>8.0f} GB/s (copy, read+write)\n", d.value("dram_bandwidth_gbs", 0.0));
  std::cout << fmt::format("  FP32 peak       {:>8.1f} TFLOP/s (cublasSgemm)\n", d.value("fp32_tflops", 0.0));
  std::cout << fmt::format("  BF16 peak       {:>8.1f} TFLOP/s (cublasGemmEx)\n", d.value("bf16_tflops", 0.0));
  std::cout << (d.value("cached", false) ? "  (cached; --refresh re-measures)\n" : "  (measured now)\n");
  return 0;
}

}  // namespace

int mskb_main(int argc, char** argv) {
  CLI::App app{"mskb - MSKernelBench: a multi-scenario CUDA kernel benchmark with a harness that cannot be fooled"};
  app.require_subcommand(1);

  std::string category;
  bool list_json = false;
  auto* list = app.add_subcommand("list", "List the tasks");
  list->add_option("--category", category, "algebra | llm | sparse | scientific");
  list->add_flag("--json", list_json, "JSON output");

  bool dev_json = false, dev_refresh = false;
  auto* device = app.add_subcommand("device", "Show the GPU and its measured ceilings (DRAM bandwidth, FP32/BF16 peaks)");
  device->add_flag("--json", dev_json, "JSON output");
  device->add_flag("--refresh", dev_refresh, "Measure again instead of using the cached ceilings");

  // run and check share most options.
  std::vector<std::string> task_list;
  std::string run_category, skip_done_path;
  std::string precision = "all", sweep = "paper", contenders = "baseline,vendor", json_path, arch;
  std::vector<std::string> kernels, flags;
  bool all = false, allow_libraries = false, quiet = false, memcheck = false, racecheck = false;
  int seeds = 3, jobs = 0, checks_per_gpu = 1;
  uint64_t shape_seed = 0;
  std::vector<int> gpus;
  double timeout = 0, budget = 0.25;
  auto add_common = [&](CLI::App* c) {
    c->add_option("--task", task_list, "Task name(s) (mskb list); comma-separated or repeated")->delimiter(',');
    c->add_option("--kernel", kernels, "Kernel file(s) exporting the MSKernelBench entry point");
    c->add_option("--precision", precision, "fp32 | bf16 | all")->check(CLI::IsMember({"fp32", "bf16", "all"}));
    c->add_option("--seeds", seeds, "Correctness seeds per paper/held-out shape (>= 3)")->check(CLI::Range(3, 100));
    c->add_option("--shape-seed", shape_seed,
                  "Seed of the random shapes checked besides paper + held-out (default: a fresh one per run, recorded in the report)");
    c->add_option("--arch", arch, "CUDA arch for kernel builds, e.g. 90 or 90a");
    c->add_option("--flag", flags, "Extra nvcc flag for kernel builds (whitelisted)");
    c->add_flag("--allow-libraries", allow_libraries, "Let user kernels link vendor libraries (// mskb-link:)");
    c->add_option("--timeout", timeout, "Per-call watchdog in seconds (default: the task's)");
    c->add_option("--json", json_path, "Write the JSON report to FILE (- for stdout)");
    c->add_option("-j,--jobs", jobs, "Parallel nvcc builds (default: all cores)");
    c->add_flag("-q,--quiet", quiet, "No progress on stderr");
    c->add_option("--gpus", gpus, "GPU ordinals to spread the work over, e.g. 0,1 (default: every visible GPU)")->delimiter(',');
    c->add_flag("--all", all, "Every task");
    c->add_option("--category", run_category, "Every task of one category: algebra | llm | sparse | scientific")
        ->check(CLI::IsMember({"algebra", "llm", "sparse", "scientific"}));
    c->add_option("--checks-per-gpu", checks_per_gpu,
                  "Correctness checks of this many contenders at once per GPU (checking needs no exclusive GPU); "
                  "run: then the timing, one contender per GPU (default 1: check and time each in one pass)")
        ->check(CLI::Range(1, 64));
    c->add_option("--skip-done", skip_done_path,
                  "A previous --json report (e.g. of a killed run): skip its complete (task, precision) groups; "
                  "join the two with mskb merge")
        ->check(CLI::ExistingFile);
    c->add_option("--contenders", contenders, "Shipped contenders: baseline,vendor (or none); check also takes wrong (each wrong/ kernel must get its declared disposition); "
                  "adversarial: the tests/adversarial/<task> corpus, judged like wrong/ kernels (run too: the timing-gated ones)");
  };
  auto* run = app.add_subcommand("run", "Check, then time baseline, vendor and your kernels in one run, and score them");
  add_common(run);
  run->add_option("--sweep", sweep, "Sizes to time: paper | large | heldout | all, or a list such as paper,large");
  run->add_option("--budget", budget, "Timing budget per shape in seconds");
  std::string md_path, matrix_path;
  run->add_option("--markdown", md_path, "Also write a Markdown report to FILE");
  run->add_option("--matrix", matrix_path, "Sparse tasks: check and time every contender on this Matrix Market file");
  bool sanitize_gate = false;
  run->add_flag("--sanitize", sanitize_gate,
                "Before timing a contender (not vendor), run compute-sanitizer memcheck and racecheck on its smallest shapes; "
                "a report makes it sanitizer_error");
  auto* check = app.add_subcommand("check", "Correctness only: every shape (paper + held-out), several seeds, every element");
  add_common(check);
  std::string check_sweep;
  check->add_option("--sweep", check_sweep, "Sizes to check besides paper + held-out + random: large | all (the sweeps mskb run times)");
  check->add_flag("--memcheck", memcheck, "Run under compute-sanitizer memcheck instead (1 seed per shape, no guard zones)");
  check->add_flag("--racecheck", racecheck, "Run under compute-sanitizer racecheck instead (shared-memory hazards; 1 seed per shape)")
      ->excludes("--memcheck");


  std::string build_task;
  bool build_all = false;
  auto* build = app.add_subcommand("build", "Build (and cache) kernels without a GPU: the shipped ones of a task, --all, or --kernel files");
  build->add_option("--task", build_task, "Task name");
  build->add_flag("--all", build_all, "Every task's baselines, vendor contenders, wrong/ kernels and adversarial corpus (tests/adversarial)");
  build->add_option("--kernel", kernels, "Kernel file(s)");
  build->add_option("-j,--jobs", jobs, "Parallel nvcc builds");
  build->add_option("--arch", arch, "CUDA arch");
  bool build_json = false;
  build->add_flag("--json", build_json, "JSON output: [{kernel, ok, so, cache_hit, seconds, error, diagnostics, policy, expect}]");
  build->add_flag("--allow-libraries", allow_libraries, "Let --kernel files link vendor libraries (// mskb-link:)");

  std::vector<std::string> merge_inputs;
  std::string merge_json, merge_md;
  std::vector<std::string> merge_expect;
  auto* merge = app.add_subcommand("merge", "Merge mskb run/check JSON reports (e.g. one per category or cluster job) into one JSON and Markdown");
  merge->add_option("reports", merge_inputs, "JSON reports; a (task, precision) group comes whole from the last report that has it")
      ->required()
      ->check(CLI::ExistingFile);
  merge->add_option("--json", merge_json, "Write the merged JSON report to FILE (- for stdout)");
  merge->add_option("--markdown", merge_md, "Write the merged Markdown report to FILE (default: stdout when no --json)");
  merge->add_option("--expect", merge_expect,
                    "all | CATEGORY | TASK (comma-separated or repeated): the merge must hold these tasks' groups whole; "
                    "partial, naming the missing ones, otherwise")
      ->delimiter(',');

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*list) return cmd_list(category, list_json);
    if (*merge) {
      std::vector<json> reports;
      for (const auto& f : merge_inputs) {
        std::ifstream in(f);
        json j = json::parse(in, nullptr, false);
        if (j.is_discarded()) throw std::invalid_argument("merge: " + f + " is not valid JSON");
        reports.push_back(std::move(j));
      }
      const json merged = merge_reports(reports, expected_groups(merge_expect));
      if (!merge_json.empty()) write_json(merged, merge_json);
      if (!merge_md.empty()) write_text(render_markdown(merged), merge_md);
      if (merge_json.empty() && merge_md.empty()) std::cout << render_markdown(merged);
      std::string state;
      if (merged.contains("incomplete_groups")) {
        state = fmt::format(" (partial: {} expected groups missing or not finished:", merged["incomplete_groups"].size());
        for (const auto& g : merged["incomplete_groups"]) state += " " + g.get<std::string>();
        state += ")";
      } else if (merged.value("partial", false)) {
        state = " (partial: a report was partial; --expect checks whether the merge is whole)";
      } else if (!merge_expect.empty()) {
        state = " (every expected group whole)";
      }
      std::cerr << fmt::format("mskb merge: {} reports, {} contenders, {} timed shapes{}\n", reports.size(), merged["contenders"].size(),
                               merged["results"].size(), state);
      return 0;
    }
    if (*device) return cmd_device(dev_json, dev_refresh);
    if (*build) {
      // The binary policy screens every file but vendor contenders (compile_all applies it): a
      // refusal fails the build unless the file declares `mskb-expect: rejected_static`.
      std::vector<KernelFile> files;
      std::map<std::string, std::string> expect;  // wrong/ and adversarial kernels: declared disposition
      std::vector<std::string> names;
      if (build_all)
        for (const auto& t : all_tasks()) names.push_back(t.name);
      else if (!build_task.empty())
        names.push_back(get_task(build_task).name);
      for (const auto& n : names) {
        const TaskSpec& t = get_task(n);
        for (Precision p : {Precision::fp32, Precision::bf16})
          for (auto& k : shipped_kernels(t, p, {"baseline", "vendor"})) files.push_back(k);
        for (const auto& w : wrong_kernels(t)) {
          files.push_back({w.path, "wrong", true});  // ours: may link libraries, as in mskb check
          expect[w.path] = w.expect;
        }
        for (const auto& w : adversarial_kernels(t)) {
          files.push_back({w.path, "adversarial", false});
          expect[w.path] = w.expect;
        }
      }
      for (const auto& k : kernels) files.push_back({k, "kernel", false});
      std::sort(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path < b.path; });
      files.erase(std::unique(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path == b.path; }), files.end());
      CompileOptions co;
      co.arch = arch;
      co.allow_libraries = allow_libraries;  // shipped and wrong/ kernels are trusted with libraries (compile_all)
      const std::vector<CompileResult> results = compile_all(files, co, jobs);
      auto expected_refusal = [&](std::size_t i) {
        const auto e = expect.find(files[i].path);
        return results[i].refused_policy && e != expect.end() && e->second == "rejected_static";
      };
      int failed = 0;
      if (build_json) {
        json out = json::array();
        for (std::size_t i = 0; i < files.size(); ++i) {
          const auto& r = results[i];
          json diags = json::array();
          for (const auto& d : r.diagnostics) diags.push_back({{"file", d.file}, {"line", d.line}, {"severity", d.severity}, {"message", d.message}});
          json item = {{"kernel", files[i].path}, {"ok", r.ok}, {"so", r.ok ? r.so_path : ""}, {"cache_hit", r.cache_hit},
                       {"seconds", r.seconds}, {"error", r.error}, {"diagnostics", diags}, {"policy", policy_to_json(r)}};
          if (const auto e = expect.find(files[i].path); e != expect.end()) item["expect"] = e->second;
          out.push_back(std::move(item));
          failed += r.ok || expected_refusal(i) ? 0 : 1;
        }
        std::cout << out.dump(2) << "\n";
        return failed ? 1 : 0;
      }
      for (std::size_t i = 0; i < files.size(); ++i) {
        const auto& r = results[i];
        const std::string rel = fs::relative(files[i].path, source_root()).string();
        const bool as_declared = expected_refusal(i);
        if (!r.ok && !as_declared) ++failed;
        std::cout << fmt::format("{} {} ({:.1f} s{}{})\n", r.ok ? "ok  " : as_declared ? "ok  " : r.refused_policy ? "REFUSED" : "FAIL", rel,
                                 r.seconds, r.cache_hit ? ", cached" : "", as_declared ? ", refused as declared" : "");
        if (!r.ok) std::cout << "     " << r.error << "\n";
        for (const auto& n : r.policy_notes) std::cout << "     note: " << n << "\n";
      }
      std::cout << fmt::format("{} built, {} failed\n", files.size() - static_cast<std::size_t>(failed), failed);
      return failed ? 1 : 0;
    }

    SuitePlan plan;
    plan.precisions = parse_precisions(precision);
    plan.skip_missing_precisions = precision == "all";
    plan.kernels = kernels;
    plan.build_jobs = jobs;
    plan.compile.arch = arch;
    plan.compile.flags = flags;
    plan.compile.allow_libraries = allow_libraries;
    plan.eval.seeds = seeds;
    plan.shape_seed = shape_seed;
    if (timeout > 0) plan.eval.call_timeout_s = timeout;
    for (const auto& k : kernels)
      if (!fs::exists(k)) throw std::invalid_argument("kernel file not found: " + k);
    if (static_cast<int>(all) + static_cast<int>(!task_list.empty()) + static_cast<int>(!run_category.empty()) != 1)
      throw std::invalid_argument(std::string("mskb ") + (*check ? "check" : "run") +
                                  " needs exactly one of --task T[,T...], --category C or --all");
    if (!kernels.empty() && task_list.size() != 1) throw std::invalid_argument("--kernel needs a single --task");
    if (all || !run_category.empty()) {
      for (const auto& t : all_tasks())
        if (all || t.category == run_category) plan.tasks.push_back(t.name);
    } else
      for (const auto& t : task_list) plan.tasks.push_back(get_task(t).name);
    plan.contenders.clear();
    // `mskb check --kernel F` judges F alone; without --kernel it judges the shipped contenders.
    if (contenders != "none" && !(*check && !kernels.empty())) {
      std::stringstream ss(contenders);
      for (std::string c; std::getline(ss, c, ',');) {
        if (c == "wrong" && !*check) throw std::invalid_argument("--contenders wrong is for mskb check (wrong/ kernels are judged, not timed)");
        if (c != "baseline" && c != "vendor" && c != "wrong" && c != "adversarial")
          throw std::invalid_argument("unknown contender '" + c + "' (baseline, vendor, wrong, adversarial or none)");
        plan.contenders.push_back(c);
      }
    }
    plan.gpus = gpus;
    plan.checks_per_gpu = checks_per_gpu;
    plan.sanitize_gate = sanitize_gate;
    if (!skip_done_path.empty()) {
      std::ifstream in(skip_done_path);
      plan.skip_done = json::parse(in, nullptr, false);
      if (plan.skip_done.is_discarded() || !plan.skip_done.is_object() || !plan.skip_done.contains("contenders"))
        throw std::invalid_argument("--skip-done: " + skip_done_path + " is not an mskb --json report");
      if (!json_path.empty() && fs::exists(json_path) && fs::equivalent(json_path, skip_done_path))
        throw std::invalid_argument("--skip-done: write the new report to another file (--json), then mskb merge the two");
    }
    if (*check) {
      plan.eval.check_only = true;
      std::stringstream cw(check_sweep);
      for (std::string w; std::getline(cw, w, ',');) {
        if (w != "paper" && w != "large" && w != "heldout" && w != "all")
          throw std::invalid_argument("unknown sweep '" + w + "' (paper, large, heldout, all, or a list such as paper,large)");
        plan.eval.checked_sweeps.push_back(w);
      }
      plan.sanitizer = memcheck ? "memcheck" : (racecheck ? "racecheck" : "");
    } else {
      plan.eval.timed_sweeps.clear();
      std::stringstream sw(sweep);
      for (std::string w; std::getline(sw, w, ',');) {
        if (w != "paper" && w != "large" && w != "heldout" && w != "all")
          throw std::invalid_argument("unknown sweep '" + w + "' (paper, large, heldout, all, or a list such as paper,large)");
        plan.eval.timed_sweeps.push_back(w);
      }
      if (!matrix_path.empty()) {
        if (plan.tasks.size() != 1) throw std::invalid_argument("--matrix needs a single --task");
        const TaskSpec& spec = get_task(plan.tasks.front());
        if (!spec.from_matrix) throw std::invalid_argument(spec.name + " does not take a user matrix (--matrix is for sparse tasks)");
        const SparseMatrix m = read_matrix_market(matrix_path);  // line-numbered errors before any GPU work
        plan.eval.matrix_path = fs::absolute(matrix_path).string();
        plan.eval.matrix_shape = matrix_shape(spec, m);
        std::fprintf(stderr, "%s: %lld x %lld, %lld entries (longest row %lld)\n", matrix_path.c_str(), static_cast<long long>(m.rows),
                     static_cast<long long>(m.cols), static_cast<long long>(m.nnz()), static_cast<long long>(m.max_row_nnz()));
      }
      plan.eval.timing.max_time_s = budget;
    }
    // A user kernel that exports only one precision is judged on that precision alone.
    // --json/--markdown files are rewritten after every contender ("partial": true until the end),
    // so a run that is killed or runs out of time leaves what it measured.
    PartialReport partial;
    if ((!json_path.empty() && json_path != "-") || !md_path.empty())
      partial = [&](const SuiteReport& so_far) {
        if (!json_path.empty() && json_path != "-") write_json(so_far.to_json(), json_path);
        if (!md_path.empty()) write_text(so_far.markdown(), md_path);
      };
    const SuiteReport report = run_suite(plan, stderr_progress(quiet), partial);
    int failures = 0;
    for (const auto& r : report.runs)
      if (!r.as_expected()) ++failures;
    if (*check) {
      for (const auto& r : report.runs) {
        const auto& c = r.result;
        if (!r.expect.empty())
          std::cout << fmt::format("{} {} {} {}: {}{}\n", r.as_expected() ? "PASS" : "FAIL", c.task, c.precision, c.contender,
                                   r.as_expected() ? "rejected as declared: " + c.disposition : "declared " + r.expect + ", got " + c.disposition,
                                   c.message.empty() ? "" : " - " + c.message);
        else if (is_correct(c.disposition))
          std::cout << fmt::format("PASS {} {} {}: {}/{} checks (paper + held-out, every element)\n", c.task, c.precision,
                                   fs::path(c.kernel).filename().string(), c.checks_passed, c.checks_total);
        else
          std::cout << fmt::format("FAIL {} {} {}: {}\n", c.task, c.precision, fs::path(c.kernel).filename().string(), c.message);
      }
    } else {
      std::cout << report.table();
    }
    if (!json_path.empty()) write_json(report.to_json(), json_path);
    if (!md_path.empty()) write_text(report.markdown(), md_path);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "mskb: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace mskb

// Reproducible claims: the `reproduce` record of a report (reproduce_record, reproduce_observed),
// the plan it describes (plan_from_record), the files that changed since (changed_files), and the
// comparison of a report with its rerun and its renderings (rerun_comparison, render_rerun_*).
#include "mskb/harness/reproduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "mskb/core/instance.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/report_data.hpp"
#include "mskb/util/html.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

// The SHA-256 of a file's bytes; null when it cannot be read.
json file_sha256(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return nullptr;
  try {
    return sha256_hex(read_text(path));
  } catch (const std::exception&) {
    return nullptr;
  }
}

json file_entry(const std::string& path) { return {{"path", absolute(path)}, {"sha256", file_sha256(path)}}; }

// The environment variables that change what a run does or where its tools come from.
json relevant_environment() {
  json env = json::object();
  for (const char* name : {"MSKB_ROOT", "MSKB_NVCC", "MSKB_RUNNER", "MSKB_SANITIZER", "MSKB_DEVICE_INPUTS", "MSKB_PIPELINE", "MSKB_SHARE_INSTANCES",
                           "MSKB_GPU_INSTANCE_MIN_COMPLEXITY", "MSKB_GPU_COMPARE_MIN_COMPLEXITY", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') env[name] = v;
  return env;
}

json timing_policy_json(const TimingPolicy& p) {
  return {{"too_fast_fraction", p.too_fast_fraction},     {"too_fast_flop_fraction", p.too_fast_flop_fraction},
          {"unsynced_gap_us", p.unsynced_gap_us},         {"unsynced_gap_fraction", p.unsynced_gap_fraction},
          {"max_noise", p.max_noise}};
}

TimingPolicy timing_policy_from(const json& j) {
  TimingPolicy p;
  if (!j.is_object()) return p;
  p.too_fast_fraction = j.value("too_fast_fraction", p.too_fast_fraction);
  p.too_fast_flop_fraction = j.value("too_fast_flop_fraction", p.too_fast_flop_fraction);
  p.unsynced_gap_us = j.value("unsynced_gap_us", p.unsynced_gap_us);
  p.unsynced_gap_fraction = j.value("unsynced_gap_fraction", p.unsynced_gap_fraction);
  p.max_noise = j.value("max_noise", p.max_noise);
  return p;
}

template <typename E>
json names_of(const std::vector<E>& values) {
  json out = json::array();
  for (const E& v : values) out.push_back(to_string(v));
  return out;
}

// The random shapes of every task, as "M=..,N=.." labels (an error's message where a task's
// space cannot be drawn from: the run fails there too).
json drawn_random_shapes(const SuitePlan& plan, uint64_t shape_seed, int count) {
  json out = json::object();
  for (const std::string& task : plan.tasks) {
    json shapes = json::array();
    try {
      if (count > 0)
        for (const Shape& s : random_shapes(get_task(task), shape_seed, count)) shapes.push_back(s.str());
    } catch (const std::exception& e) {
      shapes = std::string("error: ") + e.what();
    }
    out[task] = shapes;
  }
  return out;
}

// Every kernel file of every group the plan runs, with its SHA-256 (each file hashed once).
json planned_files(const SuitePlan& plan) {
  std::map<std::string, json> hashes;
  json out = json::array();
  for (const SuiteGroup& g : suite_groups(plan))
    for (const KernelFile& k : g.kernels) {
      const std::string path = absolute(k.path);
      if (hashes.count(path) == 0) hashes[path] = file_sha256(path);
      out.push_back({{"task", g.task},
                     {"precision", to_string(g.precision)},
                     {"contender", k.contender},
                     {"path", path},
                     {"sha256", hashes[path]},
                     {"shipped", k.trusted || contender_kind(k.contender) != ContenderKind::candidate},
                     {"optional", k.optional}});
    }
  return out;
}

json task_files_of(const SuitePlan& plan) {
  json out = json::array();
  for (const std::string& task : plan.tasks)
    if (const TaskFile* tf = registered_task_file(task))
      out.push_back({{"task", task},
                     {"path", tf->absolute_path},
                     {"sha256", file_sha256(tf->absolute_path)},
                     {"reference", tf->reference_source.empty() ? json(nullptr) : file_entry(tf->reference_source)}});
  return out;
}

json submission_of(const SuitePlan& plan) {
  if (!plan.submission) return nullptr;
  json kernels = json::array(), skipped = json::array();
  for (const TaskKernel& k : plan.submission->kernels)
    kernels.push_back({{"task", k.task}, {"path", absolute(k.path)}, {"precision", k.precision ? json(to_string(*k.precision)) : json(nullptr)}});
  for (const SkippedFile& f : plan.submission->skipped) skipped.push_back({{"file", f.path}, {"reason", f.reason}});
  return {{"dir", absolute(plan.submission->dir)}, {"kernels", kernels}, {"skipped", skipped}};
}

}  // namespace

json reproduce_record(const SuitePlan& plan, uint64_t shape_seed) {
  const EvalOptions& e = plan.eval;
  const bool check = e.check_only || plan.sanitizer.has_value();
  const int random_count = e.matrix_path.empty() ? plan.random_shapes : 0;
  const int per_shape = std::max(e.seeds, 2);
  json inputs = json::array();
  for (int s = 1; s <= per_shape; ++s) inputs.push_back(s);
  json kernels = json::array();
  for (const std::string& k : plan.kernels) kernels.push_back(absolute(k));
  json settings = {
      {"tasks", plan.tasks},
      {"precisions", names_of(plan.precisions)},
      {"skip_missing_precisions", plan.skip_missing_precisions},
      {"contenders", names_of(plan.contenders)},
      {"kernels", kernels},
      {"check_only", e.check_only},
      {"sanitizer", plan.sanitizer ? json(to_string(*plan.sanitizer)) : json(nullptr)},
      {"sanitize_gate", plan.sanitize_gate},
      {"sweeps", {{"timed", check ? json::array() : names_of(e.timed_sweeps)}, {"checked", names_of(e.checked_sweeps)}}},
      {"shape_seed", shape_seed},
      {"random_shape_count", random_count},
      {"random_shapes", drawn_random_shapes(plan, shape_seed, random_count)},
      {"seeds",
       {{"per_shape", e.seeds},
        {"inputs", inputs},
        {"large", {1, 2}},
        {"timed", "the last input seed of each timed shape"},
        {"policy", "inputs drawn per (task, shape, seed) by the counter generator: the same seed gives the same inputs on any "
                   "machine; the seeds of a shape run in the same device buffers"}}},
      {"timing", e.timing},
      {"policy", timing_policy_json(e.policy)},
      {"call_timeout_s", e.call_timeout_s ? json(*e.call_timeout_s) : json(nullptr)},
      {"call_timeout_scale", e.call_timeout_scale},
      {"compile", {{"arch", plan.compile.arch}, {"flags", plan.compile.flags}, {"allow_libraries", plan.compile.allow_libraries}}},
      {"checks_per_gpu", plan.checks_per_gpu},
      {"timing_overlap", plan.timing_overlap},
      {"gpus", plan.gpus},
      {"build_jobs", plan.build_jobs},
      {"skip_done", plan.skip_done.is_object()},
      {"files", planned_files(plan)},
      {"submission", submission_of(plan)},
      {"task_files", task_files_of(plan)},
      {"matrix", e.matrix_path.empty() ? json(nullptr) : file_entry(e.matrix_path)}};
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return {{"format", kReproduceFormat},
          {"tool", {{"name", "mskb"}, {"version", tool_version()}, {"commit", kGitCommit}, {"cuda", cuda_toolkit_version()},
                    {"default_arch", default_arch()}}},
          {"command", check ? "check" : "run"},
          {"argv", plan.command_line.empty() ? json(nullptr) : json(plan.command_line)},
          {"cwd", ec ? std::string() : cwd.string()},
          {"environment", relevant_environment()},
          {"settings", settings}};
}

json reproduce_observed(json record, const json& report) {
  json device = report.is_object() && report.contains("device") && report["device"].is_object() ? report["device"] : json::object();
  for (const char* k : {"uuid", "event", "cached", "lanes"}) device.erase(k);
  record["device"] = device;
  std::vector<double> clocks;
  if (report.is_object() && report.contains("results") && report["results"].is_array())
    for (const json& r : report["results"])
      if (r.is_object() && r.contains("sm_clock_mhz") && r["sm_clock_mhz"].is_number() && r["sm_clock_mhz"].get<double>() > 0)
        clocks.push_back(r["sm_clock_mhz"].get<double>());
  if (clocks.empty()) {
    record["sm_clock_mhz"] = nullptr;
  } else {
    std::sort(clocks.begin(), clocks.end());
    const std::size_t n = clocks.size();
    const double median = n % 2 == 1 ? clocks[n / 2] : (clocks[n / 2 - 1] + clocks[n / 2]) / 2;
    record["sm_clock_mhz"] = {{"min", clocks.front()}, {"median", median}, {"max", clocks.back()}, {"shapes", n}};
  }
  return record;
}

std::string reproduce_unavailable(const json& report) {
  if (!report.is_object() || !report.contains("contenders") || !report["contenders"].is_array())
    return "it is not an mskb run/check JSON report";
  if (!report.contains("reproduce") || report["reproduce"].is_null())
    return "it has no \"reproduce\" record (reports written before mskb recorded one, and those of mskb merge, have none)";
  const json& r = report["reproduce"];
  if (!r.is_object() || !r.contains("settings") || !r["settings"].is_object() || !r.contains("format") || !r["format"].is_number_integer())
    return "its \"reproduce\" record is malformed";
  if (r["format"].get<int>() > kReproduceFormat)
    return fmt::format("its \"reproduce\" record is of format {} and this mskb reads format {} (a newer mskb wrote it)", r["format"].get<int>(),
                       kReproduceFormat);
  return "";
}

namespace {

std::string missing_file(const std::string& what, const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec) ? std::string() : what + " " + path + " is missing";
}

SuitePlan plan_from_settings(const json& s) {
  SuitePlan plan;
  // Task files first: their tasks are found by name from then on.
  for (const json& tf : s.at("task_files")) {
    const std::string path = tf.at("path").get<std::string>();
    if (const std::string m = missing_file("task file", path); !m.empty()) throw std::invalid_argument(m);
    (void)register_task_file(path);  // its reference is compiled by the caller, once the files are checked
  }
  plan.tasks = s.at("tasks").get<std::vector<std::string>>();
  for (const std::string& t : plan.tasks)
    if (find_task(t) == nullptr) throw std::invalid_argument("this build has no task '" + t + "'");
  plan.precisions.clear();
  for (const json& p : s.at("precisions")) plan.precisions.push_back(parse_precision(p.get<std::string>()));
  plan.skip_missing_precisions = s.value("skip_missing_precisions", false);
  plan.contenders.clear();
  for (const json& c : s.at("contenders")) plan.contenders.push_back(parse_enum<ContenderKind>(c.get<std::string>()));
  plan.kernels = s.at("kernels").get<std::vector<std::string>>();
  if (const json& sub = s.value("submission", json()); sub.is_object()) {
    Submission m;
    m.dir = sub.at("dir").get<std::string>();
    for (const json& k : sub.at("kernels"))
      m.kernels.push_back({k.at("task").get<std::string>(), k.at("path").get<std::string>(),
                           k.at("precision").is_null() ? std::nullopt : std::optional<Precision>(parse_precision(k["precision"].get<std::string>()))});
    for (const json& f : sub.value("skipped", json::array())) m.skipped.push_back({f.at("file").get<std::string>(), f.at("reason").get<std::string>()});
    plan.submission = m;
  }
  EvalOptions& e = plan.eval;
  e.check_only = s.at("check_only").get<bool>();
  const json& sweeps = s.at("sweeps");
  e.timed_sweeps.clear();
  for (const json& w : sweeps.at("timed")) e.timed_sweeps.push_back(parse_enum<Sweep>(w.get<std::string>()));
  for (const json& w : sweeps.at("checked")) e.checked_sweeps.push_back(parse_enum<Sweep>(w.get<std::string>()));
  e.seeds = s.at("seeds").at("per_shape").get<int>();
  e.timing = s.at("timing").get<TimingConfig>();
  e.policy = timing_policy_from(s.value("policy", json()));
  if (s.contains("call_timeout_s") && s["call_timeout_s"].is_number()) e.call_timeout_s = s["call_timeout_s"].get<double>();
  e.call_timeout_scale = s.value("call_timeout_scale", 1.0);
  if (const json& m = s.value("matrix", json()); m.is_object()) {
    const std::string path = m.at("path").get<std::string>();
    if (const std::string why = missing_file("matrix", path); !why.empty()) throw std::invalid_argument(why);
    if (plan.tasks.size() != 1) throw std::invalid_argument("a matrix run has one task");
    e.matrix_path = path;
    e.matrix_shape = matrix_shape(get_task(plan.tasks.front()), read_matrix_market(path));
  }
  const json& c = s.at("compile");
  plan.compile.arch = c.value("arch", std::string());
  plan.compile.flags = c.value("flags", std::vector<std::string>());
  plan.compile.allow_libraries = c.value("allow_libraries", false);
  if (const json& t = s.value("sanitizer", json()); t.is_string()) plan.sanitizer = parse_enum<SanitizerTool>(t.get<std::string>());
  plan.sanitize_gate = s.value("sanitize_gate", false);
  plan.shape_seed = s.at("shape_seed").get<uint64_t>();
  plan.random_shapes = s.at("random_shape_count").get<int>();
  plan.checks_per_gpu = s.value("checks_per_gpu", 1);
  plan.timing_overlap = s.value("timing_overlap", plan.timing_overlap);
  // Only the groups the report's run had (a run with --skip-done left some out).
  for (const json& f : s.at("files")) {
    const std::string g = f.at("task").get<std::string>() + "|" + f.at("precision").get<std::string>();
    if (std::find(plan.only_groups.begin(), plan.only_groups.end(), g) == plan.only_groups.end()) plan.only_groups.push_back(g);
  }
  if (plan.only_groups.empty()) throw std::invalid_argument("the report's run judged no kernel file: there is nothing to run again");
  return plan;
}

std::string short_hash(const json& h) { return h.is_string() ? h.get<std::string>().substr(0, 12) : std::string("(unreadable)"); }

}  // namespace

SuitePlan plan_from_record(const json& record) {
  if (!record.is_object() || !record.contains("settings")) throw std::invalid_argument("the reproduce record has no settings");
  try {
    return plan_from_settings(record["settings"]);
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("the reproduce record is malformed: ") + e.what());
  }
}

std::string FileChange::line() const { return path + " (" + what + "): " + detail; }

std::vector<FileChange> changed_files(const json& record, const SuitePlan& plan) {
  std::vector<FileChange> out;
  const json& s = record.at("settings");
  auto compare = [&](const std::string& what, const std::string& path, const json& recorded) {
    const json now = file_sha256(path);
    if (now.is_null()) out.push_back({what, path, true, "missing"});
    else if (now != recorded) out.push_back({what, path, false, "changed since the report (sha256 " + short_hash(recorded) + ".. -> " + short_hash(now) + "..)"});
  };
  for (const json& tf : s.value("task_files", json::array())) {
    compare("task file of " + tf.value("task", std::string("?")), tf.value("path", std::string()), tf.value("sha256", json()));
    if (const json ref = tf.value("reference", json()); ref.is_object())
      compare("reference of " + tf.value("task", std::string("?")), ref.value("path", std::string()), ref.value("sha256", json()));
  }
  if (const json& m = s.value("matrix", json()); m.is_object()) compare("matrix", m.value("path", std::string()), m.value("sha256", json()));
  // The kernel files of this plan, by (task, precision, contender): shipped ones are found again
  // in this build's data folder, wherever it is.
  std::map<std::string, std::string> now;
  for (const SuiteGroup& g : suite_groups(plan))
    for (const KernelFile& k : g.kernels) now[g.task + " " + to_string(g.precision) + " " + k.contender] = absolute(k.path);
  std::set<std::string> seen;  // a file of several groups (fp32 and bf16) is named once
  for (const json& f : s.at("files")) {
    const std::string what = f.value("task", std::string()) + " " + f.value("precision", std::string()) + " " + f.value("contender", std::string());
    const auto it = now.find(what);
    if (it == now.end()) {
      out.push_back({what, f.value("path", std::string()), false, "no longer part of the run in this build"});
      continue;
    }
    if (!seen.insert(it->second).second) continue;
    compare(what, it->second, f.value("sha256", json()));
  }
  return out;
}

// ---- the comparison of a report with its rerun

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // task, precision, contender

const json& array_of(const json& r, const char* key) {
  static const json empty = json::array();
  const auto it = r.find(key);
  return it != r.end() && it->is_array() ? *it : empty;
}

std::string str_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::map<Key, const json*> contenders_by_key(const json& report) {
  std::map<Key, const json*> out;
  for (const json& c : array_of(report, "contenders"))
    if (c.is_object()) out[{str_of(c, "task"), str_of(c, "precision"), str_of(c, "contender")}] = &c;
  return out;
}

// Median times by (task, precision, contender, sweep) and shape label.
using Times = std::map<std::tuple<std::string, std::string, std::string, std::string>, std::map<std::string, double>>;
Times times_of(const json& report) {
  Times out;
  for (const json& r : array_of(report, "results")) {
    if (!r.is_object() || !r.contains("time_us") || !r["time_us"].is_object()) continue;
    const json& m = r["time_us"].value("median", json());
    if (!m.is_number() || m.get<double>() <= 0) continue;
    out[{str_of(r, "task"), str_of(r, "precision"), str_of(r, "contender"), str_of(r, "sweep")}][report_shape_label(r.value("shape", json()))] =
        m.get<double>();
  }
  return out;
}

json side_of(const json& row_side, const json* contender) {
  json s = {{"disposition", row_side["disposition"]}, {"correct", row_side["correct"]}};
  s["checks_passed"] = contender ? contender->value("checks_passed", json()) : json(nullptr);
  s["checks_total"] = contender ? contender->value("checks_total", json()) : json(nullptr);
  s["message"] = contender ? contender->value("message", json("")) : json("");
  return s;
}

json device_name(const json& report) {
  return report.contains("device") && report["device"].is_object() ? report["device"].value("name", json("?")) : json("?");
}

json reproduce_of(const json& report) {
  return report.contains("reproduce") && report["reproduce"].is_object() ? report["reproduce"] : json::object();
}

json run_side(const json& report) {
  const json r = reproduce_of(report);
  return {{"device", device_name(report)},
          {"commit", r.contains("tool") && r["tool"].is_object() ? r["tool"].value("commit", json()) : json(nullptr)},
          {"sm_clock_mhz", r.value("sm_clock_mhz", json())},
          {"partial", report.value("partial", false)}};
}

bool outside(double ratio, double tolerance) { return std::fabs(ratio - 1.0) > tolerance * (1 + 1e-9); }

std::string fmt_ratio(double r) { return fmt::format("x{:.3g}", r); }

}  // namespace

json rerun_comparison(const json& old_report, const json& new_report, double tolerance) {
  std::vector<std::string> sweeps = report_sweeps(old_report);
  const bool check_only = sweeps.empty();
  const std::vector<std::string> labels = {"report", "rerun"};
  // compare_data matches the entries and computes P and time ratios, one sweep at a time.
  std::vector<json> pairs;
  for (const std::string& w : check_only ? std::vector<std::string>{to_string(Sweep::paper)} : sweeps)
    pairs.push_back(compare_data({old_report, new_report}, labels, w)["pairs"][0]);
  const auto old_c = contenders_by_key(old_report), new_c = contenders_by_key(new_report);
  const Times old_t = times_of(old_report), new_t = times_of(new_report);
  auto find = [](const std::map<Key, const json*>& m, const Key& k) -> const json* {
    const auto it = m.find(k);
    return it == m.end() ? nullptr : it->second;
  };
  json entries = json::array();
  int reproduced = 0, differ = 0;
  std::vector<std::string> differing;
  for (std::size_t i = 0; i < pairs.front()["rows"].size(); ++i) {
    const json& row = pairs.front()["rows"][i];
    const std::string task = row["task"], precision = row["precision"];
    const std::string ca = row["a"]["contender"], cb = row["b"]["contender"];
    const Key ka{task, precision, ca}, kb{task, precision, cb};
    json e = {{"task", task}, {"precision", precision}, {"contender", row["contender"]}};
    e["old"] = side_of(row["a"], find(old_c, ka));
    e["new"] = side_of(row["b"], find(new_c, kb));
    json reasons = json::array();
    const bool correct_a = row["a"]["correct"].get<bool>(), correct_b = row["b"]["correct"].get<bool>();
    if (correct_a != correct_b) {
      const json& bad = correct_a ? e["new"] : e["old"];
      const std::string msg = bad.value("message", std::string());
      reasons.push_back(fmt::format("correct in the {} ({}), not in the {} ({}{})", correct_a ? "report" : "rerun",
                                    (correct_a ? e["old"] : e["new"])["disposition"].get<std::string>(), correct_a ? "rerun" : "report",
                                    bad["disposition"].get<std::string>(), msg.empty() ? "" : ": " + msg));
    } else if (!correct_a && row["a"]["disposition"] != row["b"]["disposition"]) {
      reasons.push_back(fmt::format("disposition {} in the report, {} in the rerun", row["a"]["disposition"].get<std::string>(),
                                    row["b"]["disposition"].get<std::string>()));
    }
    json per_sweep = json::array();
    for (std::size_t w = 0; !check_only && w < sweeps.size(); ++w) {
      // The same entry in this sweep's comparison (the rows come in the same order and matching).
      const json* r = nullptr;
      for (const json& x : pairs[w]["rows"])
        if (x["task"] == row["task"] && x["precision"] == row["precision"] && x["a"]["contender"] == ca && x["b"]["contender"] == cb) r = &x;
      if (r == nullptr) continue;
      const auto ot = old_t.find({task, precision, ca, sweeps[w]});
      if (ot == old_t.end() && !(*r)["a"]["P"].is_number()) continue;  // not timed in this sweep by the report
      json s = {{"sweep", sweeps[w]}, {"P_old", (*r)["a"]["P"]}, {"P_new", (*r)["b"]["P"]}, {"P_ratio", (*r)["P_ratio"]},
                {"time_ratio", (*r)["time_ratio"].is_number() && (*r)["time_ratio"].get<double>() > 0 ? json(1.0 / (*r)["time_ratio"].get<double>())
                                                                                                        : json(nullptr)},
                {"shapes", (*r)["shapes"]}, {"worst_shape", nullptr}};
      // The shape furthest from the report's time.
      const auto nt = new_t.find({task, precision, cb, sweeps[w]});
      if (ot != old_t.end() && nt != new_t.end()) {
        double worst = 1;
        std::string worst_shape;
        for (const auto& [shape, t_old] : ot->second) {
          const auto t_new = nt->second.find(shape);
          if (t_new == nt->second.end()) continue;
          const double ratio = t_new->second / t_old;
          if (worst_shape.empty() || std::fabs(std::log(ratio)) > std::fabs(std::log(worst))) {
            worst = ratio;
            worst_shape = shape;
          }
        }
        if (!worst_shape.empty()) s["worst_shape"] = {{"shape", worst_shape}, {"ratio", worst}};
      }
      if (correct_a && correct_b) {
        if (ot != old_t.end() && (s["shapes"].get<int>() == 0 || !s["time_ratio"].is_number())) {
          reasons.push_back(sweeps[w] + ": no shape timed in both");
        } else if (s["time_ratio"].is_number() && outside(s["time_ratio"].get<double>(), tolerance)) {
          std::string worst;
          if (s["worst_shape"].is_object())
            worst = fmt::format("; furthest {}: {}", s["worst_shape"]["shape"].get<std::string>(), fmt_ratio(s["worst_shape"]["ratio"].get<double>()));
          reasons.push_back(fmt::format("{}: median time {} the report's (geometric mean over {} shape{}{})", sweeps[w],
                                        fmt_ratio(s["time_ratio"].get<double>()), s["shapes"].get<int>(), s["shapes"].get<int>() == 1 ? "" : "s",
                                        worst));
        }
        if (s["P_old"].is_number() && !s["P_new"].is_number()) {
          reasons.push_back(fmt::format("{}: P {:.2f} in the report, none in the rerun", sweeps[w], s["P_old"].get<double>()));
        } else if (s["P_ratio"].is_number() && outside(s["P_ratio"].get<double>(), tolerance)) {
          reasons.push_back(fmt::format("{}: P {:.2f} -> {:.2f} ({})", sweeps[w], s["P_old"].get<double>(), s["P_new"].get<double>(),
                                        fmt_ratio(s["P_ratio"].get<double>())));
        }
      }
      per_sweep.push_back(s);
    }
    e["sweeps"] = per_sweep;
    e["reproduced"] = reasons.empty();
    e["reasons"] = reasons;
    if (reasons.empty()) {
      ++reproduced;
    } else {
      ++differ;
    }
    entries.push_back(e);
  }
  json only_old = pairs.front()["only_a"], only_new = pairs.front()["only_b"];
  differ += static_cast<int>(only_old.size());
  // Notes: what differs about the two runs besides their numbers.
  const json o = run_side(old_report), n = run_side(new_report);
  const bool same_model = o["device"] == n["device"];
  json notes = json::array();
  if (!same_model)
    notes.push_back(fmt::format("WARNING: different GPU model: the report ran on {}, this rerun on {}", o["device"].get<std::string>(),
                                n["device"].get<std::string>()));
  if (o["commit"].is_string() && n["commit"].is_string() && o["commit"] != n["commit"])
    notes.push_back(fmt::format("the report was made by mskb commit {}, this rerun by commit {}", o["commit"].get<std::string>(),
                                n["commit"].get<std::string>()));
  if (o["partial"].get<bool>()) notes.push_back("the report is partial (its run had not finished): entries it lacks are only in the rerun");
  auto clock = [](const json& side) { return side["sm_clock_mhz"].is_object() ? side["sm_clock_mhz"].value("median", 0.0) : 0.0; };
  if (clock(o) > 0 && clock(n) > 0 && outside(clock(n) / clock(o), 0.02))
    notes.push_back(fmt::format("SM clock (median over the timed shapes): {:.0f} MHz in the report, {:.0f} MHz in the rerun", clock(o), clock(n)));
  json random_differ = json::array();
  const json ro = reproduce_of(old_report).value("settings", json::object()).value("random_shapes", json::object());
  const json rn = reproduce_of(new_report).value("settings", json::object()).value("random_shapes", json::object());
  for (auto it = ro.begin(); it != ro.end(); ++it)
    if (rn.contains(it.key()) && rn[it.key()] != it.value()) random_differ.push_back(it.key());
  if (!random_differ.empty())
    notes.push_back("the random shapes of " + std::to_string(random_differ.size()) +
                    " task(s) differ from the report's with the same shape seed (the task's size space changed): their checks are not the same");
  return {{"tolerance", tolerance},
          {"check_only", check_only},
          {"old", o},
          {"new", n},
          {"same_gpu_model", same_model},
          {"sweeps", sweeps},
          {"entries", entries},
          {"only_old", only_old},
          {"only_new", only_new},
          {"random_shapes_differ", random_differ},
          {"notes", notes},
          {"summary", {{"entries", entries.size() + only_old.size()}, {"reproduced", reproduced}, {"differ", differ}}}};
}

namespace {

std::string num2(const json& v) { return v.is_number() ? fmt::format("{:.2f}", v.get<double>()) : std::string("-"); }
std::string num3(const json& v) { return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : std::string("-"); }

std::string entry_name(const json& e) {
  return e["task"].get<std::string>() + " " + e["precision"].get<std::string>() + " " + e["contender"].get<std::string>();
}

std::string summary_line(const json& c) {
  const json& s = c["summary"];
  std::string out = fmt::format("reproduced {} of {} entries within {:g}%", s["reproduced"].get<int>(), s["entries"].get<int>(),
                                100 * c["tolerance"].get<double>());
  out += c["check_only"].get<bool>() ? " (correctness)" : " (correctness, median times and P)";
  if (s["differ"].get<int>() > 0) out += fmt::format("; {} differ", s["differ"].get<int>());
  if (!c["only_new"].empty()) out += fmt::format("; {} only in the rerun", c["only_new"].size());
  return out;
}

// One table row per (entry, sweep) (per entry when nothing was timed): the cells, then the result.
std::vector<std::vector<std::string>> table_rows(const json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const json& e : c["entries"]) {
    const std::string result = e["reproduced"].get<bool>() ? "ok" : "DIFFERS";
    const std::string checks = fmt::format("{}/{} -> {}/{}", e["old"]["checks_passed"].dump(), e["old"]["checks_total"].dump(),
                                           e["new"]["checks_passed"].dump(), e["new"]["checks_total"].dump());
    const std::string disp = e["old"]["disposition"] == e["new"]["disposition"]
                                 ? e["old"]["disposition"].get<std::string>()
                                 : e["old"]["disposition"].get<std::string>() + " -> " + e["new"]["disposition"].get<std::string>();
    if (e["sweeps"].empty()) {
      rows.push_back({e["task"], e["precision"], e["contender"], "-", disp, checks, "-", "-", "-", "-", "-", result});
      continue;
    }
    for (const json& s : e["sweeps"])
      rows.push_back({e["task"], e["precision"], e["contender"], s["sweep"], disp, checks, num2(s["P_old"]), num2(s["P_new"]), num3(s["P_ratio"]),
                      num3(s["time_ratio"]), s["shapes"].dump(), result});
  }
  for (const json& x : c["only_old"])
    rows.push_back({x["task"], x["precision"], x["contender"], "-", x["disposition"].get<std::string>() + " -> (not run)", "-", "-", "-", "-", "-",
                    "-", "DIFFERS"});
  return rows;
}

const std::vector<std::string>& table_head() {
  static const std::vector<std::string> head = {"task",    "prec",       "contender",          "sweep",  "disposition", "checks",
                                                "P report", "P rerun",   "P new/old", "time new/old", "shapes",      "result"};
  return head;
}

std::vector<std::string> differ_lines(const json& c) {
  std::vector<std::string> out;
  for (const json& e : c["entries"])
    for (const json& r : e["reasons"]) out.push_back(entry_name(e) + ": " + r.get<std::string>());
  for (const json& x : c["only_old"])
    out.push_back(x["task"].get<std::string>() + " " + x["precision"].get<std::string>() + " " + x["contender"].get<std::string>() +
                  ": in the report, not in the rerun");
  return out;
}

std::string heading(const json& c) {
  return fmt::format("mskb rerun: the report's run again on {} (the report: {}), tolerance {:g}%", c["new"]["device"].get<std::string>(),
                     c["old"]["device"].get<std::string>(), 100 * c["tolerance"].get<double>());
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

}  // namespace

std::string render_rerun_text(const json& c) {
  std::string out = heading(c) + "\n";
  for (const json& n : c["notes"]) out += n.get<std::string>() + "\n";
  const auto rows = table_rows(c);
  std::vector<std::size_t> width;
  for (const auto& h : table_head()) width.push_back(h.size());
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + fmt::format("{:<{}}", cells[i], i + 1 == cells.size() ? 0 : width[i]);
    return l + "\n";
  };
  out += line(table_head());
  for (const auto& r : rows) out += line(r);
  for (const std::string& d : differ_lines(c)) out += "differs: " + d + "\n";
  return out + summary_line(c) + "\n";
}

std::string render_rerun_markdown(const json& c, const std::string& compare_markdown) {
  std::string out = "# " + md_cell(heading(c)) + "\n\n";
  for (const json& n : c["notes"]) out += "- " + md_cell(n.get<std::string>()) + "\n";
  if (!c["notes"].empty()) out += "\n";
  out += "**" + summary_line(c) + ".** P new/old and time new/old: the rerun's P and median time over the report's (time: geometric mean over "
         "the shapes both timed).\n\n|";
  for (const auto& h : table_head()) out += " " + h + " |";
  out += "\n|";
  for (std::size_t i = 0; i < table_head().size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : table_rows(c)) {
    out += "|";
    for (const auto& cell : r) out += " " + md_cell(cell) + " |";
    out += "\n";
  }
  const auto differ = differ_lines(c);
  if (!differ.empty()) {
    out += "\n## Differences\n\n";
    for (const std::string& d : differ) out += "- " + md_cell(d) + "\n";
  }
  // mskb compare's tables, one level down.
  std::string cmp;
  for (const std::string& l : split(compare_markdown, '\n')) cmp += (l.rfind('#', 0) == 0 ? "#" + l : l) + "\n";
  return out + "\n" + cmp;
}

std::string render_rerun_html(const json& c, const std::string& compare_html) {
  std::string h = "<h2>Reproduction</h2>\n<p class=\"meta\"><b>" + html_escape(summary_line(c)) + ".</b> " +
                  html_escape(heading(c)) + ". P new/old and time new/old: the rerun's P and median time over the report's (time: geometric "
                  "mean over the shapes both timed).</p>\n";
  for (const json& n : c["notes"]) h += "<p class=\"meta\">" + html_escape(n.get<std::string>()) + "</p>\n";
  h += "<div class=\"tw\"><table><thead><tr>";
  for (const auto& col : table_head()) h += "<th>" + html_escape(col) + "</th>";
  h += "</tr></thead><tbody>\n";
  for (const auto& r : table_rows(c)) {
    h += "<tr>";
    for (const auto& cell : r) h += "<td>" + html_escape(cell) + "</td>";
    h += "</tr>\n";
  }
  h += "</tbody></table></div>\n";
  const auto differ = differ_lines(c);
  if (!differ.empty()) {
    h += "<ul>\n";
    for (const std::string& d : differ) h += "<li>" + html_escape(d) + "</li>\n";
    h += "</ul>\n";
  }
  // After the compare page's title.
  const std::size_t at = compare_html.find("</h1>");
  if (at == std::string::npos) return compare_html + h;
  const std::size_t end = compare_html.find('\n', at);
  const std::size_t pos = end == std::string::npos ? at + 5 : end + 1;
  return compare_html.substr(0, pos) + h + compare_html.substr(pos);
}

}  // namespace mskb

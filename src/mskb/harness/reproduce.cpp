// Reproducible claims: the `reproduce` record of a report (reproduce_record, reproduce_observed),
// the plan it describes (plan_from_record) and the files that changed since (changed_files). The
// comparison of a report with its rerun is the report library's (mskb/report/rerun.hpp).
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
#include "mskb/harness/compiler.hpp"
#include "mskb/util/files.hpp"
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
  for (const char* name : {"MSKB_ROOT", "MSKB_NVCC", "MSKB_RUNNER", "MSKB_SANITIZER", "MSKB_DEVICE_INPUTS", "MSKB_PIPELINE", "MSKB_SHARE_INSTANCES", "MSKB_DEVICE_TIME",
                           "MSKB_GPU_INSTANCE_MIN_COMPLEXITY", "MSKB_GPU_COMPARE_MIN_COMPLEXITY", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') env[name] = v;
  return env;
}

json timing_policy_json(const TimingPolicy& p) {
  return {{"too_fast_fraction", p.too_fast_fraction},     {"too_fast_flop_fraction", p.too_fast_flop_fraction},
          {"unsynced_gap_us", p.unsynced_gap_us},         {"unsynced_gap_fraction", p.unsynced_gap_fraction},
          {"max_noise", p.max_noise},                     {"replay_dram_margin", p.replay_dram_margin},
          {"replay_l2_multiple", p.replay_l2_multiple}};
}

TimingPolicy timing_policy_from(const json& j) {
  TimingPolicy p;
  if (!j.is_object()) return p;
  p.too_fast_fraction = j.value("too_fast_fraction", p.too_fast_fraction);
  p.too_fast_flop_fraction = j.value("too_fast_flop_fraction", p.too_fast_flop_fraction);
  p.unsynced_gap_us = j.value("unsynced_gap_us", p.unsynced_gap_us);
  p.unsynced_gap_fraction = j.value("unsynced_gap_fraction", p.unsynced_gap_fraction);
  p.max_noise = j.value("max_noise", p.max_noise);
  // A report made before the replay margin existed judged without it: its rerun does too.
  p.replay_dram_margin = j.value("replay_dram_margin", 0.0);
  p.replay_l2_multiple = j.value("replay_l2_multiple", p.replay_l2_multiple);
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

// A local header's name in the record: relative to the source tree where it is in it (so a rerun
// from another checkout finds it), else its absolute path.
std::string include_name(const std::string& path) {
  const fs::path rel = fs::path(path).lexically_relative(fs::path(source_root()).lexically_normal());
  return !rel.empty() && *rel.begin() != ".." ? rel.string() : path;
}

// The local headers a kernel file reaches (local_include_files), named and hashed.
json include_entries(const std::string& kernel, std::map<std::string, json>& hashes) {
  json out = json::array();
  for (const std::string& h : local_include_files(kernel)) {
    if (hashes.count(h) == 0) hashes[h] = file_sha256(h);
    out.push_back({{"path", include_name(h)}, {"sha256", hashes[h]}});
  }
  return out;
}

// Every kernel file of every group the plan runs, with its SHA-256 and its local headers' (each
// file hashed once).
json planned_files(const SuitePlan& plan) {
  std::map<std::string, json> hashes;
  std::map<std::string, json> includes;
  json out = json::array();
  for (const SuiteGroup& g : suite_groups(plan))
    for (const KernelFile& k : g.kernels) {
      const std::string path = absolute(k.path);
      if (hashes.count(path) == 0) hashes[path] = file_sha256(path);
      if (includes.count(path) == 0) includes[path] = include_entries(path, hashes);
      json f = {{"task", g.task},
                {"precision", to_string(g.precision)},
                {"contender", k.contender},
                {"path", path},
                {"sha256", hashes[path]},
                {"shipped", k.trusted || contender_kind(k.contender) != ContenderKind::candidate},
                {"optional", k.optional}};
      if (!includes[path].empty()) f["includes"] = includes[path];
      out.push_back(std::move(f));
    }
  return out;
}

json custom_shape_texts(const std::vector<Shape>& shapes) {
  json out = json::array();
  for (const Shape& s : shapes) out.push_back(s.str());
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
  const int random_count = e.matrix_path.empty() && e.custom_shapes.empty() ? plan.random_shapes : 0;
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
      {"matrix", e.matrix_path.empty() ? json(nullptr) : file_entry(e.matrix_path)},
      {"custom_shapes", custom_shape_texts(e.custom_shapes)}};
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  json tool = tool_record("mskb");
  tool["default_arch"] = default_arch();
  return {{"format", kReproduceFormat},
          {"tool", tool},
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
  // Ad-hoc shapes (--shape): checked against the task's constraints again, as when they were given.
  for (const json& t : s.value("custom_shapes", json::array())) {
    if (plan.tasks.size() != 1) throw std::invalid_argument("a run with --shape has one task");
    e.custom_shapes.push_back(custom_shape(get_task(plan.tasks.front()), t.get<std::string>()));
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
    // Its local headers (reports since they were recorded): each found again by its name among the
    // headers the file reaches now; a header shared by many kernels is named once. One the file
    // no longer reaches is not named: what dropped it (the file or a header) changed and is.
    std::map<std::string, std::string> reached;
    for (const std::string& h : local_include_files(it->second)) reached[include_name(h)] = h;
    for (const json& h : f.value("includes", json::array())) {
      const auto r = reached.find(h.value("path", std::string()));
      if (r == reached.end() || !seen.insert(r->second).second) continue;
      compare("header of " + what, r->second, h.value("sha256", json()));
    }
  }
  return out;
}

}  // namespace mskb

#include "cudamaster/loop/backends.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "mskb/protocol/request.hpp"
#include "mskb/harness/sanitizer.hpp"

namespace cudamaster::loop {

using nlohmann::json;

// ---- building

mskb::CompileResult MskbBuilder::build(const BuildRequest& r) {
  mskb::CompileOptions o;
  o.arch = r.recipe.arch;
  o.flags = r.recipe.flags;
  o.lineinfo = r.recipe.lineinfo;
  o.allow_libraries = r.allow_libraries;
  o.binary_policy = r.binary_policy;
  o.cache_dir = cache_dir_;
  return mskb::compile_kernel(r.path, o);
}

bool toolchain_failure(const mskb::CompileResult& r) {
  if (r.ok) return false;
  static const std::regex toolchain(
      R"(requires \.target|not supported on \.target|unsupported gpu architecture|Unsupported gpu architecture|)"
      R"(ptxas fatal|nvlink (error|fatal)|nvcc fatal|Feature '[^']*' requires|sm_90a|too many resources requested)",
      std::regex::icase);
  return std::regex_search(r.log, toolchain) || std::regex_search(r.error, toolchain);
}

json to_json(const mskb::CompileResult& r) {
  json diags = json::array();
  for (const auto& d : r.diagnostics) diags.push_back({{"file", d.file}, {"line", d.line}, {"severity", d.severity}, {"message", d.message}});
  return {{"ok", r.ok},       {"cache_hit", r.cache_hit}, {"so_path", r.so_path}, {"key", r.key},
          {"seconds", r.seconds}, {"diagnostics", diags}, {"libraries", r.libraries}, {"log", r.log},
          {"error", r.error}, {"policy", mskb::policy_to_json(r)}};
}

mskb::CompileResult compile_result_from_json(const json& j) {
  mskb::CompileResult r;
  r.ok = j.value("ok", false);
  r.cache_hit = j.value("cache_hit", false);
  r.so_path = j.value("so_path", "");
  r.key = j.value("key", "");
  r.seconds = j.value("seconds", 0.0);
  r.log = j.value("log", "");
  r.error = j.value("error", "");
  if (j.contains("libraries")) r.libraries = j["libraries"].get<std::vector<std::string>>();
  for (const json& d : j.value("diagnostics", json::array()))
    r.diagnostics.push_back({d.value("file", ""), d.value("line", 0), d.value("severity", ""), d.value("message", "")});
  if (const json p = j.value("policy", json()); p.is_object()) {
    r.policy_checked = true;
    r.refused_policy = !p.value("ok", true);
    for (const json& v : p.value("violations", json::array())) r.policy_violations.push_back({v.value("kind", ""), v.value("symbol", ""), v.value("reason", "")});
    for (const json& n : p.value("notes", json::array())) r.policy_notes.push_back(n.get<std::string>());
  }
  r.outcome = r.ok ? mskb::CompileOutcome::built : r.refused_policy ? mskb::CompileOutcome::refused_policy : mskb::CompileOutcome::compile_error;
  return r;
}

// ---- evaluating

mskb::ContenderResult MskbEvaluator::evaluate(const EvalRequest& r) {
  mskb::EvalOptions o = options_;
  if (!r.gpu.empty()) o.env.push_back({"CUDA_VISIBLE_DEVICES", r.gpu});
  if (r.mode == kEvalFull) return mskb::evaluate(*r.spec, r.precision, r.contender, r.kernel, r.library, o);
  if (r.mode == kEvalRemeasure) {
    o.timed_sweeps = {mskb::Sweep::paper};
    o.part = mskb::Part::timing;
    return mskb::evaluate(*r.spec, r.precision, r.contender + "-remeasure", r.kernel, r.library, o);
  }
  if (r.mode != kEvalMemcheck && r.mode != kEvalRacecheck) throw std::invalid_argument("unknown evaluation mode '" + r.mode + "'");
  if (sanitizer_.empty()) {
    mskb::ContenderResult res;
    res.task = r.spec->name;
    res.precision = mskb::to_string(r.precision);
    res.contender = r.contender;
    res.kernel = r.kernel;
    res.disposition = mskb::Disposition::harness_error;
    res.message = "harness_error: compute-sanitizer not found (set MSKB_SANITIZER, or run with --no-sanitize)";
    return res;
  }
  // As `mskb check --memcheck`: correctness only, one seed, guard zones off (the evaluator turns
  // them off under a wrapper), a longer call watchdog for the instrumented kernels.
  const mskb::TaskSpec subset = sanitizer_subset(*r.spec);
  o.check_only = true;
  o.seeds = subset.seeds;
  o.random_shapes = 0;  // the instrumented run checks accesses on the smallest shapes only
  o.part = mskb::Part::all;
  o.wrapper = mskb::sanitizer_wrapper(mskb::parse_enum<mskb::SanitizerTool>(r.mode), sanitizer_);
  o.call_timeout_scale *= 20;
  return mskb::evaluate(subset, r.precision, r.contender + "-" + r.mode, r.kernel, r.library, o);
}

json to_json(const mskb::ContenderResult& r) { return mskb::result_to_json(r); }

mskb::ContenderResult contender_result_from_json(const json& j) { return mskb::result_from_json(j); }

// ---- profiling

json to_json(const ProfileSummary& s) {
  return {{"ok", s.ok},           {"class", s.cls},         {"confidence", s.confidence}, {"source", s.source},
          {"rendered", s.rendered}, {"message", s.message}, {"data", s.data}};
}

ProfileSummary profile_summary_from_json(const json& j) {
  ProfileSummary s;
  s.ok = j.value("ok", false);
  s.cls = j.value("class", "");
  s.confidence = j.value("confidence", 0.0);
  s.source = j.value("source", "");
  s.rendered = j.value("rendered", "");
  s.message = j.value("message", "");
  s.data = j.value("data", json());
  return s;
}

}  // namespace cudamaster::loop

#include "cudamaster/loop/backends.hpp"

#include <regex>

#include "mskb/protocol.hpp"

namespace cudamaster::loop {

using nlohmann::json;

// ---- building

mskb::CompileResult MskbBuilder::build(const BuildRequest& r) {
  mskb::CompileOptions o;
  o.arch = r.recipe.arch;
  o.flags = r.recipe.flags;
  o.lineinfo = r.recipe.lineinfo;
  o.allow_libraries = r.allow_libraries;
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
          {"error", r.error}};
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
  return r;
}

// ---- evaluating

mskb::ContenderResult MskbEvaluator::evaluate(const EvalRequest& r) {
  if (r.gpu.empty()) return mskb::evaluate(*r.spec, r.precision, r.contender, r.kernel, r.library, options_);
  mskb::EvalOptions o = options_;
  o.env.push_back({"CUDA_VISIBLE_DEVICES", r.gpu});
  return mskb::evaluate(*r.spec, r.precision, r.contender, r.kernel, r.library, o);
}

namespace {
json shape_pairs(const mskb::Shape& s) {
  json a = json::array();
  for (const auto& d : s.dims) a.push_back({d.first, d.second});
  return a;
}
mskb::Shape shape_from_pairs(const json& a) {
  mskb::Shape s;
  for (const json& d : a) s.dims.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int64_t>());
  return s;
}
}  // namespace

json to_json(const mskb::ContenderResult& r) {
  json timings = json::array();
  for (const mskb::ShapeTiming& t : r.timings) {
    json tj;
    mskb::to_json(tj, t.time);
    timings.push_back({{"sweep", t.sweep},
                       {"shape", shape_pairs(t.shape)},
                       {"shape_str", t.shape.str()},
                       {"complexity", t.complexity},
                       {"roofline_us", t.roofline_us},
                       {"time_us", tj},
                       {"disposition", t.disposition}});
  }
  return {{"task", r.task},
          {"precision", r.precision},
          {"contender", r.contender},
          {"kernel", r.kernel},
          {"disposition", r.disposition},
          {"message", r.message},
          {"failure", r.failure},
          {"timings", timings},
          {"checks_passed", r.checks_passed},
          {"checks_total", r.checks_total},
          {"seconds", r.seconds},
          {"log_tail", r.log_tail}};
}

mskb::ContenderResult contender_result_from_json(const json& j) {
  mskb::ContenderResult r;
  r.task = j.value("task", "");
  r.precision = j.value("precision", "");
  r.contender = j.value("contender", "");
  r.kernel = j.value("kernel", "");
  r.disposition = j.value("disposition", mskb::disposition::not_run);
  r.message = j.value("message", "");
  r.failure = j.value("failure", json());
  r.checks_passed = j.value("checks_passed", 0);
  r.checks_total = j.value("checks_total", 0);
  r.seconds = j.value("seconds", 0.0);
  r.log_tail = j.value("log_tail", "");
  for (const json& t : j.value("timings", json::array())) {
    mskb::ShapeTiming st;
    st.sweep = t.value("sweep", "");
    st.shape = shape_from_pairs(t.value("shape", json::array()));
    st.complexity = t.value("complexity", std::uint64_t{0});
    st.roofline_us = t.value("roofline_us", 0.0);
    mskb::from_json(t.at("time_us"), st.time);
    st.disposition = t.value("disposition", "");
    r.timings.push_back(std::move(st));
  }
  return r;
}

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

// A ContenderResult as JSON and back (the run store, the executors' reports): result_to_json and
// result_from_json of evaluator.hpp.
#include <string>
#include <utility>

#include "mskb/harness/evaluator.hpp"

using json = nlohmann::json;

namespace mskb {

namespace {
json shape_pairs(const Shape& s) {
  json a = json::array();
  for (const auto& d : s.dims) a.push_back({d.first, d.second});
  return a;
}
Shape shape_from_pairs(const json& a) {
  Shape s;
  for (const json& d : a) s.dims.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int64_t>());
  return s;
}
}  // namespace


json result_to_json(const ContenderResult& r) {
  json timings = json::array();
  for (const ShapeTiming& t : r.timings) {
    json tj;
    to_json(tj, t.time);
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
          {"phase_seconds", r.phase_seconds},
          {"timing_part_seconds", r.timing_part_seconds},
          {"slowest_generate", slowest_generate_json(r)},
          {"sanitized", r.sanitized},
          {"sandbox", r.sandbox},
          {"notes", r.notes},
          {"log_tail", r.log_tail}};
}

ContenderResult result_from_json(const json& j) {
  ContenderResult r;
  r.task = j.value("task", "");
  r.precision = j.value("precision", "");
  r.contender = j.value("contender", "");
  r.kernel = j.value("kernel", "");
  r.disposition = j.value("disposition", Disposition::not_run);
  r.message = j.value("message", "");
  r.failure = j.value("failure", json());
  r.checks_passed = j.value("checks_passed", 0);
  if (j.contains("phase_seconds") && j["phase_seconds"].is_object())
    r.phase_seconds = j["phase_seconds"].get<std::map<std::string, double>>();
  if (j.contains("timing_part_seconds") && j["timing_part_seconds"].is_object())
    r.timing_part_seconds = j["timing_part_seconds"].get<std::map<std::string, double>>();
  if (const auto g = j.find("slowest_generate"); g != j.end() && g->is_object()) {
    r.slowest_generate_shape = g->value("shape", "");
    r.slowest_generate_s = g->value("seconds", 0.0);
  }
  if (j.contains("sanitized") && j["sanitized"].is_array()) r.sanitized = j["sanitized"].get<std::vector<std::string>>();
  r.checks_total = j.value("checks_total", 0);
  r.seconds = j.value("seconds", 0.0);
  r.log_tail = j.value("log_tail", "");
  r.sandbox = j.value("sandbox", "");
  if (const auto n = j.find("notes"); n != j.end() && n->is_object()) r.notes = n->get<std::map<std::string, std::string>>();
  for (const json& t : j.value("timings", json::array())) {
    ShapeTiming st;
    st.sweep = t.value("sweep", Sweep::paper);
    st.shape = shape_from_pairs(t.value("shape", json::array()));
    st.complexity = t.value("complexity", std::uint64_t{0});
    st.roofline_us = t.value("roofline_us", 0.0);
    from_json(t.at("time_us"), st.time);
    st.disposition = t.value("disposition", Disposition::passed);
    r.timings.push_back(std::move(st));
  }
  return r;
}


}  // namespace mskb

#include "mskb/protocol/request.hpp"

#include "mskb/core/registry.hpp"

namespace mskb {

void to_json(nlohmann::json& j, const Shape& s) {
  j = nlohmann::json::object();
  for (const auto& d : s.dims) j[d.first] = d.second;
}

void from_json(const nlohmann::json& j, Shape& s) {
  // nlohmann's object is sorted by key; the order travels separately as "_order" when needed.
  s.dims.clear();
  if (j.contains("_order")) {
    for (const auto& k : j.at("_order")) s.dims.emplace_back(k.get<std::string>(), j.at(k.get<std::string>()).get<int64_t>());
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it) s.dims.emplace_back(it.key(), it.value().get<int64_t>());
}

namespace {
nlohmann::json shape_with_order(const Shape& s) {
  nlohmann::json j = s;
  nlohmann::json order = nlohmann::json::array();
  for (const auto& d : s.dims) order.push_back(d.first);
  j["_order"] = order;
  return j;
}
}  // namespace

void to_json(nlohmann::json& j, const TimingConfig& c) {
  j = {{"warmup_calls", c.warmup_calls}, {"warmup_s", c.warmup_s},     {"min_samples", c.min_samples},
       {"max_samples", c.max_samples},   {"min_time_s", c.min_time_s}, {"max_time_s", c.max_time_s},
       {"target_noise", c.target_noise}, {"flush_l2", c.flush_l2}, {"device_samples", c.device_samples}};
}

void from_json(const nlohmann::json& j, TimingConfig& c) {
  c.warmup_calls = j.value("warmup_calls", c.warmup_calls);
  c.warmup_s = j.value("warmup_s", c.warmup_s);
  c.min_samples = j.value("min_samples", c.min_samples);
  c.max_samples = j.value("max_samples", c.max_samples);
  c.min_time_s = j.value("min_time_s", c.min_time_s);
  c.max_time_s = j.value("max_time_s", c.max_time_s);
  c.target_noise = j.value("target_noise", c.target_noise);
  c.flush_l2 = j.value("flush_l2", c.flush_l2);
  c.device_samples = j.value("device_samples", c.device_samples);
}

void to_json(nlohmann::json& j, const RunRequest& r) {
  nlohmann::json checks = nlohmann::json::array(), timings = nlohmann::json::array();
  for (const auto& c : r.checks) checks.push_back({{"shape", shape_with_order(c.shape)}, {"sweep", c.sweep}, {"seeds", c.seeds}});
  for (const auto& t : r.timings) timings.push_back({{"shape", shape_with_order(t.shape)}, {"sweep", t.sweep}, {"seed", t.seed}});
  j = {{"mode", r.mode},
       {"token", r.token},
       {"task", r.task},
       {"precision", to_string(r.precision)},
       {"library", r.library},
       {"symbol", r.symbol},
       {"checks", checks},
       {"timings", timings},
       {"timing", r.timing},
       {"verify_after_timing", r.verify_after_timing},
       {"gpu_reference_min_complexity", r.gpu_reference_min_complexity},
       {"gpu_instance_min_complexity", r.gpu_instance_min_complexity},
       {"gpu_compare_min_complexity", r.gpu_compare_min_complexity},
       {"device_inputs", r.device_inputs},
       {"guard_bytes", r.guard_bytes},
       {"matrix_path", r.matrix_path}};
  if (!r.task_file.empty()) j["task_file"] = r.task_file;  // a user's task file (absent for built-in tasks)
  if (!r.reference_library.empty()) j["reference_library"] = r.reference_library;  // a task file's reference kernel
  if (!r.gpu_lock.empty()) j["gpu_lock"] = r.gpu_lock;
  if (!r.gpu_lock_log.empty()) j["gpu_lock_log"] = r.gpu_lock_log;
  if (r.load_before_lock) j["load_before_lock"] = true;
  if (r.host_threads != 0) j["host_threads"] = r.host_threads;
  if (!r.instance_share_dir.empty()) {
    j["instance_share_dir"] = r.instance_share_dir;
    j["instance_share_consumers"] = r.instance_share_consumers;
  }
}

void from_json(const nlohmann::json& j, RunRequest& r) {
  r.mode = j.value("mode", RunMode::evaluate);
  r.token = j.value("token", std::string());
  r.task = j.value("task", std::string());
  r.precision = parse_precision(j.value("precision", std::string("fp32")));
  r.library = j.value("library", std::string());
  r.symbol = j.value("symbol", std::string());
  r.checks.clear();
  r.timings.clear();
  if (j.contains("checks"))
    for (const auto& c : j.at("checks"))
      r.checks.push_back({c.at("shape").get<Shape>(), c.at("sweep").get<Sweep>(), c.at("seeds").get<std::vector<uint64_t>>()});
  if (j.contains("timings"))
    for (const auto& t : j.at("timings"))
      r.timings.push_back({t.at("shape").get<Shape>(), t.at("sweep").get<Sweep>(), t.value("seed", uint64_t{1})});
  if (j.contains("timing")) r.timing = j.at("timing").get<TimingConfig>();
  r.verify_after_timing = j.value("verify_after_timing", true);
  r.gpu_reference_min_complexity = j.value("gpu_reference_min_complexity", 1e8);
  r.gpu_instance_min_complexity = j.value("gpu_instance_min_complexity", 4194304.0);
  r.gpu_compare_min_complexity = j.value("gpu_compare_min_complexity", RunRequest{}.gpu_compare_min_complexity);
  r.device_inputs = j.value("device_inputs", true);
  r.guard_bytes = j.value("guard_bytes", std::size_t{64 * 1024});
  r.matrix_path = j.value("matrix_path", std::string());
  r.task_file = j.value("task_file", std::string());
  r.reference_library = j.value("reference_library", std::string());
  r.gpu_lock = j.value("gpu_lock", std::string());
  r.gpu_lock_log = j.value("gpu_lock_log", std::string());
  r.load_before_lock = j.value("load_before_lock", false);
  r.host_threads = j.value("host_threads", 0);
  r.instance_share_dir = j.value("instance_share_dir", std::string());
  r.instance_share_consumers = j.value("instance_share_consumers", 0);
}

const TaskSpec& request_task(const RunRequest& r) { return resolve_task(r.task, r.task_file); }

bool is_timed(const RunRequest& r, const CheckItem& c) {
  for (const auto& t : r.timings)
    if (t.shape == c.shape && t.sweep == c.sweep) return true;
  return false;
}

}  // namespace mskb

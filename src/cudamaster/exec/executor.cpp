#include "cudamaster/exec/executor.hpp"

namespace cudamaster::exec {

nlohmann::json Executor::to_json() const {
  nlohmann::json j = mskb::to_json(launcher);
  if (launcher.slurm()) j["jobs"] = jobs;
  return j;
}

Executor Executor::from_json(const nlohmann::json& j) {
  Executor e;
  e.launcher = mskb::launcher_from_json(j);
  if (j.is_object()) e.jobs = j.value("jobs", e.jobs);
  return e;
}

std::string Executor::describe() const {
  if (!launcher.slurm()) return mskb::describe(launcher);
  return mskb::describe(launcher) + ", " + std::to_string(jobs) + " job step" + (jobs == 1 ? "" : "s") + " at once";
}

}  // namespace cudamaster::exec

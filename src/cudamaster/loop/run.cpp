// A whole run: creates or resumes it in the store, runs its jobs (--jobs at a time, GPU work one
// at a time per lane), and records the suite summary.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/summary.hpp"
#include "cudamaster/store/reading.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/harness/sanitizer.hpp"
#include "mskb/report/cells.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::loop {

namespace {

json settings_json(const agents::AgentSettings& s) {
  json j = {{"max_tokens", s.max_tokens}};
  if (s.temperature) j["temperature"] = *s.temperature;
  if (s.reasoning_effort) j["reasoning_effort"] = *s.reasoning_effort;
  return j;
}

agents::AgentSettings settings_from(const json& j, agents::AgentSettings d) {
  if (!j.is_object()) return d;
  d.max_tokens = j.value("max_tokens", d.max_tokens);
  if (j.contains("temperature")) d.temperature = j["temperature"].get<double>();
  if (j.contains("reasoning_effort")) d.reasoning_effort = j["reasoning_effort"].get<std::string>();
  return d;
}

bool process_alive(std::int64_t pid) {
  if (pid <= 0) return false;
  std::error_code ec;
  return fs::exists("/proc/" + std::to_string(pid), ec);
}

std::string hostname() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

using Say = std::function<void(const std::string&)>;

// The run's configuration: given now, or recorded by the run being resumed.
struct RunPlan {
  std::int64_t run_id = 0;
  json config;
  double prior_active = 0;
  LoopConfig loop;
  std::vector<std::string> tasks;
  std::vector<std::string> precisions;
  std::string llm_text;
  std::string prompts_dir;
  json device;
  exec::Executor executor;
};

RunPlan read_plan(const OptimizeRequest& request, store::RunStore& store) {
  RunPlan plan;
  json& config = plan.config;
  if (request.resume) {
    const auto run = store.run(*request.resume);
    if (!run) throw std::runtime_error(fmt::format("no run {} in {}", *request.resume, request.db_path));
    if (run->status == store::Status::running && run->host == hostname() && process_alive(run->pid) && run->pid != ::getpid())
      throw std::runtime_error(fmt::format("run {} is still running (pid {}); stop it before resuming", run->id, run->pid));
    plan.run_id = run->id;
    config = run->config;
    plan.prior_active = run->active_seconds;
  }
  plan.loop = request.resume ? LoopConfig::from_json(config.value("loop", json::object())) : request.config;
  if (request.resume) {
    // What a resume may change: budget, wall clock (the rest is the run's identity).
    if (request.config.budget_usd) plan.loop.budget_usd = request.config.budget_usd;
    if (request.config.max_minutes) plan.loop.max_minutes = request.config.max_minutes;
  }
  plan.tasks = request.resume ? config.value("tasks", std::vector<std::string>{}) : request.tasks;
  if (request.resume) {
    plan.precisions = config.value("precisions", std::vector<std::string>{});
  } else {
    for (mskb::Precision p : request.precisions) plan.precisions.push_back(mskb::to_string(p));
  }
  plan.llm_text = request.resume ? config.value("llm", "") : request.llm;
  plan.prompts_dir = !request.prompts_dir.empty() ? request.prompts_dir
                     : request.resume             ? config.value("prompts_dir", agents::default_prompts_dir())
                                                  : agents::default_prompts_dir();
  plan.device = request.resume ? config.value("device", json::object()) : request.device;
  // Where GPU work runs: as asked, else as the run recorded (a run from before executors: local).
  plan.executor = request.executor ? *request.executor
                  : request.resume ? exec::Executor::from_json(config.value("executor", json::object()))
                                   : exec::Executor{};
  return plan;
}

// A resume is refused while another live process on this host runs the run. What it reads from the
// store (the run's row and recorded configuration) names the store in an error it causes.
RunPlan plan_run(const OptimizeRequest& request, store::RunStore& store) {
  if (!request.resume) return read_plan(request, store);
  RunPlan plan;
  store::reading_store(request.db_path, [&] { plan = read_plan(request, store); });
  return plan;
}

// Checks the plan before any work; returns the compute-sanitizer to gate with ("" = none needed).
std::string check_plan(const RunPlan& plan, const Backends& backends) {
  try {
    mskb::validate(plan.executor.launcher);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  for (const std::string& f : plan.loop.task_files) {
    try {
      (void)mskb::register_task_file(f);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("the run's task file: ") + e.what());
    }
  }
  for (const std::string& t : plan.tasks) (void)mskb::get_task(t);  // throws "unknown task 'x' (did you mean ...)"
  if (plan.tasks.empty()) throw std::runtime_error("no tasks to optimize");
  // The acceptance gate needs compute-sanitizer (the real evaluator; test doubles bring their own).
  std::string sanitizer;
  if (plan.loop.sanitize && !plan.loop.dry_run && backends.evaluator == nullptr) {
    sanitizer = mskb::find_sanitizer();
    if (sanitizer.empty())
      throw std::runtime_error("compute-sanitizer not found (PATH, $CUDA_HOME/bin, next to nvcc, /usr/local/cuda/bin; set "
                               "MSKB_SANITIZER): candidates must pass memcheck and racecheck to be accepted; --no-sanitize "
                               "turns the gate off (weaker)");
  }
  return sanitizer;
}

void check_prompts(agents::PromptLibrary& prompts) {
  for (const char* name : {"rules", "planner.system", "planner.user", "coder.system", "coder.user", "debug.system", "debug.user",
                           "compiler.system", "compiler.user"})
    (void)prompts.get(name);  // a missing or malformed template fails now, not mid-run
}

// The LLM client with the run-wide budget (restored from the store on resume); a test's gateway as given.
LlmGateway* open_gateway(const OptimizeRequest& request, const Backends& backends, const RunPlan& plan,
                         std::unique_ptr<LlmGateway>& own_gateway) {
  if (backends.gateway != nullptr) return backends.gateway;
  llm::ClientOptions co;
  co.llm = plan.llm_text;
  co.record_path = request.record_path;
  co.pricing_path = request.pricing_path;
  co.budget = plan.loop.budget_usd ? std::make_shared<llm::Budget>(*plan.loop.budget_usd) : std::make_shared<llm::Budget>();
  co.provider = request.provider;
  auto g = LlmGateway::create(co);
  if (!g) throw std::runtime_error(g.error().describe());
  own_gateway = std::move(g).value();
  return own_gateway.get();
}

std::string default_out_dir(std::int64_t run_id) {
  return (fs::path("cudamaster-out") / ("run-" + std::to_string(run_id))).string();
}

// A new run is created in the store; a resumed one records this session's executor and its spend so far.
void record_session(store::RunStore& store, const OptimizeRequest& request, RunPlan& plan, agents::PromptLibrary& prompts,
                    LlmGateway& gateway, const Say& say) {
  json& config = plan.config;
  if (!request.resume) {
    config = {{"tasks", plan.tasks},
              {"precisions", plan.precisions},
              {"llm", plan.llm_text},
              {"loop", plan.loop.to_json()},
              {"prompts_dir", plan.prompts_dir},
              {"prompts_fingerprint", prompts.fingerprint()},
              {"device", plan.device},
              {"executor", plan.executor.to_json()},
              {"jobs", request.jobs},
              {"replay_match", request.provider.replay_match == llm::ReplayMatch::SystemOnly ? "system"
                               : request.provider.replay_match == llm::ReplayMatch::Task     ? "task"
                                                                                             : "full"},
              // The random shapes every candidate is also checked on (mskb/random_shapes.hpp):
              // drawn once per run, the same in a resumed session.
              {"shape_seed", mskb::fresh_shape_seed()},
              {"cudamaster", mskb::tool_version()},
              // The code that runs the loop (issue 43's provenance: `cudamaster show` names it).
              {"tool", mskb::tool_record("cudamaster")}};
    if (plan.loop.dry_run) config["dry_run"] = true;  // agents and compiler only: nothing evaluated, no P
    plan.run_id = store.create_run(plan.llm_text, config);
    // The default output folder names the run, so it is recorded once the id is known.
    config["out_dir"] = request.out_dir.empty() ? default_out_dir(plan.run_id) : request.out_dir;
    store.set_run_config(plan.run_id, config);
    return;
  }
  // A session resumed by other code: said, and recorded beside the code the run began with.
  if (const json tool = mskb::tool_record("cudamaster"); config.contains("tool") && config["tool"] != tool) {
    say(fmt::format("run {}: this session runs {} (the run began with {})", plan.run_id, mskb::report::code_text(tool),
                    mskb::report::code_text(config["tool"])));
    json& later = config["resumed_with"];
    if (!later.is_array()) later = json::array();
    if (std::find(later.begin(), later.end(), tool) == later.end()) later.push_back(tool);
    store.set_run_config(plan.run_id, config);
  }
  // The executor a session ran on is part of the record (`cudamaster show` says where it ran).
  if (config.value("executor", exec::Executor{}.to_json()) != plan.executor.to_json()) {
    say(fmt::format("run {}: this session runs GPU work on {} (was {})", plan.run_id, plan.executor.describe(),
                    exec::Executor::from_json(config.value("executor", json::object())).describe()));
    config["executor"] = plan.executor.to_json();
    store.set_run_config(plan.run_id, config);
  }
  const std::string fp = prompts.fingerprint();
  if (config.value("prompts_fingerprint", fp) != fp)
    say(fmt::format("warning: the prompt templates changed since run {} started; recorded steps are replayed as they were", plan.run_id));
  const double spent = store.run_cost(plan.run_id);
  if (spent > 0 && gateway.budget()) gateway.budget()->charge(spent);
}

std::string make_out_dir(const OptimizeRequest& request, const RunPlan& plan) {
  const std::string out_dir = !request.out_dir.empty()       ? request.out_dir
                              : plan.config.contains("out_dir") ? plan.config["out_dir"].get<std::string>()
                                                                : default_out_dir(plan.run_id);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + out_dir + ": " + ec.message());
  return out_dir;
}

// The backends a test did not inject: the real builder, evaluator and profiler.
struct RealBackends {
  std::unique_ptr<KernelBuilder> own_builder;
  std::unique_ptr<CandidateEvaluator> own_evaluator;
  std::unique_ptr<ProfileProvider> own_profiler;
  KernelBuilder* builder = nullptr;
  CandidateEvaluator* evaluator = nullptr;
  ProfileProvider* profiler = nullptr;
};

RealBackends open_backends(const Backends& backends, const RunPlan& plan, const std::string& sanitizer) {
  RealBackends b;
  b.builder = backends.builder;
  if (b.builder == nullptr) {
    b.own_builder = std::make_unique<MskbBuilder>();
    b.builder = b.own_builder.get();
  }
  b.evaluator = backends.evaluator;
  if (plan.loop.dry_run) return b;  // nothing is evaluated or profiled
  if (b.evaluator == nullptr) {
    mskb::EvalOptions eo;
    eo.settings = mskb::Settings::from_environment();  // the MSKB_* variables, read once for the run
    eo.ceilings = mskb::ceilings_from(plan.device);
    eo.launcher = plan.executor.launcher;
    // Runs from before random shapes (no seed recorded) keep their plan when resumed.
    eo.shape_seed = plan.config.value("shape_seed", uint64_t{0});
    eo.random_shapes = eo.shape_seed != 0 ? 2 : 0;
    b.own_evaluator = std::make_unique<MskbEvaluator>(eo, sanitizer);
    b.evaluator = b.own_evaluator.get();
  }
  b.profiler = backends.profiler;
  if (b.profiler == nullptr && plan.loop.profile != profile::RenderMode::none) {
    b.own_profiler = make_cm_profile_provider("", plan.executor.launcher);
    b.profiler = b.own_profiler.get();
  }
  return b;
}

// Slurm: `jobs` unpinned lanes without a device (each step gets its GPU from the scheduler).
exec::GpuLanes make_lanes(const OptimizeRequest& request, const exec::Executor& executor) {
  if (executor.launcher.slurm()) return exec::GpuLanes(executor.jobs, false);
  if (request.gpus.empty()) return exec::GpuLanes(1);
  return exec::GpuLanes(request.gpus);
}

void say_lanes(const OptimizeRequest& request, const exec::Executor& executor, const Say& say) {
  if (executor.launcher.slurm()) say("GPU work: " + executor.describe());
  else if (request.gpus.size() > 1) say(fmt::format("GPU lanes: {} (CUDA_VISIBLE_DEVICES {})", request.gpus.size(), fmt::join(request.gpus, ",")));
}

// Jobs: task x precision, created once; finished and failed ones are not run again.
void run_jobs(store::RunStore& store, const Services& sv, const RunPlan& plan, const JobEnv& env, const OptimizeRequest& request,
              const Say& say, const RunProgress& stages) {
  std::vector<store::JobInfo> todo;
  for (const std::string& t : plan.tasks)
    for (const std::string& p : plan.precisions) store.ensure_job(plan.run_id, t, p);
  for (const store::JobInfo& j : store.jobs(plan.run_id))
    if (j.status != store::Status::finished && j.status != store::Status::failed) todo.push_back(j);
  say(fmt::format("run {}: {} job{} to run ({} already done), {} at a time; db {}; output {}", plan.run_id, todo.size(),
                  todo.size() == 1 ? "" : "s", store.jobs(plan.run_id).size() - todo.size(), request.jobs, request.db_path,
                  env.out_dir));
  if (stages.jobs) stages.jobs(todo.size(), plan.loop.rounds);
  exec::run_pool(todo.size(), request.jobs, [&](std::size_t i) {
    if (env.stage) env.stage(todo[i], 0);
    JobResult r = run_job(sv, plan.loop, env, todo[i]);
    (void)r;
    if (env.stage) env.stage(todo[i], plan.loop.rounds + 1);
  });
}

// The run's status from its jobs, its summary in the store and in <out_dir>/summary.json.
OptimizeResult finish_run(store::RunStore& store, std::int64_t run_id, const std::string& out_dir) {
  OptimizeResult res;
  res.run_id = run_id;
  bool stopped = false, all_failed = true;
  for (const store::JobInfo& j : store.jobs(run_id)) {
    stopped |= j.status == store::Status::stopped || j.status == store::Status::running || j.status == store::Status::pending;
    all_failed &= j.status == store::Status::failed;
  }
  res.status = stopped ? store::Status::stopped : all_failed ? store::Status::failed : store::Status::finished;
  res.waiting = waiting_jobs(store.jobs(run_id), &res.all_waiting);
  store.set_run_status(run_id, res.status, nullptr);
  res.summary = build_summary(store, run_id);
  store.set_run_status(run_id, res.status, res.summary);
  std::ofstream(fs::path(out_dir) / "summary.json") << res.summary.dump(2) << "\n";
  return res;
}

}  // namespace

std::vector<json> waiting_jobs(const std::vector<store::JobInfo>& jobs, bool* all_waiting) {
  std::vector<json> out;
  bool others = false;
  for (const store::JobInfo& j : jobs) {
    if (j.status == store::Status::finished || j.status == store::Status::failed) continue;
    const bool waits = j.status == store::Status::stopped && j.stop_reason == "awaiting_reply" && j.result.is_object() &&
                       j.result.contains("awaiting") && j.result["awaiting"].is_object();
    if (!waits) {
      others = true;
      continue;
    }
    json w = j.result["awaiting"];
    w["task"] = j.task;
    w["precision"] = j.precision;
    out.push_back(std::move(w));
  }
  if (all_waiting != nullptr) *all_waiting = !out.empty() && !others;
  return out;
}

json LoopConfig::to_json() const {
  json j = {{"rounds", rounds},
            {"debug_loops", debug_loops},
            {"patience", patience},
            {"profile", profile},
            {"planner", planner},
            {"min_gain", min_gain},
            {"allow_libraries", allow_libraries},
            {"sanitize", sanitize},
            {"recipe", {{"arch", recipe.arch}, {"flags", recipe.flags}, {"lineinfo", recipe.lineinfo}}},
            {"allowed_archs", allowed_archs},
            {"max_minutes", max_minutes ? json(*max_minutes) : json()},
            {"budget_usd", budget_usd ? json(*budget_usd) : json()},
            {"agents",
             {{"planner", settings_json(planner_settings)},
              {"coder", settings_json(coder_settings)},
              {"debug", settings_json(debug_settings)},
              {"compiler", settings_json(compiler_settings)}}}};
  if (!task_files.empty()) j["task_files"] = task_files;
  if (dry_run) j["dry_run"] = true;
  return j;
}

LoopConfig LoopConfig::from_json(const json& j) {
  LoopConfig c;
  c.rounds = j.value("rounds", c.rounds);
  c.debug_loops = j.value("debug_loops", c.debug_loops);
  c.patience = j.value("patience", c.patience);
  c.profile = j.value("profile", c.profile);
  c.planner = j.value("planner", c.planner);
  c.min_gain = j.value("min_gain", c.min_gain);
  c.allow_libraries = j.value("allow_libraries", c.allow_libraries);
  c.sanitize = j.value("sanitize", c.sanitize);
  if (j.contains("recipe")) {
    const json& r = j["recipe"];
    c.recipe.arch = r.value("arch", "");
    c.recipe.flags = r.value("flags", std::vector<std::string>{});
    c.recipe.lineinfo = r.value("lineinfo", false);
  }
  c.allowed_archs = j.value("allowed_archs", c.allowed_archs);
  if (j.contains("max_minutes") && j["max_minutes"].is_number()) c.max_minutes = j["max_minutes"].get<double>();
  if (j.contains("budget_usd") && j["budget_usd"].is_number()) c.budget_usd = j["budget_usd"].get<double>();
  const json a = j.value("agents", json::object());
  c.planner_settings = settings_from(a.value("planner", json()), c.planner_settings);
  c.coder_settings = settings_from(a.value("coder", json()), c.coder_settings);
  c.debug_settings = settings_from(a.value("debug", json()), c.debug_settings);
  c.compiler_settings = settings_from(a.value("compiler", json()), c.compiler_settings);
  c.task_files = j.value("task_files", std::vector<std::string>{});
  c.dry_run = j.value("dry_run", false);
  return c;
}

OptimizeResult run_optimize(const OptimizeRequest& request, const Backends& backends,
                            const std::function<void(const std::string&)>& progress, const std::atomic<bool>* interrupted,
                            const RunProgress& stages) {
  std::mutex say_mutex;
  const Say say = [&](const std::string& s) {
    if (!progress) return;
    std::lock_guard<std::mutex> lock(say_mutex);
    progress(s);
  };
  auto store = store::RunStore::open(request.db_path);
  RunPlan plan = plan_run(request, *store);
  const std::string sanitizer = check_plan(plan, backends);
  agents::PromptLibrary prompts(plan.prompts_dir);
  check_prompts(prompts);
  std::unique_ptr<LlmGateway> own_gateway;
  LlmGateway* gateway = open_gateway(request, backends, plan, own_gateway);
  // A resume claims the run only once its plan, prompts and LLM are known good: a session refused
  // before any work leaves the run's status (finished, stopped, failed) as it was.
  if (request.resume) store->claim_run(plan.run_id);
  record_session(*store, request, plan, prompts, *gateway, say);
  const std::string out_dir = make_out_dir(request, plan);
  const std::int64_t run_id = plan.run_id;

  RealBackends real = open_backends(backends, plan, sanitizer);
  exec::GpuLanes lanes = make_lanes(request, plan.executor);
  say_lanes(request, plan.executor, say);
  if (plan.loop.dry_run)
    say(fmt::format("run {}: dry run: the agents and the compiler only; no candidate is evaluated or profiled, so nothing has a P "
                    "(not a score)", run_id));
  Services sv;
  sv.store = store.get();
  sv.llm = gateway;
  sv.prompts = &prompts;
  sv.builder = real.builder;
  sv.evaluator = real.evaluator;
  sv.profiler = plan.loop.profile == profile::RenderMode::none ? nullptr : real.profiler;
  sv.gpu = &lanes;

  const auto session_start = std::chrono::steady_clock::now();
  const double prior_active = plan.prior_active;
  std::mutex beat_mutex;
  JobEnv env;
  env.run_id = run_id;
  env.out_dir = out_dir;
  env.work_dir = (fs::path(out_dir) / "candidates").string();
  env.gpu_name = plan.device.value("name", std::string());
  if (plan.loop.max_minutes)
    env.deadline = session_start + std::chrono::milliseconds(static_cast<std::int64_t>(
                                       std::max(0.0, *plan.loop.max_minutes * 60.0 - prior_active) * 1000.0));
  env.interrupted = interrupted;
  env.progress = say;
  env.stage = stages.stage;
  env.heartbeat = [&] {
    std::lock_guard<std::mutex> lock(beat_mutex);
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start).count();
    store->set_active_seconds(run_id, prior_active + now);
  };
  run_jobs(*store, sv, plan, env, request, say, stages);
  env.heartbeat();
  return finish_run(*store, run_id, out_dir);
}

}  // namespace cudamaster::loop

// A whole run: creates or resumes it in the store, runs its jobs (--jobs at a time, GPU work one
// at a time per lane), and records the suite summary.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/summary.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/suite.hpp"

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

}  // namespace

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
  return c;
}

OptimizeResult run_optimize(const OptimizeRequest& request, const Backends& backends,
                            const std::function<void(const std::string&)>& progress, const std::atomic<bool>* interrupted) {
  std::mutex say_mutex;
  auto say = [&](const std::string& s) {
    if (!progress) return;
    std::lock_guard<std::mutex> lock(say_mutex);
    progress(s);
  };
  auto store = store::RunStore::open(request.db_path);

  // The run's configuration: given now, or recorded by the run being resumed.
  std::int64_t run_id = 0;
  json config;
  double prior_active = 0;
  if (request.resume) {
    const auto run = store->run(*request.resume);
    if (!run) throw std::runtime_error(fmt::format("no run {} in {}", *request.resume, request.db_path));
    if (run->status == store::Status::running && run->host == hostname() && process_alive(run->pid) && run->pid != ::getpid())
      throw std::runtime_error(fmt::format("run {} is still running (pid {}); stop it before resuming", run->id, run->pid));
    run_id = run->id;
    config = run->config;
    prior_active = run->active_seconds;
    store->claim_run(run_id);
  }
  LoopConfig loop = request.resume ? LoopConfig::from_json(config.value("loop", json::object())) : request.config;
  if (request.resume) {
    // What a resume may change: budget, wall clock (the rest is the run's identity).
    if (request.config.budget_usd) loop.budget_usd = request.config.budget_usd;
    if (request.config.max_minutes) loop.max_minutes = request.config.max_minutes;
  }
  std::vector<std::string> tasks = request.resume ? config.value("tasks", std::vector<std::string>{}) : request.tasks;
  std::vector<std::string> precisions;
  if (request.resume) {
    precisions = config.value("precisions", std::vector<std::string>{});
  } else {
    for (mskb::Precision p : request.precisions) precisions.push_back(mskb::to_string(p));
  }
  const std::string llm_text = request.resume ? config.value("llm", "") : request.llm;
  const std::string prompts_dir = !request.prompts_dir.empty() ? request.prompts_dir
                                  : request.resume             ? config.value("prompts_dir", agents::default_prompts_dir())
                                                               : agents::default_prompts_dir();
  const json device = request.resume ? config.value("device", json::object()) : request.device;
  // Where GPU work runs: as asked, else as the run recorded (a run from before executors: local).
  const exec::Executor executor = request.executor ? *request.executor
                                  : request.resume ? exec::Executor::from_json(config.value("executor", json::object()))
                                                   : exec::Executor{};
  try {
    mskb::validate(executor.launcher);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  for (const std::string& t : tasks) (void)mskb::get_task(t);  // throws "unknown task 'x' (did you mean ...)"
  if (tasks.empty()) throw std::runtime_error("no tasks to optimize");
  // The acceptance gate needs compute-sanitizer (the real evaluator; test doubles bring their own).
  std::string sanitizer;
  if (loop.sanitize && backends.evaluator == nullptr) {
    sanitizer = mskb::find_sanitizer();
    if (sanitizer.empty())
      throw std::runtime_error("compute-sanitizer not found (PATH, $CUDA_HOME/bin, next to nvcc, /usr/local/cuda/bin; set "
                               "MSKB_SANITIZER): candidates must pass memcheck and racecheck to be accepted; --no-sanitize "
                               "turns the gate off (weaker)");
  }
  agents::PromptLibrary prompts(prompts_dir);
  for (const char* name : {"rules", "planner.system", "planner.user", "coder.system", "coder.user", "debug.system", "debug.user",
                           "compiler.system", "compiler.user"})
    (void)prompts.get(name);  // a missing or malformed template fails now, not mid-run

  // The LLM client with the run-wide budget (restored from the store on resume).
  auto budget = loop.budget_usd ? std::make_shared<llm::Budget>(*loop.budget_usd) : std::make_shared<llm::Budget>();
  std::unique_ptr<LlmGateway> own_gateway;
  LlmGateway* gateway = backends.gateway;
  if (gateway == nullptr) {
    llm::ClientOptions co;
    co.llm = llm_text;
    co.record_path = request.record_path;
    co.pricing_path = request.pricing_path;
    co.budget = budget;
    co.provider = request.provider;
    auto g = LlmGateway::create(co);
    if (!g) throw std::runtime_error(g.error().describe());
    own_gateway = std::move(g).value();
    gateway = own_gateway.get();
  }

  if (!request.resume) {
    config = {{"tasks", tasks},
              {"precisions", precisions},
              {"llm", llm_text},
              {"loop", loop.to_json()},
              {"prompts_dir", prompts_dir},
              {"prompts_fingerprint", prompts.fingerprint()},
              {"device", device},
              {"executor", executor.to_json()},
              {"jobs", request.jobs},
              {"replay_match", request.provider.replay_match == llm::ReplayMatch::SystemOnly ? "system" : "full"},
              // The random shapes every candidate is also checked on (mskb/random_shapes.hpp):
              // drawn once per run, the same in a resumed session.
              {"shape_seed", mskb::fresh_shape_seed()},
              {"cudamaster", "0.1.0"}};
    run_id = store->create_run(llm_text, config);
    // The default output folder names the run, so it is recorded once the id is known.
    config["out_dir"] = request.out_dir.empty() ? (fs::path("cudamaster-out") / ("run-" + std::to_string(run_id))).string() : request.out_dir;
    store->set_run_config(run_id, config);
  } else {
    // The executor a session ran on is part of the record (`cudamaster show` says where it ran).
    if (config.value("executor", exec::Executor{}.to_json()) != executor.to_json()) {
      say(fmt::format("run {}: this session runs GPU work on {} (was {})", run_id, executor.describe(),
                      exec::Executor::from_json(config.value("executor", json::object())).describe()));
      config["executor"] = executor.to_json();
      store->set_run_config(run_id, config);
    }
    const std::string fp = prompts.fingerprint();
    if (config.value("prompts_fingerprint", fp) != fp)
      say(fmt::format("warning: the prompt templates changed since run {} started; recorded steps are replayed as they were", run_id));
    const double spent = store->run_cost(run_id);
    if (spent > 0 && gateway->budget()) gateway->budget()->charge(spent);
  }
  const std::string out_dir = !request.out_dir.empty() ? request.out_dir
                              : config.contains("out_dir") ? config["out_dir"].get<std::string>()
                                                           : (fs::path("cudamaster-out") / ("run-" + std::to_string(run_id))).string();
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + out_dir + ": " + ec.message());

  // Backends.
  std::unique_ptr<KernelBuilder> own_builder;
  KernelBuilder* builder = backends.builder;
  if (builder == nullptr) {
    own_builder = std::make_unique<MskbBuilder>();
    builder = own_builder.get();
  }
  std::unique_ptr<CandidateEvaluator> own_evaluator;
  CandidateEvaluator* evaluator = backends.evaluator;
  if (evaluator == nullptr) {
    mskb::EvalOptions eo;
    eo.ceilings = mskb::ceilings_from(device);
    eo.launcher = executor.launcher;
    // Runs from before random shapes (no seed recorded) keep their plan when resumed.
    eo.shape_seed = config.value("shape_seed", uint64_t{0});
    eo.random_shapes = eo.shape_seed != 0 ? 2 : 0;
    own_evaluator = std::make_unique<MskbEvaluator>(eo, sanitizer);
    evaluator = own_evaluator.get();
  }
  std::unique_ptr<ProfileProvider> own_profiler;
  ProfileProvider* profiler = backends.profiler;
  if (profiler == nullptr && loop.profile != profile::RenderMode::none) {
    own_profiler = make_cm_profile_provider("", executor.launcher);
    profiler = own_profiler.get();
  }
  // Slurm: `jobs` unpinned lanes without a device (each step gets its GPU from the scheduler).
  exec::GpuLanes lanes = [&]() -> exec::GpuLanes {
    if (executor.launcher.slurm()) return exec::GpuLanes(executor.jobs, false);
    if (request.gpus.empty()) return exec::GpuLanes(1);
    return exec::GpuLanes(request.gpus);
  }();
  if (executor.launcher.slurm()) say("GPU work: " + executor.describe());
  else if (request.gpus.size() > 1) say(fmt::format("GPU lanes: {} (CUDA_VISIBLE_DEVICES {})", request.gpus.size(), fmt::join(request.gpus, ",")));

  Services sv;
  sv.store = store.get();
  sv.llm = gateway;
  sv.prompts = &prompts;
  sv.builder = builder;
  sv.evaluator = evaluator;
  sv.profiler = loop.profile == profile::RenderMode::none ? nullptr : profiler;
  sv.gpu = &lanes;

  const auto session_start = std::chrono::steady_clock::now();
  std::mutex beat_mutex;
  JobEnv env;
  env.run_id = run_id;
  env.out_dir = out_dir;
  env.work_dir = (fs::path(out_dir) / "candidates").string();
  env.gpu_name = device.value("name", std::string("NVIDIA GPU"));
  if (loop.max_minutes)
    env.deadline = session_start + std::chrono::milliseconds(static_cast<std::int64_t>(
                                       std::max(0.0, *loop.max_minutes * 60.0 - prior_active) * 1000.0));
  env.interrupted = interrupted;
  env.progress = say;
  env.heartbeat = [&] {
    std::lock_guard<std::mutex> lock(beat_mutex);
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start).count();
    store->set_active_seconds(run_id, prior_active + now);
  };

  // Jobs: task x precision, created once; finished and failed ones are not run again.
  std::vector<store::JobInfo> todo;
  for (const std::string& t : tasks)
    for (const std::string& p : precisions) store->ensure_job(run_id, t, p);
  for (const store::JobInfo& j : store->jobs(run_id))
    if (j.status != store::Status::finished && j.status != store::Status::failed) todo.push_back(j);
  say(fmt::format("run {}: {} job{} to run ({} already done), {} at a time; db {}; output {}", run_id, todo.size(),
                  todo.size() == 1 ? "" : "s", store->jobs(run_id).size() - todo.size(), request.jobs, request.db_path, out_dir));
  exec::run_pool(todo.size(), request.jobs, [&](std::size_t i) {
    JobResult r = run_job(sv, loop, env, todo[i]);
    (void)r;
  });
  env.heartbeat();

  OptimizeResult res;
  res.run_id = run_id;
  bool stopped = false, all_failed = true;
  for (const store::JobInfo& j : store->jobs(run_id)) {
    stopped |= j.status == store::Status::stopped || j.status == store::Status::running || j.status == store::Status::pending;
    all_failed &= j.status == store::Status::failed;
  }
  res.status = stopped ? store::Status::stopped : all_failed ? store::Status::failed : store::Status::finished;
  store->set_run_status(run_id, res.status, nullptr);
  res.summary = build_summary(*store, run_id);
  store->set_run_status(run_id, res.status, res.summary);
  std::ofstream(fs::path(out_dir) / "summary.json") << res.summary.dump(2) << "\n";
  return res;
}

}  // namespace cudamaster::loop

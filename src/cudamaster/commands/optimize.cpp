// `cudamaster optimize`: the agent loop over one task, a list, or the whole suite (docs/agents.md).
// Progress and per-round tables go to stderr; --json writes the suite summary (- : on stdout).
// Exit codes: 0 finished, 3 stopped early and resumable (budget, wall clock, interrupt, LLM
// error), 4 every job not done waits for an exchange reply (--llm exchange:DIR; resumable once
// the replies exist), 1 failed (or no GPU on this machine: then before anything is written to the
// store), 2 usage errors.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"

#if CM_HAVE_AGENT_LOOP
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "commands/executor_options.hpp"
#include "cudamaster/llm/client.hpp"
#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/summary.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/lane_scheduler.hpp"
#include "mskb/util/text.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/progress.hpp"
#endif

namespace cudamaster::cli {

#if CM_HAVE_AGENT_LOOP
namespace {

using nlohmann::json;

struct OptimizeOptions {
  std::vector<std::string> tasks;
  bool all = false;
  std::string precision = "fp32";
  std::string llm;
  int rounds = 5, debug_loops = 3, patience = 3, jobs = 1;
  std::vector<int> gpus;
  std::string profile = "filtered";
  bool no_planner = false;
  double budget_usd = -1, max_minutes = -1, min_gain = 0;
  std::string db = "cudamaster.db";
  std::int64_t resume = -1;
  std::vector<std::string> task_files;
  std::string out;
  std::string json;  // --json: FILE, or "-" for stdout
  bool quiet = false;
  bool allow_libraries = false;
  bool no_sanitize = false;
  bool dry_run = false;  // --dry-run: the agents and the compiler, no GPU
  std::string arch;
  std::vector<std::string> flags;
  std::vector<std::string> archs;  // empty: mskb::arch_family(--arch), the GPU's kernels' own
  std::string record, pricing, prompts;
  std::string replay_match = "system";
  bool replay_reorder = false;
  int max_tokens = 16384;
  double temperature = -1;
  std::string reasoning_effort;
  double timeout_s = 600;
  int attempts = 6;
  std::size_t max_reply_bytes = llm::HttpOptions::kDefaultMaxReplyBytes;
  double exchange_wait_s = 0;
  ExecutorOptions executor;
};

std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

[[noreturn]] void usage(const std::string& message) {
  fmt::print(stderr, "cudamaster optimize: {}\n", message);
  throw CommandExit(2);
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    for (std::string& t : mskb::split(item, ',', true)) out.push_back(std::move(t));
  }
  return out;
}

// --executor and --slurm-*: unset for a resume that names none (the run's recorded executor).
std::optional<exec::Executor> executor_from(const OptimizeOptions& o, const CLI::App& cmd) {
  if (o.resume >= 0 && !executor_given(cmd)) return std::nullopt;
  exec::Executor e;
  const std::string root = (std::filesystem::path(o.db).parent_path() / ".cudamaster-slurm").string();
  try {
    e.launcher = make_launcher(cmd, o.executor, root, "optimize");
  } catch (const std::invalid_argument& err) {
    usage(err.what());
  }
  e.jobs = o.executor.slurm_jobs;
  if (e.launcher.slurm() && !o.gpus.empty())
    usage("--gpus picks GPUs of this machine; with --executor slurm each job step gets its GPU from Slurm (--slurm-jobs sets how many run at once)");
  return e;
}

// What every optimize asks, new run or resume: where, how many at once, and how the LLM is reached.
loop::OptimizeRequest base_request(const OptimizeOptions& o, const std::optional<exec::Executor>& executor) {
  loop::OptimizeRequest req;
  req.executor = executor;
  req.db_path = o.db;
  req.jobs = std::max(1, o.jobs);
  req.out_dir = o.out;
  req.prompts_dir = o.prompts;
  if (!o.record.empty()) req.record_path = o.record;
  if (!o.pricing.empty()) req.pricing_path = o.pricing;
  req.provider.http.read_timeout = std::chrono::milliseconds{static_cast<std::int64_t>(o.timeout_s * 1000.0)};
  req.provider.retry.max_attempts = o.attempts;
  req.provider.http.max_reply_bytes = o.max_reply_bytes;
  if (o.replay_match != "system" && o.replay_match != "task" && o.replay_match != "full")
    usage("--replay-match must be system, task or full");
  req.provider.replay_match = o.replay_match == "system" ? llm::ReplayMatch::SystemOnly
                              : o.replay_match == "task" ? llm::ReplayMatch::Task
                                                         : llm::ReplayMatch::Full;
  req.provider.replay_allow_reorder = o.replay_reorder;
  req.provider.exchange_wait = std::chrono::milliseconds{static_cast<std::int64_t>(o.exchange_wait_s * 1000.0)};
  req.provider.exchange_cancel = &g_interrupted;
  if (o.budget_usd >= 0) req.config.budget_usd = o.budget_usd;
  if (o.max_minutes > 0) req.config.max_minutes = o.max_minutes;
  return req;
}

// A new run's tasks and precisions (usage errors for unknown ones).
void pick_tasks(const OptimizeOptions& o, loop::OptimizeRequest& req) {
  if (o.all) {
    for (const mskb::TaskSpec& t : mskb::all_tasks()) req.tasks.push_back(t.name);
  } else {
    req.tasks = split_list(o.tasks);
  }
  // Users' tasks: each file's task joins the run (recorded, so a resume registers it again).
  for (const std::string& f : o.task_files) {
    try {
      const std::string name = mskb::register_task_file(std::filesystem::absolute(f).lexically_normal().string()).spec.name;
      if (std::find(req.tasks.begin(), req.tasks.end(), name) == req.tasks.end()) req.tasks.push_back(name);
      req.config.task_files.push_back(std::filesystem::absolute(f).lexically_normal().string());
    } catch (const std::exception& e) {
      usage(e.what());
    }
  }
  if (req.tasks.empty()) usage("name a task (--task T[,T...], --task-file FILE) or --all");
  try {
    for (const std::string& t : req.tasks) (void)mskb::get_task(t);
  } catch (const std::invalid_argument& e) {
    usage(e.what());
  }
  if (o.precision == "all") req.precisions = {mskb::Precision::fp32, mskb::Precision::bf16};
  else {
    try {
      req.precisions = {mskb::parse_precision(o.precision)};
    } catch (const std::invalid_argument& e) {
      usage(e.what());
    }
  }
}

// A new run's loop settings: rounds, gates, build recipe and agent settings.
void fill_loop_config(const OptimizeOptions& o, loop::LoopConfig& c) {
  const std::optional<profile::RenderMode> profile_mode = mskb::from_string<profile::RenderMode>(o.profile);
  if (!profile_mode) usage("--profile must be filtered, full or none");
  c.rounds = o.rounds;
  c.debug_loops = o.debug_loops;
  c.patience = o.patience;
  c.profile = *profile_mode;
  c.planner = !o.no_planner;
  c.min_gain = o.min_gain;
  c.allow_libraries = o.allow_libraries;
  c.sanitize = !o.no_sanitize;
  c.dry_run = o.dry_run;
  if (o.no_sanitize && !o.quiet)
    fmt::print(stderr, "cudamaster optimize: --no-sanitize: candidates are accepted without compute-sanitizer memcheck and "
                       "racecheck (memory errors that restore the guard zones, and races, go unseen)\n");
  c.recipe.arch = o.arch;
  c.recipe.flags = o.flags;
  for (const std::string& f : o.flags) {
    try {
      mskb::check_flag(f);
    } catch (const std::invalid_argument& e) {
      usage(e.what());
    }
  }
  // By default the Compiler agent chooses among the architectures of the kernels' GPU (the build's,
  // or --arch's): on an A100 build sm_80 only, never an sm_90 binary that GPU cannot load.
  c.allowed_archs = o.archs.empty() ? mskb::arch_family(o.arch) : split_list(o.archs);
  c.coder_settings.max_tokens = c.debug_settings.max_tokens = o.max_tokens;
  for (agents::AgentSettings* s : {&c.planner_settings, &c.coder_settings, &c.debug_settings, &c.compiler_settings}) {
    if (o.temperature >= 0) s->temperature = o.temperature;
    if (!o.reasoning_effort.empty()) s->reasoning_effort = o.reasoning_effort;
  }
}

// --llm checked as `cudamaster llm-check` checks it (the spec, the key it needs, a replay cassette,
// the pricing file), before anything touches the GPU or the store: a bad one is a usage error. An
// exchange folder is only parsed here (the provider creates it when the run starts).
void check_llm(const OptimizeOptions& o, const loop::OptimizeRequest& req) {
  if (o.llm.empty()) usage("--llm PROVIDER:MODEL is required (or CUDAMASTER_LLM); replay:FILE needs no key");
  const auto spec = llm::parse_provider_spec(o.llm);
  if (!spec) usage(spec.error().message);
  if (spec->kind == llm::ProviderKind::Exchange) return;
  llm::ClientOptions co;
  co.llm = o.llm;
  co.pricing_path = req.pricing_path;
  co.provider = req.provider;
  if (req.config.budget_usd) co.budget = std::make_shared<llm::Budget>(*req.config.budget_usd);
  if (auto client = llm::LlmClient::create(co); !client) usage("--llm " + o.llm + ": " + client.error().describe());
}

// A new run: its LLM, tasks and loop settings.
void fill_new_run(const OptimizeOptions& o, loop::OptimizeRequest& req) {
  pick_tasks(o, req);
  fill_loop_config(o, req.config);
  check_llm(o, req);
  req.llm = o.llm;
}

// The GPU a new run measures on (recorded with the run; prompts name it): with Slurm, the GPU of
// a job step (this machine may have none).
void measure_device(const OptimizeOptions& o, const std::optional<exec::Executor>& executor, loop::OptimizeRequest& req) {
  try {
    req.device = mskb::device_info(false, "", executor ? executor->launcher : mskb::Launcher{});
  } catch (const std::exception& e) {
    req.device = {{"name", "unknown GPU"}, {"error", e.what()}};
    if (!o.quiet) fmt::print(stderr, "cudamaster optimize: warning: {}\n", e.what());
  }
}

// GPU lanes: every visible GPU unless --gpus picks some; a job keeps to one of them. (Slurm:
// --slurm-jobs lanes, no device.) `need_gpu`: the GPU work runs here, so a machine without a
// usable GPU stops the command now, before the run store is touched (run_command_line says why).
void pick_gpu_lanes(const OptimizeOptions& o, bool need_gpu, loop::OptimizeRequest& req) {
  json id;
  try {
    id = mskb::query_device(mskb::RunMode::identify);
  } catch (const std::exception& e) {
    if (need_gpu && mskb::no_cuda_device(e.what())) throw;
    if (!o.gpus.empty()) throw std::invalid_argument(std::string("--gpus: ") + e.what());
    return;
  }
  req.gpus = mskb::gpu_lanes(o.gpus, id.value("device_count", 1), std::getenv("CUDA_VISIBLE_DEVICES"));
  if (req.gpus.size() == 1 && o.gpus.empty()) req.gpus.clear();  // one GPU: inherit it
}

// The outcome: summary on stderr (and --json's file or stdout), exit 3 when stopped early, 1 when failed.
void report_result(const OptimizeOptions& o, const loop::OptimizeResult& res) {
  if (!o.quiet) {
    fmt::print(stderr, "{}\n", loop::render_summary(res.summary));
    if (res.summary.value("dry_run", false))
      fmt::print(stderr, "dry run (no P): the candidates in {}/candidates; every prompt and answer: cudamaster show {} --calls --db {}\n",
                 res.summary["config"].value("out_dir", std::string("?")), res.run_id, o.db);
    else
      fmt::print(stderr, "best kernels and summary.json in {}; details: cudamaster show {} --db {}\n",
                 res.summary["config"].value("out_dir", std::string("?")), res.run_id, o.db);
  }
  if (!o.json.empty()) write_json_output(res.summary.dump(2, ' ', false, json::error_handler_t::replace), o.json);
  if (res.status == store::Status::stopped && res.all_waiting) {
    // One line, also with --quiet: what to answer before the resume.
    std::string files;
    for (const json& w : res.waiting)
      files += fmt::format("{}{} ({} {} {}, round {})", files.empty() ? "" : ", ", w.value("request", std::string("?")),
                           w.value("task", ""), w.value("precision", ""), w.value("agent", ""), w.value("round", 0));
    fmt::print(stderr, "run {} waits for {} repl{}: {}; answer them, then: cudamaster optimize --resume {} --db {}\n", res.run_id,
               res.waiting.size(), res.waiting.size() == 1 ? "y" : "ies", files, res.run_id, o.db);
    throw CommandExit(4);
  }
  if (res.status == store::Status::stopped) {
    if (!o.quiet)
      fmt::print(stderr, "run {} stopped early; continue it with: cudamaster optimize --resume {} --db {}\n", res.run_id, res.run_id, o.db);
    throw CommandExit(3);
  }
  if (res.status == store::Status::failed) throw CommandExit(1);
}

void run_optimize_command(const OptimizeOptions& o, const CLI::App& cmd) {
  const std::optional<exec::Executor> executor = executor_from(o, cmd);
  const bool slurm = executor && executor->launcher.slurm();
  if (o.dry_run && o.resume >= 0) usage("--resume continues a run as it was recorded (a dry run stays dry): drop --dry-run");
  if (o.dry_run && (slurm || !o.gpus.empty())) usage("--dry-run uses no GPU: drop --executor slurm and --gpus");
  loop::OptimizeRequest req = base_request(o, executor);
  if (o.resume >= 0) {
    std::error_code ec;
    if (!std::filesystem::exists(o.db, ec)) usage("--resume " + std::to_string(o.resume) + ": no run store at " + o.db + " (see --db)");
    req.resume = o.resume;
  } else {
    fill_new_run(o, req);
  }
  // A resume that names no executor may continue a Slurm run: its GPUs are elsewhere. A dry run
  // touches no GPU: its device is a placeholder that says so.
  if (o.dry_run) {
    req.device = {{"name", "NVIDIA GPU"}, {"dry_run", true}, {"note", "dry run: no GPU was probed or measured"}};
  } else {
    if (!slurm) pick_gpu_lanes(o, executor.has_value(), req);
    if (o.resume < 0) measure_device(o, executor, req);
  }

  g_interrupted.store(false);
  std::signal(SIGINT, on_sigint);
  // Progress on stderr (mskb/util/progress.hpp): the lines; on a terminal (or MSKB_PROGRESS=live)
  // under them a live line counting the session's job stages (references, then rounds) with the
  // stages in flight, elapsed and ETA. -q: nothing.
  std::optional<mskb::ProgressDisplay> display;
  if (!o.quiet) {
    display.emplace(0);
    display->phase("preparing", 0);
  }
  auto progress = [&](const std::string& line) {
    if (display) display->line(line);
  };
  loop::RunProgress stages;
  std::mutex stage_mutex;
  std::map<std::int64_t, int> reached;  // job id -> stage
  int rounds = 0;
  if (display) {
    stages.jobs = [&](std::size_t jobs, int r) {
      rounds = r;
      display->phase("rounds", jobs * static_cast<std::size_t>(r + 1));
    };
    stages.stage = [&](const store::JobInfo& job, int stage) {
      std::lock_guard<std::mutex> lock(stage_mutex);
      int& at = reached[job.id];
      const std::string name = job.task + " " + job.precision;
      if (stage > rounds) {
        display->finish(static_cast<std::size_t>(job.id), "", static_cast<std::size_t>(rounds + 1 - at));
        at = rounds + 1;
        return;
      }
      display->advance(static_cast<std::size_t>(std::max(0, stage - at)));
      at = stage;
      display->start(static_cast<std::size_t>(job.id),
                     stage == 0 ? name + " baseline/vendor" : fmt::format("{} round {}/{}", name, stage, rounds));
    };
  }
  loop::OptimizeResult res;
  try {
    res = loop::run_optimize(req, loop::Backends{}, progress, &g_interrupted, stages);
  } catch (const std::exception& e) {
    if (display) display->close();
    std::signal(SIGINT, SIG_DFL);
    if (!o.json.empty()) write_json_output(json{{"ok", false}, {"error", e.what()}}.dump(2), o.json);
    fmt::print(stderr, "cudamaster optimize: {}\n", e.what());
    throw CommandExit(1);
  }
  if (display) display->close();
  std::signal(SIGINT, SIG_DFL);
  report_result(o, res);
}

}  // namespace

void add_optimize_command(CLI::App& app) {
  auto o = std::make_shared<OptimizeOptions>();
  CLI::App* cmd = app.add_subcommand("optimize", "Optimize kernels with the Planner/Coder/Compiler/Debug agents (docs/agents.md)");
  cmd->add_option("--task", o->tasks, "Task(s) to optimize: T or T1,T2 (repeatable)");
  cmd->add_option("--task-file", o->task_files, "A task of your own (TOML, docs/task-files.md) to optimize (repeatable)")
      ->check(mskb::existing_file());
  cmd->add_flag("--all", o->all, "Every task of the suite");
  cmd->add_option("--precision", o->precision, "fp32 | bf16 | all (default fp32)");
  cmd->add_option("--llm", o->llm, "PROVIDER:MODEL: openai:MODEL, anthropic:MODEL, openai-compatible:URL:MODEL, replay:FILE, exchange:DIR[:LABEL]")
      ->envname("CUDAMASTER_LLM");
  cmd->add_option("--rounds", o->rounds, "R: optimization rounds per task (0: only measure the baseline and vendor)")->check(CLI::Range(0, 1000));
  cmd->add_option("--debug-loops", o->debug_loops, "D: fix attempts (Debug or Compiler agent) per round")->check(CLI::Range(0, 100));
  cmd->add_option("--patience", o->patience, "K: stop a task after K rounds without gain (0 = never)");
  cmd->add_option("--profile", o->profile, "What the Planner sees of the profile: filtered | full | none (default filtered)");
  cmd->add_flag("--no-planner", o->no_planner, "Ablation: no Planner; the Coder alone sees the measurements");
  cmd->add_option("--budget-usd", o->budget_usd, "Run-wide LLM budget in USD (no new calls once spent; default: none)")->check(mskb::non_negative());
  cmd->add_option("--max-minutes", o->max_minutes, "Wall-clock limit of the run in minutes (over all its sessions; default: none)")->check(mskb::positive());
  cmd->add_option("--min-gain", o->min_gain,
                  "A floor under the acceptance margin: the smallest relative gain in P a candidate must show (default 0: the margin "
                  "is the spread model's between-process spread of P for the candidate's shapes, docs/agents.md)");
  cmd->add_option("--jobs", o->jobs, "Concurrent LLM conversations (tasks in flight; one GPU evaluation at a time per GPU)")->check(CLI::Range(1, 1024));
  cmd->add_option("--gpus", o->gpus, "GPU ordinals to evaluate on, e.g. 0,1 (default: every visible GPU; a task keeps to one)")->delimiter(',');
  cmd->add_option("--db", o->db, "Run store (SQLite)");
  cmd->add_option("--resume", o->resume, "Continue run RUN where it stopped (its recorded configuration is used; default: a new run)");
  cmd->add_option("--out", o->out, "Output folder for the best kernels (default cudamaster-out/run-<id>)");
  mskb::add_json_option(cmd, o->json, "Write the suite summary as JSON");
  cmd->add_flag("--quiet", o->quiet, "No progress on stderr");
  cmd->add_flag("--allow-libraries", o->allow_libraries, "Let candidates call vendor libraries (// mskb-link: ...)");
  cmd->add_flag("--dry-run", o->dry_run,
                "The agents and the compiler without a GPU: every candidate is screened and compiled (compile errors go to the "
                "Debug agent) but never evaluated or profiled; the run is marked dry and reports no P (docs/agents.md)");
  cmd->add_flag("--no-sanitize", o->no_sanitize,
                "Accept candidates without compute-sanitizer memcheck + racecheck (weaker: memory errors and races go unseen)");
  cmd->add_option("--arch", o->arch, "GPU architecture for kernel builds: 90, sm_90, compute_90, 90a or sm_90a (default: the harness's)")
      ->transform(mskb::gpu_arch_option(mskb::toolkit_gpu_archs));
  cmd->add_option("--flag", o->flags, "Extra nvcc flag for candidates (whitelisted; repeatable)");
  cmd->add_option("--archs", o->archs,
                  "Architectures the Compiler agent may choose (default: --arch's or the build's, with its 'a' variant from sm_90 on: " +
                      mskb::join(mskb::arch_family(), ",") + " here)");
  cmd->add_option("--record", o->record, "Record every LLM exchange to this cassette (live providers)");
  cmd->add_option("--pricing", o->pricing, "Pricing overrides (JSON, see docs/llm.md)")->check(mskb::existing_file());
  cmd->add_option("--prompts", o->prompts, "Prompt templates folder (default $CM_PROMPTS_DIR or <source>/prompts)")
      ->check(mskb::existing_folder());
  cmd->add_option("--replay-match", o->replay_match,
                  "replay: what must equal the cassette: system (system prompts, roles, parameters; default), task (system "
                  "+ each prompt's task heading, any order across tasks: multi-task runs with --jobs N) or full");
  cmd->add_flag("--replay-reorder", o->replay_reorder, "replay: accept recorded exchanges out of order (with --replay-match full)");
  cmd->add_option("--max-tokens", o->max_tokens, "Token limit of Coder and Debug answers")->check(CLI::Range(1, 100000000));
  cmd->add_option("--temperature", o->temperature, "Sampling temperature for every agent (default: the provider's)")->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--reasoning-effort", o->reasoning_effort, "Reasoning models: minimal | low | medium | high")->check(CLI::IsMember({"minimal", "low", "medium", "high"}));
  cmd->add_option("--timeout", o->timeout_s, "LLM read timeout in seconds")->check(mskb::positive());
  cmd->add_option("--attempts", o->attempts, "HTTP attempts per LLM call, retries included")->check(CLI::Range(1, 100));
  cmd->add_option("--max-reply-bytes", o->max_reply_bytes, "Largest LLM reply read, in bytes (default 8 MiB; larger ones are refused)")
      ->envname("CUDAMASTER_MAX_REPLY_BYTES")
      ->check(mskb::positive());
  cmd->add_option("--exchange-wait", o->exchange_wait_s,
                  "exchange:DIR: seconds each call waits for its reply file before the job stops to wait (default 0: look once)")
      ->check(mskb::non_negative());
  add_executor_options(*cmd, o->executor, true);
  cmd->callback([o, cmd] { run_optimize_command(*o, *cmd); });
}

#else  // built without SQLite: the command explains how to get it

void add_optimize_command(CLI::App& app) {
  add_command_without_store(app, "optimize", "Optimize kernels with the agents (not built: needs SQLite)",
                            "run scripts/prefix-deps.sh and rebuild (see docs/agents.md)");
}

#endif

}  // namespace cudamaster::cli

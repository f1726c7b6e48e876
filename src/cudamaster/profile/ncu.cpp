#include "cudamaster/profile/ncu.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "mskb/harness/compiler.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/util/process.hpp"

namespace fs = std::filesystem;

namespace cudamaster::profile {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// The first line containing `what`, trimmed, for messages.
std::string line_with(const std::string& log, const char* what) {
  const std::size_t at = log.find(what);
  if (at == std::string::npos) return "";
  const std::size_t begin = log.rfind('\n', at);
  const std::size_t end = log.find('\n', at);
  std::string line = log.substr(begin == std::string::npos ? 0 : begin + 1,
                                (end == std::string::npos ? log.size() : end) - (begin == std::string::npos ? 0 : begin + 1));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

std::string last_line(const std::string& log) {
  std::string t = mskb::tail_lines(log, 1);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t.size() > 300 ? t.substr(0, 300) + "..." : t;
}

NcuError make(NcuErrorKind kind, std::string message, const std::string& log = "") {
  return NcuError{kind, std::move(message), mskb::tail_lines(log, 20)};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The ncu a Slurm job step runs when this machine has none: the name as given, left to the
// compute node's PATH (its shell says "not found" when the node lacks it too).
std::string step_ncu(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* e = std::getenv("CM_NCU"); e && *e) return e;
  return "ncu";
}

// A file a job step wrote on another node: a network filesystem may show it here a little later
// (attribute caching).
bool appears(const std::string& path, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::error_code ec;
  while (!fs::is_regular_file(path, ec)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return true;
}

}  // namespace

const char* to_string(NcuErrorKind k) {
  switch (k) {
    case NcuErrorKind::missing: return "ncu_missing";
    case NcuErrorKind::permission: return "no_permission";
    case NcuErrorKind::library_not_loaded: return "library_not_loaded";
    case NcuErrorKind::no_kernels: return "no_kernels";
    case NcuErrorKind::timeout: return "timeout";
    case NcuErrorKind::kernel_crash: return "kernel_crash";
    case NcuErrorKind::no_device: return "no_device";
    case NcuErrorKind::import_failed: return "import_failed";
    case NcuErrorKind::launch_failed: return "launch_failed";
    case NcuErrorKind::failed: return "ncu_failed";
  }
  return "?";
}

bool NcuError::counters_unavailable() const {
  return kind != NcuErrorKind::kernel_crash && kind != NcuErrorKind::no_device && kind != NcuErrorKind::launch_failed;
}

std::string NcuError::describe() const { return std::string(to_string(kind)) + ": " + message; }

std::vector<std::string> default_sections() {
  return {"SpeedOfLight",   "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "Occupancy",
          "LaunchStats",    "WarpStateStats",         "SchedulerStats"};
}

std::string find_ncu(const std::string& explicit_path) {
  std::string want = explicit_path;
  if (want.empty())
    if (const char* e = std::getenv("CM_NCU"); e && *e) want = e;
  return mskb::find_cuda_tool("ncu", want);
}

std::vector<std::string> ncu_profile_argv(const std::string& ncu, const NcuOptions& o, const std::string& report_base,
                                          const std::vector<std::string>& app) {
  std::vector<std::string> argv = {ncu, "--clock-control", "none", "--profile-from-start", "off"};
  for (const auto& s : o.sections) {
    argv.push_back("--section");
    argv.push_back(s);
  }
  argv.insert(argv.end(), {"-f", "-o", report_base});
  argv.insert(argv.end(), app.begin(), app.end());
  return argv;
}

std::vector<std::string> ncu_import_argv(const std::string& ncu, const std::string& report) {
  return {ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"};
}

std::optional<NcuError> diagnose_ncu_run(const std::string& log, int exit_code, bool timed_out,
                                         std::optional<mskb::Disposition> runner_disposition, const std::string& runner_message) {
  if (timed_out) return make(NcuErrorKind::timeout, "ncu did not finish in time and was killed", log);
  if (contains(log, "ERR_NVGPUCTRPERM") || contains(log, "permission to access NVIDIA GPU Performance Counters"))
    return make(NcuErrorKind::permission,
                "no permission to read GPU performance counters (ERR_NVGPUCTRPERM): run as root / with CAP_PERFMON, or "
                "load nvidia with NVreg_RestrictProfilingToAdminUsers=0",
                log);
  if (contains(log, "LibraryNotLoaded"))
    return make(NcuErrorKind::library_not_loaded,
                "the profiler library could not be loaded into the application (LibraryNotLoaded): " +
                    line_with(log, "LibraryNotLoaded"),
                log);
  const std::string why = runner_message.empty() ? "" : ": " + runner_message;
  if (runner_disposition == mskb::Disposition::no_device || contains(log, "cudaErrorNoDevice") || contains(log, "no CUDA-capable device"))
    return make(NcuErrorKind::no_device, "no usable CUDA device" + why, log);
  if (runner_disposition)
    return make(NcuErrorKind::kernel_crash, "the kernel failed under ncu (" + mskb::to_string(*runner_disposition) + ")" + why, log);
  if (contains(log, "The application returned an error code") || contains(log, "terminated by signal") ||
      contains(log, "Segmentation fault"))
    return make(NcuErrorKind::kernel_crash, "the profiled process failed: " + last_line(log), log);
  if (contains(log, "No kernels were profiled"))
    return make(NcuErrorKind::no_kernels,
                "ncu profiled no kernel (the entry point launched none between cudaProfilerStart/Stop, or the "
                "counters are unavailable in this runtime)",
                log);
  if (contains(log, "==ERROR=="))
    return make(NcuErrorKind::failed, "ncu failed: " + line_with(log, "==ERROR=="), log);
  // "cannot execute" from our fork, "...: not found" from the job step's shell (no ncu on the node).
  if (exit_code == 127 && (contains(log, "cannot execute") || contains(log, ": not found")))
    return make(NcuErrorKind::missing, "cannot execute ncu: " + last_line(log), log);
  if (exit_code != 0)
    return make(NcuErrorKind::failed, "ncu exited with code " + std::to_string(exit_code) + ": " + last_line(log), log);
  return std::nullopt;
}

std::string make_temp_dir(const std::string& prefix, const std::string& parent) {
  const fs::path base = parent.empty() ? fs::temp_directory_path() : fs::path(parent);
  std::error_code ec;
  fs::create_directories(base, ec);
  std::string tmpl = (base / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temp dir under " + base.string());
  return tmpl;
}

NcuRunner::NcuRunner(NcuOptions o) : o_(std::move(o)) {}

NcuResult<NcuCapture> NcuRunner::profile(const std::vector<std::string>& app) const {
  const mskb::Launcher& launcher = o_.launcher;
  std::string ncu = find_ncu(o_.ncu);
  if (ncu.empty() && launcher.slurm()) ncu = step_ncu(o_.ncu);  // ncu runs on the compute node
  if (ncu.empty())
    return make(NcuErrorKind::missing, std::string("Nsight Compute (ncu) not found") +
                                           (o_.ncu.empty() && !std::getenv("CM_NCU") ? " on PATH or in /usr/local/cuda/bin (set CM_NCU)"
                                                                                      : " at " + (o_.ncu.empty() ? std::string(std::getenv("CM_NCU")) : o_.ncu)));
  std::string srun;
  if (launcher.slurm()) {
    try {
      srun = mskb::srun_program(launcher);
    } catch (const std::runtime_error& e) {
      return make(NcuErrorKind::launch_failed, e.what());
    }
  }
  NcuCapture cap;
  cap.work_dir = o_.work_dir.empty() ? make_temp_dir("cm-profile", launcher.slurm() ? launcher.work_root : "") : o_.work_dir;
  fs::create_directories(cap.work_dir);
  const std::string base = (fs::path(cap.work_dir) / "profile").string();
  cap.report_path = base + ".ncu-rep";
  cap.csv_path = base + ".csv";
  cap.log_path = (fs::path(cap.work_dir) / "ncu.log").string();
  std::error_code ec;
  fs::remove(cap.report_path, ec);
  cap.command = ncu_profile_argv(ncu, o_, base, app);

  const mskb::LaunchCommand lc = mskb::launch_command(launcher, srun, cap.command, 3, mskb::kProfileJobName);
  mskb::SpawnOptions so;
  so.argv = lc.argv;
  so.report_on_stdout = lc.report_on_stdout;
  so.term_grace_s = lc.term_grace_s;
  so.env = o_.env;
  so.log_path = cap.log_path;
  so.initial_timeout_s = mskb::first_line_timeout(launcher, o_.timeout_s);
  so.report_fd = 3;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.timeout_s));
  auto deadline = t0 + limit;
  bool any_line = false;
  std::optional<mskb::Disposition> fatal_disposition;
  std::string fatal_message;
  const mskb::ProcessResult spawned = mskb::run_process(so, [&](const std::string& line) -> double {
    // A job step's limit starts when it does (its first line), not while it waits in the queue.
    if (!any_line && launcher.slurm()) deadline = Clock::now() + limit;
    any_line = true;
    if (const std::optional<mskb::RunnerEvent> ev = mskb::parse_runner_event(line)) {
      if (ev->kind == mskb::EventKind::profiled && ev->call_us) cap.call_us = *ev->call_us;
      if (ev->kind == mskb::EventKind::fatal) {
        fatal_disposition = ev->disposition.value_or(mskb::Disposition::harness_error);
        fatal_message = ev->message;
      }
    }
    // One overall limit for the whole run, whatever the runner asks for.
    return std::max(0.001, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  });
  cap.profile_seconds = seconds_since(t0);
  const std::string log = read_text(cap.log_path);
  // No ncu on the compute node either: missing (counters unavailable), not a failed launch.
  if (launcher.slurm() && !any_line && spawned.exit_code == 127 && contains(log, ("exec: " + ncu + ": not found").c_str()))
    return make(NcuErrorKind::missing, "Nsight Compute (" + ncu + ") not found on the compute node (set CM_NCU to its path there)", log);
  if (const std::string why = mskb::launch_failure(launcher, spawned, any_line, log); !why.empty())
    return make(NcuErrorKind::launch_failed, why, log);
  const mskb::ProcessResult pr = mskb::as_local_result(launcher, spawned);
  const int exit_code = pr.signaled ? 128 + pr.signal : pr.exit_code;
  if (auto err = diagnose_ncu_run(log, exit_code, pr.timed_out, fatal_disposition, fatal_message)) return *err;
  if (!(launcher.slurm() ? appears(cap.report_path, 30) : fs::is_regular_file(cap.report_path, ec)))
    return make(NcuErrorKind::no_kernels, "ncu wrote no report (no kernel was profiled)", log);

  const auto t1 = std::chrono::steady_clock::now();
  auto csv = import_report(cap.report_path, cap.csv_path);
  cap.import_seconds = seconds_since(t1);
  if (!csv) return csv.error();
  cap.csv = std::move(csv.value());
  return cap;
}

NcuResult<std::string> NcuRunner::import_report(const std::string& report, const std::string& csv_out) const {
  const mskb::Launcher& launcher = o_.launcher;
  std::string ncu = find_ncu(o_.ncu);
  // Without ncu here, a Slurm job step imports it where ncu is (the report is in the shared dir).
  const bool in_step = ncu.empty() && launcher.slurm();
  if (in_step) ncu = step_ncu(o_.ncu);
  if (ncu.empty()) return make(NcuErrorKind::missing, "reading a .ncu-rep needs Nsight Compute (ncu): not found (set CM_NCU)");
  std::error_code ec;
  if (!fs::is_regular_file(report, ec)) return make(NcuErrorKind::import_failed, "report not found: " + report);
  std::string dir;
  std::string out = csv_out;
  if (out.empty()) {
    dir = make_temp_dir("cm-import", in_step ? launcher.work_root : "");
    out = (fs::path(dir) / "import.csv").string();
  }
  // stdout to the CSV file, stderr (ncu's own messages) to the captured output.
  std::vector<std::string> argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", out};
  const auto import = ncu_import_argv(ncu, report);
  argv.insert(argv.end(), import.begin(), import.end());
  double timeout_s = o_.import_timeout_s;
  if (in_step) {
    try {
      std::vector<std::string> step = mskb::srun_prefix(launcher, mskb::srun_program(launcher), mskb::kProfileJobName);
      argv.insert(argv.begin(), step.begin(), step.end());
    } catch (const std::runtime_error& e) {
      if (!dir.empty()) fs::remove_all(dir, ec);
      return make(NcuErrorKind::launch_failed, e.what());
    }
    timeout_s = mskb::first_line_timeout(launcher, timeout_s);
  }
  std::string output;
  const int rc = mskb::run_command(argv, output, timeout_s, "", in_step ? 30 : 0);
  if (in_step && rc == 0) (void)appears(out, 30);
  std::string csv = read_text(out);
  if (!dir.empty()) fs::remove_all(dir, ec);
  if (in_step && rc != 0) {
    mskb::ProcessResult pr;
    pr.exit_code = rc;
    if (const std::string why = mskb::launch_failure(launcher, pr, false, output); !why.empty())
      return make(NcuErrorKind::launch_failed, "importing " + report + " in a job step: " + why, output);
  }
  if (rc != 0 || csv.empty())
    return make(NcuErrorKind::import_failed,
                "ncu --import " + report + " failed (exit " + std::to_string(rc) + ")" +
                    (output.empty() ? std::string() : ": " + last_line(output)),
                output);
  if (csv.find("\"ID\"") == std::string::npos)
    return make(NcuErrorKind::no_kernels, "the report " + report + " holds no kernel results", output + csv);
  return csv;
}

}  // namespace cudamaster::profile

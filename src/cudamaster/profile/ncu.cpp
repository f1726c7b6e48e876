#include "cudamaster/profile/ncu.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "mskb/compiler.hpp"
#include "mskb/process.hpp"

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
    case NcuErrorKind::failed: return "ncu_failed";
  }
  return "?";
}

bool NcuError::counters_unavailable() const { return kind != NcuErrorKind::kernel_crash && kind != NcuErrorKind::no_device; }

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
                                         const std::string& runner_disposition, const std::string& runner_message) {
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
  if (runner_disposition == "no_device" || contains(log, "cudaErrorNoDevice") || contains(log, "no CUDA-capable device"))
    return make(NcuErrorKind::no_device, "no usable CUDA device" + why, log);
  if (!runner_disposition.empty())
    return make(NcuErrorKind::kernel_crash, "the kernel failed under ncu (" + runner_disposition + ")" + why, log);
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
  if (exit_code == 127 && contains(log, "cannot execute"))
    return make(NcuErrorKind::missing, "cannot execute ncu: " + last_line(log), log);
  if (exit_code != 0)
    return make(NcuErrorKind::failed, "ncu exited with code " + std::to_string(exit_code) + ": " + last_line(log), log);
  return std::nullopt;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temp dir under " + fs::temp_directory_path().string());
  return tmpl;
}

NcuRunner::NcuRunner(NcuOptions o) : o_(std::move(o)) {}

NcuResult<NcuCapture> NcuRunner::profile(const std::vector<std::string>& app) const {
  const std::string ncu = find_ncu(o_.ncu);
  if (ncu.empty())
    return make(NcuErrorKind::missing, std::string("Nsight Compute (ncu) not found") +
                                           (o_.ncu.empty() && !std::getenv("CM_NCU") ? " on PATH or in /usr/local/cuda/bin (set CM_NCU)"
                                                                                      : " at " + (o_.ncu.empty() ? std::string(std::getenv("CM_NCU")) : o_.ncu)));
  NcuCapture cap;
  cap.work_dir = o_.work_dir.empty() ? make_temp_dir("cm-profile") : o_.work_dir;
  fs::create_directories(cap.work_dir);
  const std::string base = (fs::path(cap.work_dir) / "profile").string();
  cap.report_path = base + ".ncu-rep";
  cap.csv_path = base + ".csv";
  cap.log_path = (fs::path(cap.work_dir) / "ncu.log").string();
  std::error_code ec;
  fs::remove(cap.report_path, ec);
  cap.command = ncu_profile_argv(ncu, o_, base, app);

  mskb::SpawnOptions so;
  so.argv = cap.command;
  so.env = o_.env;
  so.log_path = cap.log_path;
  so.initial_timeout_s = o_.timeout_s;
  so.report_fd = 3;
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o_.timeout_s));
  std::string fatal_disposition, fatal_message;
  const mskb::ProcessResult pr = mskb::run_process(so, [&](const std::string& line) -> double {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
      const std::string ev = j.value("event", "");
      if (ev == "profiled" && j.contains("call_us") && j["call_us"].is_number()) cap.call_us = j["call_us"].get<double>();
      if (ev == "fatal") {
        fatal_disposition = j.value("disposition", std::string("harness_error"));
        fatal_message = j.value("message", "");
      }
    }
    // One overall limit for the whole run, whatever the runner asks for.
    return std::max(0.001, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  });
  cap.profile_seconds = seconds_since(t0);
  const std::string log = read_text(cap.log_path);
  const int exit_code = pr.signaled ? 128 + pr.signal : pr.exit_code;
  if (auto err = diagnose_ncu_run(log, exit_code, pr.timed_out, fatal_disposition, fatal_message)) return *err;
  if (!fs::is_regular_file(cap.report_path, ec))
    return make(NcuErrorKind::no_kernels, "ncu wrote no report (no kernel was profiled)", log);

  const auto t1 = std::chrono::steady_clock::now();
  auto csv = import_report(cap.report_path, cap.csv_path);
  cap.import_seconds = seconds_since(t1);
  if (!csv) return csv.error();
  cap.csv = std::move(csv.value());
  return cap;
}

NcuResult<std::string> NcuRunner::import_report(const std::string& report, const std::string& csv_out) const {
  const std::string ncu = find_ncu(o_.ncu);
  if (ncu.empty()) return make(NcuErrorKind::missing, "reading a .ncu-rep needs Nsight Compute (ncu): not found (set CM_NCU)");
  std::error_code ec;
  if (!fs::is_regular_file(report, ec)) return make(NcuErrorKind::import_failed, "report not found: " + report);
  std::string dir;
  std::string out = csv_out;
  if (out.empty()) {
    dir = make_temp_dir("cm-import");
    out = (fs::path(dir) / "import.csv").string();
  }
  // stdout to the CSV file, stderr (ncu's own messages) to the captured output.
  std::vector<std::string> argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", out};
  const auto import = ncu_import_argv(ncu, report);
  argv.insert(argv.end(), import.begin(), import.end());
  std::string output;
  const int rc = mskb::run_command(argv, output, o_.import_timeout_s);
  std::string csv = read_text(out);
  if (!dir.empty()) fs::remove_all(dir, ec);
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

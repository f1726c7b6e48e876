// Owns running Nsight Compute: finding the binary ($CM_NCU, PATH, /usr/local/cuda/bin), the
// profiling command (`--clock-control none`, the short section list, `--profile-from-start off`,
// one report per run in its own temp dir, a timeout), importing a report as the raw-page CSV, and
// turning every way this fails into a typed NcuError (no ncu, no permission for the counters, a
// runtime without them, nothing profiled, timeout, the kernel crashed, a Slurm step that could not
// start). With a Slurm launcher ncu runs inside the job step (mskb/launcher.hpp) and writes its
// report into the shared work dir; the import runs here when this machine has ncu, else in a
// step too. Host-only.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mskb/harness/launcher.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace cudamaster::profile {

enum class NcuErrorKind {
  missing,             // no ncu binary
  permission,          // ERR_NVGPUCTRPERM: counters restricted to admin users
  library_not_loaded,  // LibraryNotLoaded: the profiler could not inject (runtime without counters)
  no_kernels,          // "No kernels were profiled" / no report / an empty export
  timeout,             // ncu ran past the limit and was killed
  kernel_crash,        // the profiled process failed (runner fatal event, error code, signal)
  no_device,           // no CUDA device: nothing can be measured at all
  import_failed,       // `ncu --import` failed on an existing report
  launch_failed,       // the Slurm job step could not start (srun's error in the message)
  failed,              // any other ncu error (first ==ERROR== line in the message)
};
const char* to_string(NcuErrorKind k);

struct NcuError {
  NcuErrorKind kind = NcuErrorKind::failed;
  std::string message;   // one line for users
  std::string log_tail;  // last lines of ncu's and the application's output
  // When true the class may come from the speed-of-light model instead (the kernel itself ran
  // or may run fine; only the counters are unavailable).
  bool counters_unavailable() const;
  std::string describe() const;  // "permission: ..."
};

// A value or an NcuError.
template <class T>
class [[nodiscard]] NcuResult {
 public:
  NcuResult(T value) : v_(std::in_place_index<0>, std::move(value)) {}        // NOLINT: implicit by design
  NcuResult(NcuError error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  const NcuError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, NcuError> v_;
};

std::vector<std::string> default_sections();  // SpeedOfLight, MemoryWorkloadAnalysis, ... SchedulerStats

struct NcuOptions {
  std::string ncu;  // explicit binary; empty: $CM_NCU, then `ncu` on PATH, then /usr/local/cuda/bin/ncu
  std::vector<std::string> sections = default_sections();
  double timeout_s = 300;        // the profiling run (ncu replays each kernel once per pass)
  double import_timeout_s = 120;
  std::string work_dir;          // report, CSV and log go here; empty: a fresh temp dir per run
  std::vector<std::pair<std::string, std::string>> env;  // extra environment (CUDA_VISIBLE_DEVICES of a GPU lane)
  mskb::Launcher launcher;       // slurm: profile (and import, without a local ncu) in a job step
};

// The binary to run, or "" when there is none. An explicit path (or $CM_NCU) is used as given
// when it is executable; a bare name is looked up on PATH.
std::string find_ncu(const std::string& explicit_path = "");

std::vector<std::string> ncu_profile_argv(const std::string& ncu, const NcuOptions& o, const std::string& report_base,
                                          const std::vector<std::string>& app);
std::vector<std::string> ncu_import_argv(const std::string& ncu, const std::string& report);

// Reads the profiling run's combined output and outcome; nullopt when nothing went wrong.
// `runner_disposition`/`runner_message` come from the runner's fatal event, when it sent one.
std::optional<NcuError> diagnose_ncu_run(const std::string& log, int exit_code, bool timed_out,
                                         std::optional<mskb::Disposition> runner_disposition = std::nullopt,
                                         const std::string& runner_message = "");

struct NcuCapture {
  std::string work_dir, report_path, csv_path, log_path;
  std::string csv;                  // the raw page, units row included
  std::vector<std::string> command; // the profiling command
  double profile_seconds = 0, import_seconds = 0;
  std::optional<double> call_us;    // the runner's host time for the profiled call (replays included)
};

class NcuRunner {
 public:
  explicit NcuRunner(NcuOptions o = {});
  // Runs `app` (argv; it reports JSON lines on fd 3 like mskb-runner) under ncu, then imports the
  // report as CSV.
  NcuResult<NcuCapture> profile(const std::vector<std::string>& app) const;
  // `ncu --import REPORT --csv --page raw --print-units base` -> CSV text (also written to
  // csv_out when given).
  NcuResult<std::string> import_report(const std::string& report, const std::string& csv_out = "") const;
  const NcuOptions& options() const { return o_; }

 private:
  NcuOptions o_;
};

// mkdtemp under `parent` (empty: the system temp dir).
std::string make_temp_dir(const std::string& prefix, const std::string& parent = "");

}  // namespace cudamaster::profile

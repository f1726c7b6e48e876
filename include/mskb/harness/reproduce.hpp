// Owns reproducible claims: the `reproduce` record every `mskb run|check --json` report carries
// (what is needed to run it again: the tool's version and commit, the command line, the resolved
// settings with every kernel file's SHA-256, the shape seed and the random shapes it draws, the
// device's identity and the SM clocks seen) and the plan such a record describes (`mskb rerun`
// runs it again; the comparison of a report with its rerun is the report library's:
// mskb/report/rerun.hpp). Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/suite_plan.hpp"

namespace mskb {

inline constexpr int kReproduceFormat = 1;

// The record of `plan` for a run whose random shapes come from `shape_seed`:
// {"format": 1,
//  "tool": {"name", "version", "commit", "cuda", "default_arch"},
//  "command": "run" | "check", "argv": plan.command_line (null when empty), "cwd",
//  "environment": {the MSKB_* / CUDA_VISIBLE_DEVICES variables that were set},
//  "settings": {"tasks", "precisions", "skip_missing_precisions", "contenders", "check_only",
//               "sanitizer", "sanitize_gate", "sweeps": {"timed", "checked"},
//               "shape_seed", "random_shape_count", "random_shapes": {TASK: ["M=..,N=..", ...]},
//               "seeds": {"per_shape", "inputs", "large", "timed", "policy"},
//               "timing" (TimingConfig), "policy" (TimingPolicy), "call_timeout_s",
//               "call_timeout_scale", "compile": {"arch", "flags", "allow_libraries"},
//               "checks_per_gpu", "gpus", "build_jobs", "skip_done",
//               "kernels": [{"task", "precision", "contender", "path" (absolute), "sha256",
//                            "shipped", "optional"}],   every kernel file of every planned group
//               "submission": null | {"dir", "kernels": [{"task", "path", "precision"}],
//                                     "skipped": [{"file", "reason"}]},
//               "task_files": [{"task", "path", "sha256", "reference": {"path", "sha256"} (null
//                               without a host reference)}],
//               "matrix": null | {"path", "sha256"}}}
// A file that cannot be read has sha256 null.
nlohmann::json reproduce_record(const SuitePlan& plan, uint64_t shape_seed);

// `record` completed with what the run saw, from its JSON report `report`: "device" (the report's
// device without its UUID, lanes and cache flags) and "sm_clock_mhz" ({"min", "median", "max",
// "shapes"} over the timed shapes that measured one; null when none).
nlohmann::json reproduce_observed(nlohmann::json record, const nlohmann::json& report);

// Why `report` cannot be run again ("" when it can): not a report, no "reproduce" record (a
// report written before reports carried one, or by mskb merge), or one of a newer format.
std::string reproduce_unavailable(const nlohmann::json& report);

// The plan `record` describes: the same tasks, precisions, contenders, kernel files (absolute
// paths), sweeps, shape seed, seeds, timing, compile options and checks per GPU, and only the
// (task, precision) groups the record lists. Task files are registered again (not their
// references compiled: compile_reference, after changed_files), a matrix read again. Not carried over: the GPUs (a rerun uses the ones at hand) and
// the build jobs. Throws std::invalid_argument (one line) for a malformed record or a missing
// task file or matrix.
SuitePlan plan_from_record(const nlohmann::json& record);

// A file of the record that is gone or differs from the one the report measured.
struct FileChange {
  std::string what;  // "vector_add fp32 baseline", "task file", "matrix", ...
  std::string path;
  bool missing = false;  // else its SHA-256 changed (or it is no longer part of the run)
  std::string detail;    // "sha256 1a2b3c4d.. -> 5e6f7a8b.." or why
  std::string line() const;  // "PATH (WHAT): DETAIL"
};
// Every kernel file of `plan`'s groups (shipped ones found again in this build's data folder,
// matched on task, precision and contender), the task files and their references, and the
// matrix, against the record's SHA-256; a recorded kernel the plan no longer has is a change too.
std::vector<FileChange> changed_files(const nlohmann::json& record, const SuitePlan& plan);

}  // namespace mskb

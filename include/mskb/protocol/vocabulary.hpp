// Owns the harness's vocabularies: the values that cross the JSON, CLI and run-store contracts as
// strings (dispositions, sweeps, contender kinds, evaluation parts, runner modes, sanitizer
// tools). C++ code uses the enums; the strings appear only here, and JSON converts at the
// boundary (to_json / from_json below). Each enum has to_string, from_string<E> (std::nullopt for
// an unknown string) and parse_enum<E> (std::invalid_argument naming the valid ones).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mskb/util/enum_names.hpp"

namespace mskb {

// Every way an evaluation can end (listed in docs/reference.md, judged as docs/harness.md describes).
enum class Disposition {
  passed,
  compile_error,
  missing_entry,
  launch_error,
  out_of_memory,
  crashed,
  timeout,
  wrong_result,
  unwritten_output,
  input_mutated,
  out_of_bounds,
  unsynced,  // work left running after the entry point returned
  rejected_static,
  too_fast,
  noisy,
  no_device,
  harness_error,
  sanitizer_error,  // compute-sanitizer reported an error
  sandbox_violation,     // the kernel's process was killed by the OS sandbox for a refused system call (final)
  sandbox_setup_failed,  // the OS sandbox could not be installed: the kernel was not run
  not_run,
};
std::string to_string(Disposition d);
bool is_correct(Disposition d);  // passed or noisy: the numbers stand, the kernel is right
// The exit code compute-sanitizer is told to use when it found errors (sanitizer_error).
inline constexpr int kSanitizerExitCode = 86;

// The shape sets of a task: its paper and held-out sweeps, random shapes drawn per run, the large
// sweep, a user's Matrix Market file (sparse tasks), and the ad-hoc shapes of `--shape` (custom).
enum class Sweep { paper, heldout, random, large, matrix, custom };
std::string to_string(Sweep s);
// The sweeps a selector names: "all" (paper, heldout, random, large) or one sweep.
std::vector<Sweep> sweeps_named(const std::string& selector);

// What a contender is: the task's shipped baseline or vendor kernel, a wrong/ kernel of the task
// ("wrong/<stem>"), an adversarial corpus kernel ("adversarial/<stem>"), or anything else (a
// user's or an LLM's kernel; cudamaster names it "candidate").
enum class ContenderKind { baseline, vendor, candidate, wrong, adversarial };
std::string to_string(ContenderKind k);
// The kind of a contender name: "baseline", "vendor", "wrong/x", "adversarial/x" (and "<kind>/<mode>"
// forms such as "baseline/remeasure"); any other name is a candidate.
ContenderKind contender_kind(const std::string& contender);

// Which part of a timed evaluation a process does (EvalOptions::part).
enum class Part { all, checks, timing };
std::string to_string(Part p);

// What the runner is asked to do (RunRequest::mode): judge a contender, measure the device's
// ceilings, identify it, or make one call of the entry point for a profiler.
enum class RunMode { evaluate, device, identify, profile };
std::string to_string(RunMode m);

// compute-sanitizer's tools the harness runs.
enum class SanitizerTool { memcheck, racecheck };
std::string to_string(SanitizerTool t);

// The string forms on a stream (test failures, logs).
std::ostream& operator<<(std::ostream& os, Disposition d);
std::ostream& operator<<(std::ostream& os, Sweep s);
std::ostream& operator<<(std::ostream& os, ContenderKind k);
std::ostream& operator<<(std::ostream& os, Part p);
std::ostream& operator<<(std::ostream& os, RunMode m);
std::ostream& operator<<(std::ostream& os, SanitizerTool t);

void to_json(nlohmann::json& j, Disposition d);
void from_json(const nlohmann::json& j, Disposition& d);
void to_json(nlohmann::json& j, Sweep s);
void from_json(const nlohmann::json& j, Sweep& s);
void to_json(nlohmann::json& j, RunMode m);
void from_json(const nlohmann::json& j, RunMode& m);

}  // namespace mskb

MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::Disposition)
MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::Sweep)
MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::ContenderKind)
MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::Part)
MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::RunMode)
MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(mskb::SanitizerTool)

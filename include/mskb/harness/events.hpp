// Owns the parent's reading of the runner's JSON-lines events (the runner writes them: see
// protocol.hpp): one typed event per line, parsed in one place, and the check that a sequence of
// them is the one a request planned. Every reader of a runner's report (the evaluator, the device
// query, cudamaster's profiler and its ncu runs) goes through parse_runner_event.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/protocol.hpp"
#include "mskb/harness/vocabulary.hpp"

namespace mskb {

// phase: a heartbeat (the phase entered and how long it may take); check: one checked seed;
// timing: a timed shape's samples; done: the runner finished; fatal: it gave up; device: the
// device's identity or ceilings; profiled: the one call a profiler watched; other: an event this
// parent does not know (ignored).
enum class EventKind { phase, check, timing, done, fatal, device, profiled, other };

struct RunnerEvent {
  EventKind kind = EventKind::other;
  std::string event;  // the name as sent
  std::string token;  // the request's token ("" when the line has none)
  nlohmann::json body = nlohmann::json::object();  // the whole line (detail, time_us, device fields ...)
  std::string sweep;      // check, timing: as sent (the parent compares it with its plan)
  std::string shape_str;  // check, timing: "N=1024"; phase: the shape it is in
  std::optional<uint64_t> seed;  // check, timing, phase: when sent as an unsigned number
  // check: its verdict; fatal: the runner's (a string that is no disposition reads harness_error).
  std::optional<Disposition> disposition;
  std::string message;  // fatal
  std::string phase;    // phase
  double timeout_s = 0; // phase
  double gap_us = 0;    // check: device busy after the entry point returned
  std::optional<double> call_us;  // check, profiled: one call's time
  std::optional<TimingStats> time;  // timing ("time_us")
  Disposition after_timing = Disposition::passed;  // timing: the output of the last timed call
};

// One report line: std::nullopt unless it is a JSON object with a string "event". Never throws;
// fields of the wrong type read as absent.
std::optional<RunnerEvent> parse_runner_event(const std::string& line);
std::optional<RunnerEvent> runner_event(const nlohmann::json& j);

// The parent's check that the runner reported what `req` asked for: `events` are the check and
// timing events in arrival order. Each planned (sweep, shape, seed) check must come exactly
// once, in the request's order; a failed check ends its shape (and three failures the run); a
// timed shape's timing comes right after its last seed's check while nothing has failed. A
// shorter sequence is fine when the runner did not report `done` (a crash or a fatal error
// decides then). Returns "" or a one-line reason.
std::string check_event_sequence(const RunRequest& req, const std::vector<RunnerEvent>& events, bool done);

}  // namespace mskb

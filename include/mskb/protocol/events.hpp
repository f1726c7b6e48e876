// Owns the events half of the parent <-> runner contract: the JSON-lines events the runner's
// verifier streams to the parent (one object per line, each with the request's token), typed on
// both sides. The runner writes them through EventWriter (one struct per event kind, converted
// here and nowhere else); the parent reads every line through parse_runner_event, and checks that
// a sequence of them is the one a request planned. Every reader of a runner's report (the
// evaluator, the device query, cudamaster's profiler and its ncu runs) goes through it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/protocol/device_time.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

// Raw timing statistics of one (contender, shape), all in microseconds.
struct TimingStats {
  double median_us = 0, min_us = 0, max_us = 0, mean_us = 0, stddev_us = 0;
  int n = 0;
  double noise = 0;            // relative standard error of the mean
  double wall_gap_max_us = 0;  // largest host time spent in cudaDeviceSynchronize after the stop event
  // The gap that at most a tenth of the samples exceed: what unsynced is judged on. Work left
  // running past the return shows in (nearly) every call; one OS hiccup of the runner's thread
  // between the stop event and the synchronize (seen on the H200 host: 0.6-4 ms once in ~1000
  // samples while other runners generated inputs) only in the maximum.
  double wall_gap_p90_us = 0;
  double wall_median_us = 0;   // host wall-clock per call (start to device idle)
  double sm_clock_mhz = 0;     // measured after the samples
  // Other processes with a context on the GPU just before or after the samples (their PIDs as
  // NVML reports them): the times may be slowed by sharing the GPU. -1: not known (no NVML).
  int gpu_others = -1;
  std::vector<uint64_t> gpu_other_pids;
  // The device time of the shape's calls (mskb/protocol/device_time.hpp), measured in extra calls
  // after the samples; absent: device_note says why ("off (MSKB_DEVICE_TIME=off)", "not
  // available: ...", a refused report), or nothing at all (a report from before it was measured).
  std::optional<DeviceTime> device;
  std::string device_note;
};
void to_json(nlohmann::json& j, const TimingStats& t);
void from_json(const nlohmann::json& j, TimingStats& t);

TimingStats summarize_samples(std::vector<double> samples_us);

// The value at most a tenth of `values` exceed (lower nearest rank at 90%; the median of three,
// the second largest of ten): one outlier among few samples does not decide it.
double p90_lower(std::vector<double> values);

// ---- The events, as the runner writes them (EventWriter::emit).

// A heartbeat for the parent's watchdog: the phase entered and how long it may take.
struct PhaseEvent {
  std::string phase;  // load, gpu_wait, generate, call, timing, profile, exit
  Shape shape;        // sent as its string ("" outside a shape)
  uint64_t seed = 0;
  double timeout_s = 0;
};

// One checked seed: its verdict, the reference that decided it, and where the time went.
struct CheckEvent {
  Shape shape;
  Sweep sweep = Sweep::paper;
  uint64_t seed = 0;
  Disposition disposition = Disposition::harness_error;
  std::string reference;  // cpu_fp64, gpu_fp64, kernel_<precision>
  double gap_us = 0;      // device busy after the entry point returned
  double call_us = 0;
  nlohmann::json detail = nlohmann::json::object();   // message, counts, first mismatches ...
  nlohmann::json seconds = nlohmann::json::object();  // generate, reference, waited, check
};

// A timed shape's samples, and the verdict on the outputs of the timed calls.
struct TimingEvent {
  Shape shape;
  Sweep sweep = Sweep::paper;
  uint64_t seed = 0;
  TimingStats time;
  Disposition after_timing = Disposition::passed;
  nlohmann::json after_detail;  // null when the outputs passed
  std::vector<int> verified_samples;
  double seconds = 0;
};

// The device's identity (RunMode::identify), with its ceilings (RunMode::device) when measured.
struct DeviceEvent {
  std::string name, uuid, compute_capability;
  int sms = 0, device_count = 1;
  struct Ceilings {
    long long l2_bytes = 0, memory_bytes = 0;
    int max_sm_clock_mhz = 0, memory_clock_mhz = 0, driver_version = 0, runtime_version = 0;
    double dram_bandwidth_gbs = 0, fp32_tflops = 0, bf16_tflops = 0;
    double launch_floor_us = 0;  // an entry point launching one empty kernel and synchronizing (0: not measured)
    std::string method;
  };
  std::optional<Ceilings> ceilings;
};
void to_json(nlohmann::json& j, const DeviceEvent& d);
void from_json(const nlohmann::json& j, DeviceEvent& d);

// The one call a profiler watched (RunMode::profile).
struct ProfiledEvent {
  Shape shape;
  double call_us = 0;
};

// The runner gave up: the disposition it ends the evaluation with (a candidate's own fatal
// report, a CUDA error, or harness_error) and why.
struct FatalEvent {
  Disposition disposition = Disposition::harness_error;
  std::string message;
  // A failed device query (identify, device): the facts of mskb/util/device_probe.hpp as JSON,
  // sent as "device_probe"; null otherwise.
  nlohmann::json device_probe;
};

// The runner finished what the request asked.
struct DoneEvent {};

// The OS sandbox the kernel's process runs in ("landlock-7+seccomp", ...): in every report.
struct SandboxEvent {
  std::string level;
};

// A fact about how the evaluation ran that changes what it cost, not what it judged (e.g. "ipc":
// GPU comparisons and device inputs fell back to the host because CUDA IPC was unavailable, and
// why): the contender's `notes` in every JSON report.
struct NoteEvent {
  std::string key;
  std::string text;
};

using Event =
    std::variant<PhaseEvent, CheckEvent, TimingEvent, DeviceEvent, ProfiledEvent, FatalEvent, DoneEvent, SandboxEvent, NoteEvent>;

// The line an event is sent as (without the token).
nlohmann::json event_json(const Event& e);

// Writes events as JSON lines to a file descriptor (the verifier's report pipe), each with the
// request's token. A parent gone is not an error: nothing more is said.
class EventWriter {
 public:
  EventWriter(int fd, std::string token) : fd_(fd), token_(std::move(token)) {}
  void emit(const Event& e) const;
  void phase(const char* phase, const Shape& s, uint64_t seed, double timeout_s) const {
    emit(PhaseEvent{phase, s, seed, timeout_s});
  }

 private:
  int fd_;
  std::string token_;
};

// ---- The events, as the parent reads them.

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

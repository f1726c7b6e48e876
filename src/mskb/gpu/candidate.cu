// The candidate process: the only process that loads a kernel library. It owns the CUDA context
// the kernel runs in, uploads the inputs the verifier hands it (a sealed shared region), calls
// and times the entry point, and copies what the kernel left in every buffer (and the guard
// zones) into the output region. It decides nothing: the verifier (verifier.cu) compares, and only
// the verifier can write to the parent's report pipe. Anything here may have been tampered with
// by the kernel; the verifier treats what it receives accordingly.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/device_activity.cuh"
#include "mskb/gpu/device_instance.cuh"
#include "mskb/gpu/entry_point.cuh"
#include "mskb/gpu/runner.cuh"
#include "mskb/protocol/request.hpp"
#include "mskb/util/channel.hpp"
#include "mskb/util/sandbox.hpp"

namespace mskb::gpu {

namespace {

using json = nlohmann::json;

std::vector<double> scalars_of(const json& j) {
  std::vector<double> v;
  for (const auto& x : j) v.push_back(x.is_number() ? x.get<double>() : 0.0);
  return v;
}

// The candidate's loop: one request from the verifier at a time, one answer each.
class Candidate {
 public:
  explicit Candidate(Channel ch) : ch_(std::move(ch)) {}

  void serve() {
    Message m;
    while (ch_.recv(m)) {
      const std::string op = m.body.value("op", "");
      if (op == "exit") return;
      if (op == "load") load(m.body);
      else if (op == "context") context();
      else if (op == "identify") ch_.send({{"ok", true}, {"uuid", identify_device().uuid}});
      else if (op == "instance") instance(m);
      else if (op == "call") call(m.body);
      else if (op == "time") time(m.body);
      else if (op == "host_outputs") host_outputs();
      else throw CandidateFatal(Disposition::harness_error, "unknown request '" + op + "'");
    }
  }

 private:
  void load(const json& b) {
    // --- sandbox (issue 40), step 1: limits and Landlock while this process is single-threaded,
    // before CUDA starts. The library is dlopened in context(), after step 2 (its constructors run
    // inside the whole sandbox): a missing entry point is reported there.
    library_ = b.at("library").get<std::string>();
    symbol_ = b.at("symbol").get<std::string>();
    // Device time (CUPTI): its library is found now, so that Landlock lets it load in context().
    // Under an injected tool (compute-sanitizer, ncu) CUPTI is the tool's.
    device_time_ = b.value("device_time", false);
    if (device_time_ && sandbox::CandidateSandbox::under_injection_tool()) {
      device_time_ = false;
      device_note_ = "not measured under an injected CUDA tool (CUPTI is the tool's)";
    }
    if (device_time_) cupti_library_ = find_cupti_library();
    try {
      box_.confine_files({library_, b.value("task_file", std::string()), {cupti_library_}, false});
    } catch (const std::exception& e) {
      throw CandidateFatal(Disposition::sandbox_setup_failed,
                           std::string("the OS sandbox could not be installed (the kernel was not run): ") + e.what());
    }
    // --- end sandbox
    spec_ = &resolve_task(b.at("task").get<std::string>(), b.value("task_file", std::string()));
    precision_ = parse_precision(b.at("precision").get<std::string>());
    json reply = {{"ok", true}};
    if (b.value("identify", false)) reply["uuid"] = identify_device().uuid;
    ch_.send(reply);
  }
  void context() {
    MSKB_CUDA_CHECK(cudaFree(nullptr));
    l2_ = std::make_unique<L2Flusher>();
    // CUPTI set up before the seccomp filter (its thread and files), its kinds left off.
    if (device_time_) {
      activity_ = std::make_unique<DeviceActivity>(cupti_library_);
      if (!activity_->available()) device_note_ = activity_->why();
    }
    // --- sandbox (issue 40), step 2: seccomp on every thread (CUDA's included) once the context
    // exists; then the kernel library is loaded.
    if (!spec_) throw CandidateFatal(Disposition::harness_error, "context before load");
    try {
      box_.confine_calls();
    } catch (const std::exception& e) {
      throw CandidateFatal(Disposition::sandbox_setup_failed,
                           std::string("the OS sandbox could not be installed (the kernel was not run): ") + e.what());
    }
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // a CUDA error here: the filter refused something the runtime needs
    fn_ = load_entry(library_, symbol_, *spec_, precision_);
    // --- end sandbox
    ch_.send({{"ok", true}, {"sandbox", box_.level()}, {"device_time", activity_ && activity_->available() ? "cupti" : device_note_}});
  }
  // An instance: its inputs from the sealed input region, or (with "device_inputs", an IPC handle,
  // and only the output region passed) from the verifier's device staging copy. Where that copy
  // cannot be mapped, the answer says so and nothing is uploaded: the verifier sends the instance
  // again through the host.
  void instance(Message& m) {
    const bool device_inputs = m.body.contains("device_inputs");
    if (!spec_ || m.fds.size() != (device_inputs ? 1u : 2u))
      throw CandidateFatal(Disposition::harness_error, "instance before load, or without its regions");
    const std::vector<std::size_t> elements = m.body.at("elements").get<std::vector<std::size_t>>();
    InstanceLayout l = instance_layout(*spec_, precision_, elements, m.body.at("guard_bytes").get<std::size_t>());
    const std::vector<double> scalars = scalars_of(m.body.at("scalars"));
    IpcMapping staged;
    SharedRegion input;
    if (device_inputs) {
      try {
        staged = IpcMapping(m.body.value("device_inputs", std::string()));
      } catch (const std::exception& e) {
        cudaGetLastError();  // not sticky; cleared so the next call's check does not see it
        ch_.send({{"ok", true}, {"device_inputs_failed", e.what()}});
        return;
      }
    } else {
      input = SharedRegion::map(std::move(m.fds[0]), l.input_bytes, false);
    }
    out_ = SharedRegion::map(std::move(m.fds[device_inputs ? 0 : 1]), l.output_bytes, true);
    if (!(m.body.value("reuse", false) && d_ && d_->fits(l))) {
      d_.reset();
      d_ = std::make_unique<DeviceInstance>(*spec_, precision_, l, scalars);
    }
    if (device_inputs) {
      d_->upload(staged.get(), scalars, cudaMemcpyDeviceToDevice);
      staged = IpcMapping();  // closed before the verifier may reuse or free its staging copy
    } else {
      d_->upload(input.data(), scalars);
    }
    json reply = {{"ok", true}};
    // A device output region for the verifier to map (it compares on its own GPU context): the
    // previous one is gone from the verifier's side before it sends a new instance.
    if (m.body.value("device_outputs", false)) {
      if (dev_out_.bytes() != std::max<std::size_t>(l.output_bytes, 1)) {
        dev_out_ = DeviceMemory();
        dev_out_ = DeviceMemory(std::max<std::size_t>(l.output_bytes, 1));
      }
      reply["ipc"] = ipc_handle_hex(dev_out_);
    } else {
      dev_out_ = DeviceMemory();
    }
    ch_.send(reply);
  }
  // The verifier could not map the device region: this instance's outputs go to the host region.
  void host_outputs() {
    dev_out_ = DeviceMemory();
    ch_.send({{"ok", true}});
  }
  OutputTarget target() {
    if (dev_out_.get()) return {static_cast<unsigned char*>(dev_out_.get()), cudaMemcpyDeviceToDevice, out_.data()};
    return {out_.data(), cudaMemcpyDeviceToHost, out_.data()};
  }
  void call(const json& b) {
    if (!d_) throw CandidateFatal(Disposition::harness_error, "call before instance");
    const bool before_sync = b.value("snapshot", std::string()) == "before_sync";
    d_->reset();
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());
    const OutputTarget to = target();
    const CallOutcome o = call_checked(fn_, *d_, before_sync ? &to : nullptr);
    if (before_sync)
      d_->copy_inputs_and_guards(to);
    else
      d_->copy_all(to);
    ch_.send({{"ok", true}, {"gap_us", o.gap_us}, {"call_us", o.call_us}});
  }
  void time(const json& b) {
    if (!d_ || !l2_) throw CandidateFatal(Disposition::harness_error, "time before instance");
    const TimingConfig cfg = b.at("config").get<TimingConfig>();
    const std::vector<int> verify_at = b.value("verify_at", std::vector<int>{});
    const RawTiming r = time_entry(fn_, *d_, cfg, *l2_, [&](int i) {
      if (std::find(verify_at.begin(), verify_at.end(), i) == verify_at.end()) return true;
      d_->copy_outputs(target());  // outputs only: the last sample's copy has inputs and guards
      ch_.send({{"snapshot", i}});
      Message reply;
      if (!ch_.recv(reply)) throw CandidateFatal(Disposition::harness_error, "verifier gone");
      return reply.body.value("op", "") == "continue";
    });
    json reply = {{"ok", true},           {"samples", r.samples},       {"walls", r.walls},
                  {"gaps", r.gaps},       {"sm_clock_mhz", r.sm_clock_mhz}, {"warmup_s", r.warmup_s},
                  {"sampling_s", r.sampling_s}};
    // Device time: a few extra calls with CUPTI recording (never during the samples above), at
    // most about a tenth of the time the samples took, one call at least.
    if (cfg.device_samples > 0 && activity_) {
      const int count = std::min(cfg.device_samples, std::max(1, static_cast<int>(r.samples.size())));
      const DeviceSamples ds = time_device(fn_, *d_, cfg, *l2_, *activity_, count, 0.1 * (r.warmup_s + r.sampling_s));
      if (ds.note.empty()) {
        reply["device_us"] = ds.device_us;
        reply["device_call_us"] = ds.call_us;
      } else {
        reply["device_note"] = ds.note;
      }
      reply["device_s"] = ds.seconds;
    } else if (cfg.device_samples > 0) {
      reply["device_note"] = device_note_.empty() ? std::string("not requested") : device_note_;
    }
    d_->copy_all(target());  // the last call's outputs (a device-time call's, when there were some)
    ch_.send(reply);
  }

  Channel ch_;
  sandbox::CandidateSandbox box_;  // issue 40: step 1 in load(), step 2 in context()
  std::string library_, symbol_;   // loaded in context(), inside the sandbox
  const TaskSpec* spec_ = nullptr;
  Precision precision_ = Precision::fp32;
  void* fn_ = nullptr;
  std::unique_ptr<DeviceInstance> d_;
  std::unique_ptr<L2Flusher> l2_;
  bool device_time_ = false;              // the verifier asked for device time (load)
  std::string cupti_library_;             // found before Landlock ("": the loader's search)
  std::string device_note_;               // why there is none
  std::unique_ptr<DeviceActivity> activity_;  // CUPTI, set up in context()
  SharedRegion out_;
  DeviceMemory dev_out_;  // the device output region the verifier maps, when it asked for one
};

}  // namespace

int run_candidate(int channel_fd) {
  // This process must not outlive the verifier (a killed verifier leaves no kernel running).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 3;
  // The verifier's end stays open while the fatal report goes out (the candidate object that
  // threw may be gone by then).
  const Channel reply{UniqueFd(::dup(channel_fd))};
  auto report = [&](Disposition disposition, const char* message) {
    try {
      reply.send({{"fatal", to_string(disposition)}, {"message", message}});
    } catch (const std::exception&) {
      // the verifier is gone: nothing more to say
    }
  };
  try {
    Candidate c{Channel{UniqueFd(channel_fd)}};
    c.serve();
    return 0;
  } catch (const CandidateFatal& f) {
    report(f.disposition, f.what());
  } catch (const CudaError& e) {
    // Inside the OS sandbox a refused system call can surface as a CUDA error: said, with the way to name it.
    const std::string why = std::string(e.what()) + (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2
                                                         ? " (inside the OS sandbox: a refused system call may be the cause; "
                                                           "MSKB_SANDBOX_DEBUG=trap names it in the log)"
                                                         : "");
    report(disposition_for(e.code()), why.c_str());
  } catch (const std::exception& e) {
    report(Disposition::harness_error, e.what());
  }
  return 3;
}

}  // namespace mskb::gpu

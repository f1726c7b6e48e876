// mskb-runner's verifier process: what the request's mode asks for (the device's identity or
// ceilings, a profiled call, or a contender's evaluation through the Verifier), reported as events
// on the report pipe; an error ends in a fatal event.
#include "mskb/gpu/runner.cuh"

#include <sys/prctl.h>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/verifier.cuh"
#include "mskb/protocol/events.hpp"

namespace mskb::gpu {

int run_child(const RunRequest& req, int report_fd) {
  const EventWriter rep(report_fd, req.token);
  try {
    if (req.mode == RunMode::device) {
      rep.emit(measure_device());
    } else if (req.mode == RunMode::profile) {
      rep.emit(run_profile(req, rep));
    } else if (req.mode == RunMode::identify) {
      rep.emit(identify_device());
    } else {
      // Nothing may attach to this process or read its memory (the reference, the token).
      ::prctl(PR_SET_DUMPABLE, 0);
      Verifier v(req, rep, report_fd);
      v.run();
      v.finish();
    }
    rep.emit(DoneEvent{});
    return 0;
  } catch (const CandidateFatal& f) {
    rep.emit(FatalEvent{f.disposition, f.what(), nullptr});
  } catch (const CudaError& e) {
    FatalEvent f{disposition_for(e.code()), e.what(), nullptr};
    // A device query that fails says why the machine has no usable GPU (the parent explains it).
    if (req.mode == RunMode::identify || req.mode == RunMode::device) f.device_probe = probe_device(e.code());
    rep.emit(f);
  } catch (const std::exception& e) {
    rep.emit(FatalEvent{Disposition::harness_error, e.what(), nullptr});
  }
  return 3;
}

}  // namespace mskb::gpu

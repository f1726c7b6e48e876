// Owns the instances the verifier checks, in the order it checks them: each prepared once (on the
// host, or drawn and referenced on the verifier's GPU), held while the candidate works on it, and
// the next one prepared ahead on the host meanwhile (InstanceQueue). With a share folder
// (RunRequest::instance_share_dir) the verifiers of one group prepare each instance once between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/instance_share.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/task.hpp"
#include "mskb/gpu/gpu_instance.cuh"
#include "mskb/protocol/request.hpp"
#include "mskb/util/channel.hpp"

namespace mskb::gpu {

// One instance as the verifier holds it: the inputs it generated (turned into the expected
// outputs in place once the reference ran), the sealed input region the candidate uploads from,
// the output region the candidate copies into.
struct HeldInstance {
  InstanceLayout layout;
  Args expected;
  std::vector<std::size_t> elements;
  std::vector<double> scalars;
  SharedRegion input, output;
  std::unique_ptr<GpuInstance> gpu;  // the instance on the verifier's GPU (expected then stays empty)
  // False for a GPU instance whose inputs have not been downloaded into `input` (which is then
  // unsealed and never handed to the candidate): they go to it device to device.
  bool inputs_on_host = true;
  std::string ref_kind;  // empty until the reference ran
  double generate_s = 0, reference_s = 0;
  bool shared = false;  // copied from another verifier's (RunRequest::instance_share_dir)
};

// Whether the instances of `shape` are drawn, referenced and compared on the verifier's GPU.
bool uses_gpu_instance(const TaskSpec& spec, const RunRequest& req, const Shape& shape);

// Prepares the instances of a request in the order the verifier checks them, one ahead: while
// the candidate runs (uploads, checked calls, timing) the host builds the next instance with all
// but two of its CPUs at a lower priority (prepare_yielding: the candidate's launching thread gets
// a core whenever it wants one). GPU references are never run ahead: they would share the GPU with
// a timing.
class InstanceQueue {
 public:
  struct Job {
    const CheckItem* item = nullptr;
    uint64_t seed = 0;
  };
  InstanceQueue(const TaskSpec& spec, const RunRequest& req, const SparseMatrix* matrix)
      : spec_(spec), req_(req), matrix_(matrix), share_(req.instance_share_dir, req.instance_share_consumers) {
    for (const CheckItem& c : req.checks)
      for (uint64_t seed : c.seeds) jobs_.push_back({&c, seed});
  }
  InstanceQueue(const InstanceQueue&) = delete;
  InstanceQueue& operator=(const InstanceQueue&) = delete;
  ~InstanceQueue() {
    if (ahead_.valid()) ahead_.wait();
  }

  // The instance of (c, seed), `dropped`'s buffers reused; starts preparing the job after it.
  std::unique_ptr<HeldInstance> take(const CheckItem& c, uint64_t seed, std::unique_ptr<HeldInstance> dropped);

 private:
  // Host preparation on the calling thread (one of its own), with all CPUs but two and at nice
  // +kPrepareNice (its workers inherit it): it takes every CPU left idle, and yields at once to a
  // timed process's launching thread (this verifier's candidate while it is timed, or another
  // evaluation's on the same host) and to the verifiers' main threads.
  static constexpr int kPrepareNice = 10;
  // With a share (RunRequest::instance_share_dir), the instance another verifier of the group
  // prepared is copied in; the first to come prepares it while the others wait, and publishes it.
  std::unique_ptr<HeldInstance> prepare_yielding(const CheckItem& c, uint64_t seed, Args storage);

  // Everything that decides what prepare_instance makes of (c, seed) in this run.
  std::string share_key(const CheckItem& c, uint64_t seed) const;

  // What the others need of an instance (InstanceShare::Keep). After a CPU reference: the
  // expected outputs (out, accumulate, inplace), not the read-only inputs, which nothing reads
  // in FP64 again (verify and GpuInstance take them from the encoded input region). Before a
  // reference made at check time: every input, and the outputs only sized where a GPU reference
  // will write them (Outputs::sized), else as prepared.
  std::vector<InstanceShare::Keep> share_keep(const CheckItem& c, const HeldInstance& h) const;

  // The instance as another verifier prepared it (what share_keep kept of its FP64 inputs and
  // expected outputs) and its encoded inputs, copied; a reference made at check time runs here.
  std::unique_ptr<HeldInstance> from_share(const InstanceShare::Turn& turn, Args storage);

  const TaskSpec& spec_;
  const RunRequest& req_;
  const SparseMatrix* matrix_;
  InstanceShare share_;
  std::vector<Job> jobs_;
  std::future<std::unique_ptr<HeldInstance>> ahead_;
  std::size_t ahead_at_ = 0;
};

}  // namespace mskb::gpu

// Owns a task file's reference kernel inside the verifier (docs/task-files.md, reference_kernel):
// the user's own CUDA kernel, whose outputs are the expected values. Kernel code never runs in the
// verifier, which judges: the reference kernel runs in a process of its own, a second
// `mskb-runner` candidate process (candidate.cu) started and spoken to exactly like the
// contender's (load, context, then per instance: the instance's sealed input region with an output
// region of its own, one call with the after-sync snapshot). What it leaves in its outputs,
// decoded to FP64, is what the contender is compared with; guard zones, read-only inputs and
// unwritten or non-finite outputs of the reference are checked, and any problem with it is a
// harness error naming the reference kernel, never the contender's disposition. GPU work: run at
// check time, never ahead of a timing (like a GPU FP64 reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/task.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/util/channel.hpp"

namespace mskb::gpu {

class KernelReference {
 public:
  // Inactive (nothing is started) unless `req` names a reference library; then `spec` must be a
  // registered task file's task with a reference kernel (else std::runtime_error). `report_fd`:
  // the verifier's report pipe, closed in the reference's process.
  KernelReference(const RunRequest& req, const TaskSpec& spec, int report_fd);
  ~KernelReference();
  KernelReference(const KernelReference&) = delete;
  KernelReference& operator=(const KernelReference&) = delete;

  bool active() const { return !library_.empty(); }
  // "kernel_fp32": what the check events name as the reference (reference_precision of the file).
  const std::string& kind() const { return kind_; }

  // Starts the reference's process, loads the kernel and creates its CUDA context (no-op when
  // inactive). Call before the GPU-sharing check learns the evaluation's own contexts, so that
  // this one counts as ours, not as another process beside a timing.
  void start();

  // The expected outputs of one instance (the one the contender gets: `layout`, its sealed
  // `input` region, `elements` and `scalars`) into the output buffers of `expected` (FP64; inputs
  // left as they are). Returns kind(). Throws std::runtime_error "reference kernel orig.cu: ...".
  std::string compute(const Shape& shape, uint64_t seed, const InstanceLayout& layout, const SharedRegion& input,
                      const std::vector<std::size_t>& elements, const std::vector<double>& scalars, Args& expected);

 private:
  class Process;
  [[noreturn]] void fail(const std::string& what) const;

  const RunRequest& req_;
  const TaskSpec& spec_;
  int report_fd_;
  std::string library_, kind_, name_;
  std::unique_ptr<Process> proc_;
  SharedRegion out_;  // the reference's own output region
};

}  // namespace mskb::gpu

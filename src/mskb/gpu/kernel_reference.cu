#include "mskb/gpu/kernel_reference.cuh"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "mskb/core/task_file.hpp"
#include "mskb/gpu/runner_child.cuh"
#include "mskb/util/parallel.hpp"
#include "mskb/util/process.hpp"

namespace mskb::gpu {

using json = nlohmann::json;

// The reference kernel's process and our end of its channel: `mskb-runner --reference 3`, the
// candidate of candidate.cu made not dumpable first (it holds expected outputs). It gets the
// channel as fd 3 and nothing else beyond stdin/stdout/stderr (the report pipe is closed in it);
// it dies with the verifier (the candidate's PR_SET_PDEATHSIG). Killed on destruction. Every
// failure is a std::runtime_error without prefix (KernelReference names the kernel).
class KernelReference::Process {
 public:
  explicit Process(int report_fd) : child_("--reference", report_fd) {}

  void send(const json& j, const std::vector<int>& fds = {}) {
    if (!child_.send(j, fds)) died();
  }
  Message reply() {
    Message m;
    bool got = false;
    try {
      got = child_.recv(m);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string("unreadable message from its process: ") + e.what());
    }
    if (!got) died();
    if (m.body.contains("fatal"))
      throw std::runtime_error(m.body.value("fatal", std::string("error")) + ": " + m.body.value("message", std::string()));
    return m;
  }
  void exit() { child_.send({{"op", "exit"}}); }  // already gone: the destructor reaps it

 private:
  [[noreturn]] void died() {
    bool signaled = false;
    throw std::runtime_error("its process " + child_.reap(signaled));
  }

  RunnerChild child_;
};

KernelReference::KernelReference(const RunRequest& req, const TaskSpec& spec, int report_fd)
    : req_(req), spec_(spec), report_fd_(report_fd), library_(req.reference_library) {
  if (library_.empty()) return;
  const TaskFile* tf = spec.file;
  if (!tf || tf->reference_kernel.empty())
    throw std::runtime_error("the request names a reference kernel (" + library_ + ") but task " + spec.name + " has none");
  kind_ = "kernel_" + tf->reference_precision;
  name_ = std::filesystem::path(tf->reference_kernel).filename().string();
}

KernelReference::~KernelReference() {
  if (proc_) proc_->exit();
}

void KernelReference::fail(const std::string& what) const { throw std::runtime_error("reference kernel " + name_ + ": " + what); }

void KernelReference::start() {
  if (!active() || proc_) return;
  try {
    proc_ = std::make_unique<Process>(report_fd_);
    proc_->send({{"op", "load"}, {"task", req_.task}, {"task_file", req_.task_file}, {"precision", to_string(req_.precision)},
                 {"library", library_}, {"symbol", spec_.symbol(req_.precision)}, {"identify", false}});
    proc_->reply();
    proc_->send({{"op", "context"}});
    proc_->reply();
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

namespace {

// Element k of a buffer of `elem` in the output region, as FP64 (every element type: decode_elem).
double decode(const unsigned char* p, Elem e, Precision prec) { return decode_elem(p, e, prec); }

}  // namespace

std::string KernelReference::compute(const Shape& shape, uint64_t seed, const InstanceLayout& layout, const SharedRegion& input,
                                     const std::vector<std::size_t>& elements, const std::vector<double>& scalars, Args& expected) {
  if (!active()) throw std::logic_error("KernelReference::compute without a reference kernel");
  start();
  if (out_.bytes() != layout.output_bytes || !out_.data()) out_ = SharedRegion::create("mskb-ref-output", layout.output_bytes);
  try {
    // Into the buffers of the previous instance where the sizes match (the candidate checks).
    proc_->send({{"op", "instance"}, {"shape", shape.str()}, {"seed", seed}, {"elements", elements}, {"scalars", scalars},
                 {"guard_bytes", layout.guard_bytes}, {"reuse", true}},
                {input.fd(), out_.fd()});
    proc_->reply();
    proc_->send({{"op", "call"}, {"snapshot", "after_sync"}});
    proc_->reply();
  } catch (const std::exception& e) {
    fail(e.what());
  }
  // (The evaluation's message names the shape and seed: the phase the verifier is in.)
  const unsigned char* out = out_.data();
  for (std::size_t i = 0; i < spec_.params.size(); ++i) {
    const BufferPlace& b = layout.params[i];
    if (!b.buffer) continue;
    const Param& q = spec_.params[i];
    for (std::size_t k = 0; k < 2 * layout.guard_bytes; ++k)
      if (out[b.guard_offset + k] != 0xFF) fail("wrote outside buffer '" + q.name + "' (guard zone modified)");
    if (q.role == Role::in && std::memcmp(out + b.out_offset, input.data() + b.in_offset, b.bytes) != 0)
      fail("modified read-only input '" + q.name + "'");
  }
  for (std::size_t i = 0; i < spec_.params.size(); ++i) {
    const BufferPlace& b = layout.params[i];
    const Param& q = spec_.params[i];
    if (!b.buffer || q.role == Role::in) continue;
    const std::size_t n = elements[i], eb = elem_bytes(q.elem, req_.precision);
    if (n * eb != b.bytes) fail("buffer '" + q.name + "' has " + std::to_string(b.bytes) + " bytes for " + std::to_string(n) + " elements");
    HostData& want = expected[i].data;
    want.resize(n);
    const unsigned char* src = out + b.out_offset;
    const bool poisoned = q.role == Role::out;  // only overwrite outputs start as the poison pattern
    std::atomic<std::size_t> unwritten{0}, non_finite{0}, first_unwritten{n}, first_non_finite{n};
    auto lower = [](std::atomic<std::size_t>& a, std::size_t v) {
      for (std::size_t cur = a.load(); v < cur && !a.compare_exchange_weak(cur, v);) {
      }
    };
    parallel_for(static_cast<int64_t>(n), [&](int64_t kk) {
      const auto k = static_cast<std::size_t>(kk);
      const unsigned char* p = src + k * eb;
      if (poisoned && std::all_of(p, p + eb, [](unsigned char c) { return c == 0xFF; })) {
        ++unwritten;
        lower(first_unwritten, k);
      }
      want[k] = decode(p, q.elem, req_.precision);
      if (!std::isfinite(want[k])) {
        ++non_finite;
        lower(first_non_finite, k);
      }
    }, 1 << 16);
    if (unwritten > 0)
      fail("left " + std::to_string(unwritten.load()) + " of " + std::to_string(n) + " elements of '" + q.name + "' unwritten (first: " +
           std::to_string(first_unwritten.load()) + ")");
    if (non_finite > 0)
      fail("computed " + std::to_string(non_finite.load()) + " non-finite elements of '" + q.name + "' (first: " +
           std::to_string(first_non_finite.load()) + ")");
  }
  return kind_;
}

}  // namespace mskb::gpu

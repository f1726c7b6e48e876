#include "mskb/gpu/instance_queue.cuh"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

#include "mskb/core/generators.hpp"
#include "mskb/gpu/comparison.cuh"
#include "mskb/gpu/stopwatch.cuh"
#include "mskb/util/parallel.hpp"
#include "mskb/util/process.hpp"

namespace mskb::gpu {

bool uses_gpu_instance(const TaskSpec& spec, const RunRequest& req, const Shape& shape) {
  return gpu_instance_possible(spec, shape) && static_cast<double>(spec.complexity(shape)) >= req.gpu_instance_min_complexity;
}

namespace {

// An instance drawn, referenced and kept on the verifier's GPU: only its typed inputs reach the
// host, in the input region, and with RunRequest::device_inputs not even they (until a fallback
// needs them: Verifier::inputs_to_host). GPU work: never run ahead of a timing.
std::unique_ptr<HeldInstance> prepare_gpu_instance(const TaskSpec& spec, const RunRequest& req, const CheckItem& c, uint64_t seed) {
  auto h = std::make_unique<HeldInstance>();
  const auto t0 = Clock::now();
  Rng rng(instance_seed(spec, c.shape, seed));
  const UniformDraw d = draw_uniform(spec, c.shape, rng);
  h->elements = d.elements;
  h->scalars.assign(spec.params.size(), 0.0);
  for (std::size_t i = 0; i < spec.params.size(); ++i)
    if (!spec.params[i].is_buffer) h->scalars[i] = round_scalar(spec.params[i].scalar, req.precision, d.scalars[i]);
  h->layout = instance_layout(spec, req.precision, h->elements, req.guard_bytes);
  h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
  h->gpu = std::make_unique<GpuInstance>(spec, req.precision, c.shape, d, h->scalars, find_device_reference(spec.name));
  h->inputs_on_host = !req.device_inputs;
  if (h->inputs_on_host) {
    h->gpu->download_inputs(h->layout, h->input.data());
    h->input.seal();
  }
  h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
  h->ref_kind = "gpu_fp64";
  h->generate_s = seconds_since(t0);  // drawing and the reference, both on the GPU
  return h;
}

// Everything of an instance that is host work: inputs, their encoding into the sealed input
// region, the output region and, where it runs on the CPU, the FP64 reference. `storage`: the
// buffers of a dropped instance, reused.
std::unique_ptr<HeldInstance> prepare_instance(const TaskSpec& spec, const RunRequest& req, const CheckItem& c, uint64_t seed,
                                               const SparseMatrix* matrix, Args storage) {
  auto h = std::make_unique<HeldInstance>();
  const auto t0 = Clock::now();
  // A GPU reference writes every output (downloaded over the host's, or kept on the GPU): the
  // host's are only sized for it, not zeroed (on the largest SpMM shapes, 8 GB an instance).
  const bool kernel_reference = !req.reference_library.empty();
  const bool gpu_reference = !kernel_reference && uses_gpu_reference(spec, c.shape, req.gpu_reference_min_complexity);
  h->expected = make_inputs(spec, c.shape, req.precision, seed, c.shape.has("matrix") ? matrix : nullptr, std::move(storage),
                            gpu_reference ? Outputs::sized : Outputs::zeroed);
  for (const Arg& a : h->expected) {
    h->elements.push_back(a.data.size());
    h->scalars.push_back(a.value);
  }
  h->layout = instance_layout(spec, req.precision, h->elements, req.guard_bytes);
  h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
  encode_inputs(spec, req.precision, h->expected, h->layout, h->input.data());
  h->input.seal();
  h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
  h->generate_s = seconds_since(t0);
  if (!gpu_reference && !kernel_reference) {  // a GPU reference or a reference kernel: at check time
    const auto t1 = Clock::now();
    h->ref_kind = compute_expected_in_place(spec, c.shape, req.precision, h->expected, req.gpu_reference_min_complexity);
    h->reference_s = seconds_since(t1);
  }
  return h;
}

}  // namespace

std::unique_ptr<HeldInstance> InstanceQueue::take(const CheckItem& c, uint64_t seed, std::unique_ptr<HeldInstance> dropped) {
  std::size_t at = 0;
  while (at < jobs_.size() && !(jobs_[at].item == &c && jobs_[at].seed == seed)) ++at;
  std::unique_ptr<HeldInstance> h;
  if (ahead_.valid()) {
    if (ahead_at_ == at) {
      h = ahead_.get();  // rethrows the preparation's error
    } else {
      // A job skipped after a failure: its buffers are reused, an error preparing it is moot.
      try {
        std::unique_ptr<HeldInstance> a = ahead_.get();
        if (a && !dropped) dropped = std::move(a);
      } catch (const std::exception&) {
      }
    }
  }
  Args storage = dropped ? std::move(dropped->expected) : Args{};
  dropped.reset();  // its regions go now, before the next instance's are created
  if (!h && uses_gpu_instance(spec_, req_, c.shape)) h = prepare_gpu_instance(spec_, req_, c, seed);
  if (!h) {
    // Not prepared ahead (the first job, every large-sweep one, one after a skip): prepared now
    // as one ahead is, the verifier waiting for it. The large sweep's instances (never prepared
    // ahead: two at once would double the memory of the largest shapes) were made here on the
    // main thread's share of the CPUs (RunRequest::host_threads, 2 per verifier in a suite's
    // timing phase on 16 CPUs), which set the pace of the large sweep.
    h = std::async(std::launch::async, [&] { return prepare_yielding(c, seed, std::move(storage)); }).get();
    storage = Args{};
  }
  if (at + 1 < jobs_.size() && jobs_[at + 1].item->sweep != Sweep::large && !uses_gpu_instance(spec_, req_, jobs_[at + 1].item->shape)) {
    ahead_at_ = at + 1;
    const Job next = jobs_[at + 1];
    ahead_ = std::async(std::launch::async, [this, next, st = std::move(storage)]() mutable {
      return prepare_yielding(*next.item, next.seed, std::move(st));
    });
  }
  return h;
}

std::unique_ptr<HeldInstance> InstanceQueue::prepare_yielding(const CheckItem& c, uint64_t seed, Args storage) {
  lower_thread_priority(kPrepareNice);
  const ParallelCap cap(std::max(1, available_cpus() - 2));
  InstanceShare::Turn turn = share_.take(share_key(c, seed));
  if (turn.found()) {
    // An entry that does not fit this request (it never should: the key says what decides it)
    // is prepared here instead, never half used.
    try {
      return from_share(turn, std::move(storage));
    } catch (const std::exception&) {
      storage = Args{};
    }
  }
  std::unique_ptr<HeldInstance> h = prepare_instance(spec_, req_, c, seed, matrix_, std::move(storage));
  if (turn.producing()) {
    const auto t0 = Clock::now();
    turn.publish(h->expected, h->input.data(), h->layout.input_bytes, h->ref_kind, h->generate_s, h->reference_s, share_keep(c, *h));
    h->generate_s += seconds_since(t0);  // the copy out is this verifier's host work too
  }
  return h;
}

std::string InstanceQueue::share_key(const CheckItem& c, uint64_t seed) const {
  if (!share_.active()) return {};
  return "mskb-instance-v1|" + spec_.name + "|" + req_.task_file + "|" + to_string(req_.precision) + "|" + c.shape.str() + "|" +
         std::to_string(seed) + "|" + req_.matrix_path + "|" + std::to_string(req_.guard_bytes) + "|" +
         std::to_string(req_.gpu_reference_min_complexity) + "|" + req_.reference_library;
}

std::vector<InstanceShare::Keep> InstanceQueue::share_keep(const CheckItem& c, const HeldInstance& h) const {
  const bool gpu_reference = req_.reference_library.empty() && uses_gpu_reference(spec_, c.shape, req_.gpu_reference_min_complexity);
  std::vector<InstanceShare::Keep> keep(h.expected.size(), InstanceShare::Keep::data);
  for (std::size_t i = 0; i < spec_.params.size() && i < keep.size(); ++i) {
    const Param& q = spec_.params[i];
    if (!q.is_buffer) continue;
    const bool output = q.role == Role::out || q.role == Role::accumulate;
    if (!h.ref_kind.empty() && q.role == Role::in) keep[i] = InstanceShare::Keep::none;
    if (h.ref_kind.empty() && output && gpu_reference) keep[i] = InstanceShare::Keep::sized;
  }
  return keep;
}

std::unique_ptr<HeldInstance> InstanceQueue::from_share(const InstanceShare::Turn& turn, Args storage) {
  auto h = std::make_unique<HeldInstance>();
  const auto t0 = Clock::now();
  h->expected = std::move(storage);
  turn.copy_args(h->expected);
  h->elements = turn.elements();  // read-only inputs not kept are left empty
  for (const Arg& a : h->expected) h->scalars.push_back(a.value);
  h->layout = instance_layout(spec_, req_.precision, h->elements, req_.guard_bytes);
  if (h->layout.input_bytes != turn.input_bytes()) throw std::runtime_error("a shared instance's input region does not match its inputs");
  h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
  turn.copy_input(h->input.data());
  h->input.seal();
  h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
  h->ref_kind = turn.ref_kind();
  h->generate_s = seconds_since(t0);  // this verifier's own host work: the copies
  h->shared = true;
  return h;
}

}  // namespace mskb::gpu

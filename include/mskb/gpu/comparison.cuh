// Owns the verifier's judgements of what the candidate hands back, made in the verifier alone:
// its outputs against the expected ones (guard zones, read-only inputs, every output element, on
// the host or on the verifier's GPU), which FP64 reference makes the expected outputs, and a
// timing report against the verifier's own clock.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/instance.hpp"
#include "mskb/core/task.hpp"
#include "mskb/gpu/gpu_instance.cuh"
#include "mskb/gpu/reference.cuh"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb::gpu {

// Compares what the candidate copied back: guard zones, read-only inputs, every output element.
// Returns a disposition (passed, unwritten_output, wrong_result, input_mutated, out_of_bounds)
// and fills `detail`.
// `device_out`: for an instance on the verifier's GPU, the candidate's device output region mapped
// here (outputs and read-only inputs are then compared on the GPU, guard zones still in `out`).
Disposition verify(const TaskSpec& s, Precision p, const InstanceLayout& l, const unsigned char* input, unsigned char* out,
                   const Args& expected, const GpuInstance* gpu, const unsigned char* device_out, const Tolerance& tol,
                   nlohmann::json& detail, bool outputs_only = false);

// Whether a task's FP64 GPU reference makes the expected outputs of `shape` (it has one, and the
// shape's weighted complexity reaches `min_complexity`).
bool uses_gpu_reference(const TaskSpec& spec, const Shape& shape, double min_complexity);

// Turns the inputs into the expected outputs in place: no copy of what can be gigabytes of FP64
// data on the large sweeps. Returns which reference ran. `keep`: a GPU reference may leave outputs
// on the device there (GpuReferenceFn), for a GpuInstance to take over.
std::string compute_expected_in_place(const TaskSpec& spec, const Shape& shape, Precision p, Args& a, double gpu_min_complexity,
                                      DeviceOutputs* keep = nullptr);

// The timing checks the verifier can make on its own: the samples are the candidate's claim, the
// wall clock of the whole timing phase is the verifier's observation. Returns "" or the reason.
std::string timing_inconsistency(const std::vector<double>& samples, const std::vector<double>& walls, const std::vector<double>& gaps,
                                 double observed_us);

}  // namespace mskb::gpu

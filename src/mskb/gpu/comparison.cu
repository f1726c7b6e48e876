#include "mskb/gpu/comparison.cuh"

#include <cmath>
#include <cstring>

#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

using json = nlohmann::json;

Disposition verify(const TaskSpec& s, Precision p, const InstanceLayout& l, const unsigned char* input, unsigned char* out,
                   const Args& expected, const GpuInstance* gpu, const unsigned char* device_out, const Tolerance& tol, json& detail,
                   bool outputs_only) {
  if (!gpu) device_out = nullptr;
  detail["compared_on"] = device_out ? "gpu" : (gpu ? "gpu_from_host" : "host");
  for (std::size_t i = 0; i < s.params.size() && !outputs_only; ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer) continue;
    const unsigned char* g = out + b.guard_offset;
    for (std::size_t k = 0; k < 2 * l.guard_bytes; ++k)
      if (g[k] != 0xFF) {
        detail["message"] = "wrote outside buffer '" + s.params[i].name + "' (guard zone modified)";
        return Disposition::out_of_bounds;
      }
  }
  for (std::size_t i = 0; i < s.params.size() && !outputs_only; ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer || s.params[i].role != Role::in || device_out) continue;
    if (std::memcmp(out + b.out_offset, input + b.in_offset, b.bytes) != 0) {
      detail["message"] = "modified read-only input '" + s.params[i].name + "'";
      return Disposition::input_mutated;
    }
  }
  if (device_out && !outputs_only) {
    if (const std::string name = gpu->mutated_input(l, device_out); !name.empty()) {
      detail["message"] = "modified read-only input '" + name + "'";
      return Disposition::input_mutated;
    }
  }
  const auto compare_on_host = [&](const Args& want) {
    CompareResult c;
    for (std::size_t i = 0; i < s.params.size(); ++i) {
      const Param& q = s.params[i];
      const BufferPlace& b = l.params[i];
      if (!b.buffer || q.role == Role::in) continue;
      // Only overwrite outputs were poisoned.
      compare_encoded(q.name, out + b.out_offset, b.bytes, q.elem, p, q.role == Role::out ? 0xFF : -1, want[i].data, tol,
                      elem_is_integer(q.elem), c);
    }
    return c;
  };
  // An instance on the verifier's GPU is compared there; a failure is compared again on the host
  // for its first mismatches (the same verdict and counts, the comparison being the same).
  CompareResult r = gpu ? gpu->compare(l, device_out ? device_out : out, tol, device_out != nullptr) : compare_on_host(expected);
  if (gpu && !r.ok) {
    if (device_out)
      for (std::size_t i = 0; i < s.params.size(); ++i) {
        const BufferPlace& b = l.params[i];
        if (b.buffer && s.params[i].role != Role::in && b.bytes > 0)
          MSKB_CUDA_CHECK(cudaMemcpy(out + b.out_offset, device_out + b.out_offset, b.bytes, cudaMemcpyDeviceToHost));
      }
    r = compare_on_host(gpu->expected_on_host());
  }
  detail["checked"] = r.checked;
  detail["mismatches"] = r.mismatches;
  detail["nans"] = r.nans;
  detail["unwritten"] = r.unwritten;
  detail["max_abs_err"] = r.max_abs_err;
  detail["max_err_over_tol"] = std::isfinite(r.max_rel_err) ? json(r.max_rel_err) : json("inf");
  detail["atol"] = tol.atol;
  detail["rtol"] = tol.rtol;
  if (r.ok) return Disposition::passed;
  detail["param"] = r.param;
  json bad = json::array();
  for (std::size_t k = 0; k < r.first_bad.size(); ++k) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf")); };
    bad.push_back({{"index", r.first_bad[k]}, {"got", num(r.first_bad_got[k])}, {"want", num(r.first_bad_want[k])}});
  }
  detail["first_mismatches"] = bad;
  if (r.unwritten > 0) {
    detail["message"] = std::to_string(r.unwritten) + " of " + std::to_string(r.checked) + " elements of '" + r.param +
                        "' were never written";
    return Disposition::unwritten_output;
  }
  detail["message"] = std::to_string(r.mismatches) + " of " + std::to_string(r.checked) + " elements outside tolerance (" +
                      std::to_string(r.nans) + " NaN) in '" + r.param + "'";
  return Disposition::wrong_result;
}

bool uses_gpu_reference(const TaskSpec& spec, const Shape& shape, double min_complexity) {
  return find_gpu_reference(spec.name) != nullptr &&
         static_cast<double>(spec.complexity(shape)) * spec.cpu_reference_weight >= min_complexity;
}

std::string compute_expected_in_place(const TaskSpec& spec, const Shape& shape, Precision p, Args& a, double gpu_min_complexity,
                                      DeviceOutputs* keep) {
  if (uses_gpu_reference(spec, shape, gpu_min_complexity)) {
    find_gpu_reference(spec.name)(shape, p, a, keep);
    return "gpu_fp64";
  }
  spec.reference(shape, p, a);
  return "cpu_fp64";
}

std::string timing_inconsistency(const std::vector<double>& samples, const std::vector<double>& walls, const std::vector<double>& gaps,
                                 double observed_us) {
  if (samples.empty()) return "no timed samples reported";
  if (walls.size() != samples.size() || gaps.size() != samples.size()) return "sample, wall and gap counts differ";
  double sum = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i]) || samples[i] <= 0 || !std::isfinite(walls[i]) || !std::isfinite(gaps[i]) || gaps[i] < 0)
      return "a timed sample is not a positive finite time";
    // The events sit inside the host bracket of the same call (timer granularity aside).
    if (walls[i] + 2.0 < samples[i]) return "a sample's event time exceeds its own wall-clock bracket";
    sum += walls[i];
  }
  if (sum > observed_us * 1.02 + 1000.0)
    return "the claimed calls take longer (" + std::to_string(static_cast<long long>(sum)) + " us) than the timing phase the verifier observed (" +
           std::to_string(static_cast<long long>(observed_us)) + " us)";
  return "";
}

}  // namespace mskb::gpu

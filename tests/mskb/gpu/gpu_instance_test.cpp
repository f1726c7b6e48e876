// The verifier's GPU instances (mskb/gpu/gpu_instance.cuh) against the host path they replace:
// the inputs drawn on the GPU are bit for bit the CPU twin's (make_inputs, encoded), the device
// reference gives the CPU reference's values (exactly, or within FP64 rounding where the sums may
// be taken in another order), and the GPU comparison gives the host comparison's verdict and
// counts, on right and on wrong outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/gpu/gpu_instance.cuh"
#include "mskb/gpu/reference.cuh"
#include "support/gpu_instance_tasks.hpp"

using namespace mskb;

namespace {

// Writes `v` (FP64) into `dst` in the element type of (e, p).
template <class Vec>  // std::vector<double> or HostData
void encode(const Vec& v, Elem e, Precision p, unsigned char* dst) {
  const std::size_t eb = elem_bytes(e, p);
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (e == Elem::i32) {
      const auto x = static_cast<int32_t>(v[k]);
      std::memcpy(dst + k * eb, &x, 4);
    } else if (eb == 4) {
      const auto x = static_cast<float>(v[k]);
      std::memcpy(dst + k * eb, &x, 4);
    } else {
      const uint16_t x = bf16_bits(static_cast<float>(v[k]));
      std::memcpy(dst + k * eb, &x, 2);
    }
  }
}

CompareResult host_compare(const TaskSpec& t, Precision p, const InstanceLayout& l, const std::vector<unsigned char>& out, const Args& want,
                           Tolerance tol) {
  CompareResult r;
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    const Param& q = t.params[i];
    if (!q.is_buffer || q.role == Role::in) continue;
    compare_encoded(q.name, out.data() + l.params[i].out_offset, l.params[i].bytes, q.elem, p, q.role == Role::out ? 0xFF : -1,
                    want[i].data, tol, q.elem == Elem::i32, r);
  }
  return r;
}

// How far the device reference may be from the CPU reference. Exact (0) where the task's tolerance
// is exact (copies, permutations: nothing is rounded). Elsewhere both compute the same FP64 sums, in
// the same order where the kernel follows the CPU's, but possibly in another order or with FMA (a
// host compiler may contract a*b+c; a kernel may block its sums): two roundings of a sum of K terms
// differ by about u*sqrt(K) times its partial sums (u = 2^-53, rounding errors add up like a random
// walk), ~1e-16 * sqrt(K) * max|out| for these tasks' inputs. The slack, 1e-12 * sqrt(K) *
// max(1, max|out|), leaves a factor 10^4; for the GEMM shapes tested it is also above the worst case
// 2*K*u*sum|terms| (<= 2*K^2*u = 3.7e-9 at K = 4099 with |terms| <= 1, where max|out| ~ 90). K, the
// terms per output, is complexity / output elements (K for GEMMs, x_dim*y_dim, N for a GEMV, at least
// kernel_rows*kernel_cols for conv_2d; at least 1). A wrong reference is far outside: a permuted
// operand moves outputs by O(1) (checked below for every case), an FP32 accumulation by ~1e-7*|out|.
double reference_slack(const TaskSpec& t, const Shape& s, Precision p, const Args& want) {
  const Tolerance tol = t.tolerance(s, p);
  if (tol.atol == 0.0 && tol.rtol == 0.0) return 0.0;
  std::size_t outputs = 0;
  double biggest = 1.0;
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    if (!t.params[i].is_buffer || t.params[i].role == Role::in) continue;
    outputs += want[i].data.size();
    for (double v : want[i].data) biggest = std::max(biggest, std::abs(v));
  }
  const double k = std::max(1.0, static_cast<double>(t.complexity(s)) / static_cast<double>(std::max<std::size_t>(outputs, 1)));
  return 1e-12 * std::sqrt(k) * biggest;
}

// Output elements of `got` farther than `slack` from `want` (slack 0: any difference; NaN always).
std::size_t reference_mismatches(const TaskSpec& t, const Args& got, const Args& want, double slack, std::string& first) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    if (!t.params[i].is_buffer || t.params[i].role == Role::in) continue;
    if (got[i].data.size() != want[i].data.size()) return got[i].data.size() + want[i].data.size() + 1;
    for (std::size_t k = 0; k < want[i].data.size(); ++k)
      if (!(std::abs(got[i].data[k] - want[i].data[k]) <= slack)) {
        if (bad++ == 0)
          first = t.params[i].name + "[" + std::to_string(k) + "]: " + std::to_string(got[i].data[k]) + " vs " +
                  std::to_string(want[i].data[k]);
      }
  }
  return bad;
}

void expect_same(const CompareResult& gpu, const CompareResult& host, const std::string& what) {
  EXPECT_EQ(gpu.ok, host.ok) << what;
  EXPECT_EQ(gpu.checked, host.checked) << what;
  EXPECT_EQ(gpu.mismatches, host.mismatches) << what;
  EXPECT_EQ(gpu.nans, host.nans) << what;
  EXPECT_EQ(gpu.unwritten, host.unwritten) << what;
  EXPECT_EQ(gpu.max_abs_err, host.max_abs_err) << what;
  EXPECT_EQ(gpu.max_rel_err, host.max_rel_err) << what;
  EXPECT_EQ(gpu.param, host.param) << what;
}

}  // namespace

// The tasks converted to GPU instances: CMake registers a device reference only where reference.cu
// spells MSKB_DEVICE_REFERENCE(task), so a misspelt one would silently fall back to the host path.
TEST(GpuInstances, ConvertedTasksHaveDeviceReferences) {
  for (const char* name : mskb_test::kGpuInstanceTasks) {
    EXPECT_NE(gpu::find_device_reference(name), nullptr) << name;
    EXPECT_TRUE(get_task(name).uniform_inputs) << name;
  }
}

TEST(GpuInstances, MatchTheHostPath) {
  int cases = 0, wrong_references_caught = 0;
  for (const auto& [name, ref] : gpu::device_references()) {
    const TaskSpec& t = get_task(name);
    ASSERT_TRUE(t.uniform_inputs) << name << ": a device reference without uniform inputs is never used";
    std::vector<Shape> shapes = {t.paper.front(), t.heldout[1], t.heldout[3]};
    for (const Shape& s : shapes)
      for (Precision p : {Precision::fp32, Precision::bf16}) {
        const std::string what = name + " " + s.str() + " " + to_string(p);
        const uint64_t seed = 11;
        // The host path.
        const Args in = make_inputs(t, s, p, seed);
        const Args want = make_expected(t, s, p, in);
        std::vector<std::size_t> elements;
        std::vector<double> scalars;
        for (const Arg& a : in) {
          elements.push_back(a.data.size());
          scalars.push_back(a.value);
        }
        const InstanceLayout l = instance_layout(t, p, elements, 0);
        std::vector<unsigned char> host_in(l.input_bytes + 1, 0), gpu_in(l.input_bytes + 1, 0);
        encode_inputs(t, p, in, l, host_in.data());
        // The GPU path.
        Rng rng(instance_seed(t, s, seed));
        const UniformDraw d = draw_uniform(t, s, rng);
        ASSERT_EQ(d.elements, elements) << what;
        std::vector<double> rounded(t.params.size(), 0.0);
        for (std::size_t i = 0; i < t.params.size(); ++i)
          if (!t.params[i].is_buffer) rounded[i] = round_scalar(t.params[i].scalar, p, d.scalars[i]);
        ASSERT_EQ(rounded, scalars) << what;
        gpu::GpuInstance g(t, p, s, d, rounded, ref);
        g.download_inputs(l, gpu_in.data());
        ASSERT_EQ(std::memcmp(host_in.data(), gpu_in.data(), l.input_bytes), 0) << what << ": inputs drawn on the GPU differ";
        const Args gpu_want = g.expected_on_host();
        const double slack = reference_slack(t, s, p, want);
        std::string first;
        EXPECT_EQ(reference_mismatches(t, gpu_want, want, slack, first), 0u)
            << what << ": device reference vs CPU reference, slack " << slack << ", first " << first;
        // The check catches a wrong reference: the CPU reference of an off-by-one read of the first
        // input buffer, read-only or in place (element k read as k + 1, the last one twice: the right values in the wrong
        // places, as a shifted or transposed read gives; unlike a reversal it also moves sums, whose
        // order does not matter, and symmetric weightings such as Simpson's rule).
        Args permuted = in;
        for (std::size_t i = 0; i < t.params.size(); ++i)
          if (t.params[i].is_buffer && (t.params[i].role == Role::in || t.params[i].role == Role::inplace) && in[i].data.size() > 1) {
            mskb::HostData& v = permuted[i].data;
            std::rotate(v.begin(), v.begin() + 1, v.end());
            v.back() = in[i].data.back();
            if (permuted[i].data != in[i].data) {
              EXPECT_GT(reference_mismatches(t, make_expected(t, s, p, permuted), want, slack, first), 0u)
                  << what << ": an off-by-one read of '" << t.params[i].name << "' passes the reference check";
              ++wrong_references_caught;
            }
            break;
          }

        // Right outputs, then wrong ones (a NaN, a never-written element, a far-off value).
        const Tolerance tol = t.tolerance(s, p);
        std::vector<unsigned char> out(l.output_bytes + 1, 0);
        std::size_t first_out = 0, out_elems = 0;
        for (std::size_t i = 0; i < t.params.size(); ++i) {
          const Param& q = t.params[i];
          if (!q.is_buffer || q.role == Role::in) continue;
          encode(want[i].data, q.elem, p, out.data() + l.params[i].out_offset);
          first_out = i;
          out_elems = want[i].data.size();
        }
        // Both comparisons against the expected outputs the verifier holds (the device reference's).
        expect_same(g.compare(l, out.data(), tol), host_compare(t, p, l, out, gpu_want, tol), what + " right");
        EXPECT_TRUE(g.compare(l, out.data(), tol).ok) << what;
        const Param& q = t.params[first_out];
        const std::size_t eb = elem_bytes(q.elem, p);
        unsigned char* o = out.data() + l.params[first_out].out_offset;
        std::vector<double> bad(want[first_out].data.begin(), want[first_out].data.end());
        for (std::size_t k = 0; k < out_elems; k += 3) bad[k] = bad[k] * 1.5 + 0.25;
        encode(bad, q.elem, p, o);
        if (out_elems > 2) {
          std::memset(o + eb, 0xFF, eb);  // poison: never written
          const uint32_t nan = 0x7fc00000u;
          std::memcpy(o + 2 * eb, reinterpret_cast<const unsigned char*>(&nan) + (eb == 2 ? 2 : 0), eb);
        }
        const CompareResult gr = g.compare(l, out.data(), tol), hr = host_compare(t, p, l, out, gpu_want, tol);
        expect_same(gr, hr, what + " wrong");
        EXPECT_FALSE(gr.ok) << what;
        ++cases;
      }
  }
  EXPECT_EQ(cases, static_cast<int>(6 * gpu::device_references().size()));  // 3 shapes x 2 precisions each
  EXPECT_EQ(wrong_references_caught, cases);
  std::printf("%d instances: GPU and host paths agree (%d wrong references caught)\n", cases, wrong_references_caught);
}

// A host-made instance compared on the GPU takes over the outputs its GPU reference left on the
// device (DeviceOutputs) instead of a download and an upload: the same expected outputs, bit for
// bit, as the reference downloaded into the Args and uploaded, for every GPU reference; the host
// Args of a kept output stay as they were; the SpMM references (and the device references) keep.
TEST(GpuInstances, KeptReferenceOutputsAreTheDownloadedOnes) {
  int cases = 0, kept_cases = 0;
  for (const auto& [name, fn] : gpu::gpu_references()) {
    const TaskSpec& t = get_task(name);
    if (!gpu::gpu_compare_possible(t)) continue;
    const Shape s = t.paper.front();
    if (t.complexity(s) > uint64_t{20000000000}) continue;
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      const std::string what = name + " " + s.str() + " " + to_string(p);
      const Args in = make_inputs(t, s, p, 5);
      std::vector<std::size_t> elements;
      for (const Arg& a : in) elements.push_back(a.data.size());
      const InstanceLayout l = instance_layout(t, p, elements, 0);
      std::vector<unsigned char> region(l.input_bytes + 1, 0);
      encode_inputs(t, p, in, l, region.data());
      Args downloaded = in;
      fn(s, p, downloaded, nullptr);
      Args left = in;
      gpu::DeviceOutputs kept;
      kept.out.resize(t.params.size());
      fn(s, p, left, &kept);
      bool any_kept = false;
      for (std::size_t i = 0; i < t.params.size(); ++i)
        if (kept.out[i].get() != nullptr) {
          any_kept = true;
          EXPECT_EQ(left[i].data, in[i].data) << what << ": the host '" << t.params[i].name << "' of a kept output changed";
        }
      const gpu::GpuInstance uploaded(t, p, l, elements, region.data(), downloaded);
      const gpu::GpuInstance taken(t, p, l, elements, region.data(), left, &kept);
      const Args a = uploaded.expected_on_host(), b = taken.expected_on_host();
      for (std::size_t i = 0; i < t.params.size(); ++i) {
        if (!t.params[i].is_buffer || t.params[i].role == Role::in) continue;
        ASSERT_EQ(a[i].data.size(), b[i].data.size()) << what;
        EXPECT_EQ(std::memcmp(a[i].data.data(), b[i].data.data(), a[i].data.size() * sizeof(double)), 0) << what << " " << t.params[i].name;
        EXPECT_EQ(a[i].data, downloaded[i].data) << what;
      }
      ++cases;
      kept_cases += any_kept ? 1 : 0;
    }
  }
  // The four SpMM references and the nine device references keep their outputs, in both precisions.
  EXPECT_GE(kept_cases, 2 * 13);
  std::printf("%d GPU references, %d kept their outputs on the device\n", cases, kept_cases);
}

// The verifier sizes the outputs of an instance a GPU reference will compute without zeroing
// them (Outputs::sized: whatever the reused buffers held). Every GPU reference must then write
// every output without reading it: the same bits from outputs full of NaN as from zeros.
TEST(GpuInstances, GpuReferencesNeverReadTheirOutputs) {
  int cases = 0;
  for (const auto& [name, fn] : gpu::gpu_references()) {
    const TaskSpec& t = get_task(name);
    const Shape s = t.paper.front();
    if (t.complexity(s) > uint64_t{20000000000}) continue;
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      const std::string what = name + " " + s.str() + " " + to_string(p);
      Args zeroed = make_inputs(t, s, p, 5);
      Args used = make_inputs(t, s, p, 6);
      int scribbled = 0;
      for (std::size_t i = 0; i < t.params.size(); ++i)
        if (t.params[i].is_buffer && (t.params[i].role == Role::out || t.params[i].role == Role::accumulate)) {
          std::fill(used[i].data.begin(), used[i].data.end(), std::nan(""));
          ++scribbled;
        }
      if (scribbled == 0) continue;  // in place only (sorting): its outputs are its inputs
      Args sized = make_inputs(t, s, p, 5, nullptr, std::move(used), Outputs::sized);
      fn(s, p, zeroed, nullptr);
      fn(s, p, sized, nullptr);
      for (std::size_t i = 0; i < t.params.size(); ++i) {
        if (!t.params[i].is_buffer) continue;
        ASSERT_EQ(zeroed[i].data.size(), sized[i].data.size()) << what << " " << t.params[i].name;
        EXPECT_EQ(std::memcmp(zeroed[i].data.data(), sized[i].data.data(), zeroed[i].data.size() * sizeof(double)), 0)
            << what << ": '" << t.params[i].name << "' depends on what the output held before the reference";
      }
      ++cases;
    }
  }
  EXPECT_GE(cases, 2 * 13);
  std::printf("%d GPU references computed from NaN-filled outputs: the same bits as from zeros\n", cases);
}

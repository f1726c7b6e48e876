// Owns the task model: what a MSKernelBench task is (entry-point parameters and their roles,
// shapes and sweeps, seeded input generation, the FP64 reference, tolerances, complexity and the
// speed-of-light cost). Host-only: no CUDA headers. One TaskSpec per tasks/<category>/<task>/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/counter_rng.hpp"

namespace mskb {

struct SparseMatrix;  // mskb/matrix_market.hpp

enum class Precision { fp32, bf16 };
const char* to_string(Precision p);
Precision parse_precision(const std::string& s);  // throws std::invalid_argument
inline std::size_t real_bytes(Precision p) { return p == Precision::fp32 ? 4 : 2; }

// Element type of a device buffer. `real` follows the precision (float / __nv_bfloat16);
// `f32` stays float in both precisions (e.g. dot_product's loss); `i32` is an index array.
// `f16` (IEEE binary16, __half) and `i64` (long long) keep their type in both precisions too;
// only task files use them so far. Integer elements are compared exactly.
enum class Elem { real, f32, i32, f16, i64 };
// Scalar parameter passed by value. `real` is float in FP32 and __nv_bfloat16 in BF16; `i64` is
// long long (task files only).
enum class ScalarType { i32, f32, real, i64 };
// in: read only (checksummed after the call). out: overwritten (poisoned before each call, every
// element checked). accumulate: the harness zeroes it before each call. inplace: input restored
// before each call and the result checked.
enum class Role { in, out, accumulate, inplace };
const char* to_string(Role r);

struct Param {
  std::string name;
  bool is_buffer = true;
  Elem elem = Elem::real;
  Role role = Role::in;
  ScalarType scalar = ScalarType::i32;
};

// Parameter builders, in the order of the entry point's C signature.
Param in(std::string name, Elem e = Elem::real);
Param out(std::string name, Elem e = Elem::real);
Param accumulate(std::string name, Elem e = Elem::real);
Param inplace(std::string name, Elem e = Elem::real);
Param int_arg(std::string name);
Param float_arg(std::string name);
Param real_arg(std::string name);

// A named, ordered set of dimensions: {"M", 1024}, {"N", 2048}.
struct Shape {
  std::vector<std::pair<std::string, int64_t>> dims;
  Shape() = default;
  Shape(std::initializer_list<std::pair<std::string, int64_t>> d) : dims(d) {}
  int64_t operator[](const std::string& name) const;  // throws std::out_of_range
  bool has(const std::string& name) const;
  std::string str() const;  // "M=1024,N=2048"
  bool operator==(const Shape& o) const { return dims == o.dims; }
};

// The allocator of the instances' host buffers (HostData): memory from malloc, and a vector's
// resize leaves new elements default-initialized, that is unwritten. Sizing a buffer then costs
// no pass over it, and a large one is mapped lazily: its pages come from the OS where something
// first writes them, in parallel where the writer is (a generator's parallel fill), and never
// for an output that only a GPU reference writes, on the GPU (Outputs::sized: the 8 GB FP64
// output of the paper's largest SpMM, whose serial value-initialization was 90% of its instance's
// generation). Every generator writes each element it sizes (a test holds every task to it).
template <class T>
struct UninitializedAllocator {
  using value_type = T;
  UninitializedAllocator() = default;
  template <class U>
  constexpr UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    void* p = std::malloc(n == 0 ? 1 : n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialization: nothing written for a double
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const UninitializedAllocator&, const UninitializedAllocator&) { return true; }
  friend bool operator!=(const UninitializedAllocator&, const UninitializedAllocator&) { return false; }
};
// An instance buffer on the host: FP64 values (ints exact). resize() does not zero what it adds.
using HostData = std::vector<double, UninitializedAllocator<double>>;
// Element-wise equality with a plain vector (tests, hand-made expectations).
inline bool operator==(const HostData& a, const std::vector<double>& b) { return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()); }
inline bool operator==(const std::vector<double>& a, const HostData& b) { return b == a; }
inline bool operator!=(const HostData& a, const std::vector<double>& b) { return !(a == b); }
inline bool operator!=(const std::vector<double>& a, const HostData& b) { return !(b == a); }

// Values of every parameter for one instance: buffers in `data` (FP64 on the host; ints exact),
// scalars in `value`. Indexed like TaskSpec::params.
struct Arg {
  HostData data;
  double value = 0.0;
};
using Args = std::vector<Arg>;

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

// Minimum DRAM traffic and arithmetic per call, for the roofline. `tensor` selects the tensor
// core peak for BF16 (GEMM-like tasks); otherwise FLOPs are charged at the FP32 CUDA-core peak.
struct Cost {
  double bytes = 0.0;
  double flops = 0.0;
  bool tensor = false;
};

// Deterministic generator: xoshiro256** seeded by splitmix64(seed ^ hash(task, shape)).
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform(double lo, double hi);  // [lo, hi)
  int64_t uniform_int(int64_t lo, int64_t hi);  // [lo, hi]
  double normal(double mean = 0.0, double stddev = 1.0);
  // v[i] = U(lo, hi) for the n elements of v (chunked streams: the values do not depend on the
  // thread count); any vector of doubles.
  void fill_uniform(double* v, std::size_t n, double lo, double hi);
  template <class Vec>
  void fill_uniform(Vec& v, double lo, double hi) {
    fill_uniform(v.data(), v.size(), lo, hi);
  }

 private:
  uint64_t s_[4];
};

// Tasks whose input buffers are all uniform draws: for a shape, every buffer parameter's element
// count and every scalar's value (scalars may be drawn from the instance's generator), and each
// input buffer's range. Their inputs are drawn element by element with the counter-based
// generator (mskb/core/counter_rng.hpp, one key per input buffer), so the verifier can draw them
// on the GPU as the same values (set_uniform_inputs in mskb/core/generators.hpp sets
// spec.generate to the CPU twin).
class Rng;
struct UniformInputs {
  std::function<void(const Shape&, Rng&, std::vector<std::size_t>& elements, std::vector<double>& scalars)> layout;
  std::vector<UniformRange> range;  // per parameter: an input buffer's distribution (mskb/core/counter_rng.hpp)
  // Optional: the ranges of one shape (e.g. a row length or a channel count as a mix's period),
  // adjusted from a copy of `range`.
  std::function<void(const Shape&, std::vector<UniformRange>&)> shape_range = {};
};

struct TaskFile;  // mskb/core/task_file.hpp

struct TaskSpec {
  // Set from the folder by the registry.
  std::string name;
  std::string category;
  std::string folder;  // relative to the source root, e.g. "tasks/algebra/vector_add"

  // Set by the task's spec.cpp.
  std::string semantics;  // what the entry point computes, for humans and prompts
  std::string vendor;     // the vendor contender ("cuBLAS cublasSaxpy"), empty if none
  // Where `vendor` is empty: why no library route fits this ABI (shown as "none: <reason>" in
  // `mskb list`, docs/tasks.md and every report). Empty means none was given.
  std::string vendor_none_reason;
  // Where the ABI itself forces work on the library route that a real application would do once
  // or not at all (nnz or a column count not passed, a format the library does not take): said
  // next to the vendor's numbers in `mskb list` and reports. Empty when the route pays no such cost.
  std::string vendor_abi_cost;
  std::vector<Param> params;
  std::vector<Shape> paper, heldout, large;
  int seeds = 3;  // correctness seeds per paper/held-out shape (the large sweep uses one)

  // Fill every input buffer and scalar of `a` (already sized to params) and resize every output
  // buffer. Values need not be rounded: the harness rounds inputs to the parameter's type.
  std::function<void(const Shape&, Precision, Rng&, Args&)> generate;
  // Set (with generate) by set_uniform_inputs when every input is a uniform draw.
  std::shared_ptr<const UniformInputs> uniform_inputs;
  // FP64 reference: read the inputs of `a`, write every out/accumulate/inplace buffer
  // (accumulate outputs start at zero, inplace buffers hold the input).
  std::function<void(const Shape&, Precision, Args&)> reference;
  // Sparse tasks only: an instance from a user's matrix (`mskb run --matrix FILE.mtx`) instead of
  // `generate`. The shape then holds rows, cols, nnz, max_row_nnz, max_col_nnz and matrix=1, so
  // tolerance, complexity and cost can read the matrix's real sizes.
  std::function<void(const SparseMatrix&, const Shape&, Precision, Rng&, Args&)> from_matrix;
  std::function<Tolerance(const Shape&, Precision)> tolerance;
  std::function<uint64_t(const Shape&)> complexity;
  std::function<Cost(const Shape&, Precision)> cost;
  // The CPU reference's cost per unit of complexity, relative to one parallel FP64 multiply-add: a
  // task's GPU reference (tasks/*/*/reference.cu), where it has one, replaces the CPU reference from
  // complexity * cpu_reference_weight >= RunRequest::gpu_reference_min_complexity (1e8). The SpMV
  // tasks' CPU references group their entries by row first (serial), well above 1.
  double cpu_reference_weight = 1.0;
  // Entry points may launch work whose time grows with the problem; the runner's per-call
  // watchdog is this many seconds (plus a constant) for the largest shape.
  double call_timeout_s = 10.0;
  // Random shapes (mskb/random_shapes.hpp): every run also checks a few shapes drawn from the
  // task's valid size space. By default that space is derived from paper + heldout; a task whose
  // space they do not describe sets an explicit sampler of one valid shape (no larger than its
  // declared shapes), or, as a last resort, random_shapes_ok = false with the reason in a comment.
  std::function<Shape(Rng&)> random_shape;
  bool random_shapes_ok = true;
  // A user's task: the task file it was read from, set when the file is registered
  // (mskb/core/registry.hpp; the registry owns it for the life of the process, and copies of the
  // spec point at it too). Null for a built-in task and for a file read but not registered.
  const TaskFile* file = nullptr;

  std::string symbol(Precision p) const { return p == Precision::fp32 ? name : name + "_bf16"; }
  // The C signature of the entry point for `p`, e.g. "void vector_add(const float* A, ...)".
  std::string signature(Precision p) const;
  const std::vector<Shape>& sweep(const std::string& which) const;  // paper|heldout|large
};

// Problems with a spec (empty when valid): missing functions, empty sweeps, bad params.
std::vector<std::string> validate(const TaskSpec& spec);

// Helpers for spec authors.
double round_to(Precision p, double x);       // round to float or bfloat16 (nearest even)
double round_elem(Elem e, Precision p, double x);
uint16_t bf16_bits(float x);                  // round-to-nearest-even float -> bf16 bits
float bf16_to_float(uint16_t bits);
// IEEE binary16, straight from the double (one rounding, to nearest even, subnormals included,
// overflow to +-inf, NaN -> 0x7fff): the bits CUDA's __double2half gives, and, for a float
// argument (exact in a double), __float2half_rn's.
uint16_t fp16_bits(double x);
double fp16_to_double(uint16_t bits);  // exact
std::size_t elem_bytes(Elem e, Precision p);

// What the bytes of a buffer of `e` are in precision `p`.
enum class Storage { f32, bf16, f16, i32, i64 };
Storage storage_of(Elem e, Precision p);
bool elem_is_integer(Elem e);  // i32, i64: compared exactly
// The task-file spelling of an element type: real, fp32, fp16, int32, int64.
const char* to_string(Elem e);
// The C type of an element in the entry point for `p`: float, __nv_bfloat16, __half, int, long long.
const char* c_type(Elem e, Precision p);

}  // namespace mskb

// Defines a task in tasks/<category>/<task>/spec.cpp; the registry is generated by CMake.
#define MSKB_TASK(task) void mskb_define_task_##task(::mskb::TaskSpec& spec)

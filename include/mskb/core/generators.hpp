// Owns the input generators that several task specs share: deterministic parallel fills of big
// buffers (chunked streams: the values do not depend on the thread count) and the activation tasks'
// input distribution. Host-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/util/parallel.hpp"

namespace mskb {

// v[i] = value(r, i) for every i, where r is the generator of i's chunk (chunked_fill: chunk c of
// 2^16 indices draws from a stream seeded from ONE draw of `rng` and c, in index order). Draws
// exactly what Rng::fill_uniform draws when value is r.uniform(lo, hi).
template <class Vec, class Value>
void fill_each(Vec& v, Rng& rng, Value&& value) {
  double* out = v.data();
  chunked_fill(static_cast<int64_t>(v.size()), rng,
               [out, &value](Rng& r, int64_t i) { out[i] = value(r, static_cast<std::size_t>(i)); });
}

// The activation tasks' input distribution as a counter draw (UniformRange): U(-5, 5), one element
// in 16 from U(-100, 100), where exp/tanh-based shortcuts overflow (exp(88.7) is already infinite
// in FP32).
inline constexpr UniformRange kActivationInput{-5.0, 5.0, -100.0, 100.0};

// Makes `spec` (params {out(y), in(x), int_arg(N), then float scalars}) a uniform-input activation
// task: y and x of N elements, x drawn from `x` (kActivationInput, or that with a first range),
// a[2] = N and the scalars after N set to `constants` in order. Call after spec.params is set.
void set_activation_inputs(TaskSpec& spec, std::vector<double> constants = {}, UniformRange x = kActivationInput);

// One activation input from a chunked stream (kActivationInput's distribution, for generators that
// mix it with others): one r.next() (the 1-in-16 choice), then one uniform.
double activation_input(Rng& r);

// The sweeps of the elementwise tasks over one size N: paper N = 2^10, 2^12, ..., 2^18; held-out 1, 999,
// 65537, 2^18 + 3, 3000017; large 2^24, 2^26, 2^28.
void set_elementwise_sweeps(TaskSpec& spec);

// y[k] = f(x[k]) for every k of x (y already sized), in parallel: an elementwise FP64 reference.
template <class F>
void map_elementwise(const HostData& x, HostData& y, F&& f) {
  const double* in = x.data();
  double* out = y.data();
  parallel_for(static_cast<int64_t>(x.size()), [in, out, &f](int64_t k) { out[k] = f(in[k]); });
}

// Makes `spec` a uniform-input task (mskb/core/task.hpp UniformInputs): records `u` and sets
// spec.generate to its CPU twin. Call after spec.params is set.
void set_uniform_inputs(TaskSpec& spec, UniformInputs u);

// What a uniform-input task draws for an instance from its generator `rng` (the instance's: Rng
// seeded with instance_seed): the layout first (element counts, scalars, unrounded), then one
// counter key per input buffer in parameter order (0 for the other parameters). The CPU twin
// and the verifier's GPU generation both start here.
struct UniformDraw {
  std::vector<std::size_t> elements;
  std::vector<double> scalars;
  std::vector<uint64_t> keys;
  std::vector<UniformRange> ranges;  // per parameter: UniformInputs::range, with its shape_range applied
};
UniformDraw draw_uniform(const TaskSpec& spec, const Shape& s, Rng& rng);

}  // namespace mskb

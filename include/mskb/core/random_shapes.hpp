// Owns the random shapes of a run: besides the public paper and held-out shapes, every run draws a
// few shapes per task from the task's valid size space (seeded, recorded in the report, reproducible
// with `--shape-seed N`), so a kernel cannot be correct on exactly the published shapes. Host-only.
//
// The size space is the task's explicit sampler (TaskSpec::random_shape) when it has one, otherwise
// one derived from its declared paper + held-out shapes (see random_shapes below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb {

// `count` distinct shapes drawn from the task's valid size space; the same (task, seed, count)
// always gives the same shapes (integer arithmetic only), and the first k of a longer draw are the
// k-shape draw. Every shape differs from every declared paper, held-out and large shape in its size
// dimensions (those every paper/held-out shape has) and from the others drawn; its complexity is at
// most the largest paper/held-out shape's. Shape 0 is any size (edge cases such as 1 x 7 included);
// shapes 1, 3, ... are at least as much work as the smallest paper shape when the space has such.
// Empty when the task opted out (TaskSpec::random_shapes_ok = false).
//
// Derived space (no TaskSpec::random_shape): per dimension, over every declared shape,
//  - present in only some shapes (a flag such as skew or rand_r): absent or one of its declared values;
//  - one declared value: kept; all values <= 8 (kernel sizes, strides, paddings, small batches):
//    one of the declared values;
//  - otherwise an integer between the declared min and max, drawn log-uniformly (about as many
//    small as large ones), a power of two if every declared value is one, a multiple of g if every
//    declared value is (g = their gcd > 1), odd if every declared value is odd;
//  - dimensions equal in every declared shape stay equal; a <= b (a < b) in every declared shape
//    stays so.
// Throws std::runtime_error when no such shape turns up (a task that needs an explicit sampler).
std::vector<Shape> random_shapes(const TaskSpec& spec, uint64_t seed, int count);

// A nonzero seed for a run that was not given one (from std::random_device and the clock); the
// caller records it so `--shape-seed` can replay the run.
uint64_t fresh_shape_seed();

// What keeps `s` out of the task's size space (empty: it is in): an unknown or missing dimension, a
// value the declared shapes (paper, held-out and large) rule out - below 1, a constant or one of a
// few values (kernel sizes, strides), a power of two, a multiple of g, odd - each as a line naming
// it. The size itself is free: an ad-hoc shape (`mskb run --shape`) may be smaller or larger than
// every declared one. Relations between dimensions that every declared shape keeps (equal, <=, <)
// may be the task's or chance: one `s` breaks are `notes` ("N <= K in every declared shape of
// matrix_mul (the task may assume it)"), when given.
std::vector<std::string> shape_constraint_problems(const TaskSpec& spec, const Shape& s, std::vector<std::string>* notes = nullptr);

// `mskb run|check --shape TEXT`: "N=1048576" or "M=512,N=256,K=128" as a shape of the task, its
// dimensions in the task's order. Throws std::invalid_argument naming what is wrong ("--shape
// 'Q=1': unknown dimension 'Q' (matrix_mul's dimensions: M, N, K)"; the constraint problems above).
// The relations it breaks go to `notes` (warnings), when given.
Shape custom_shape(const TaskSpec& spec, const std::string& text, std::vector<std::string>* notes = nullptr);

// One line per dimension describing the derived space (or "explicit sampler" / "opted out"),
// for diagnostics and the tests.
std::string describe_random_space(const TaskSpec& spec);

}  // namespace mskb

// Owns the task model of a task file: what the reader (task_file_reader.hpp) makes of the TOML, as
// expressions with where they were written, and its evaluation at a shape: the instance's inputs
// (generate), cost, complexity and tolerance. Private to src/mskb/core; the TaskSpec of a task file
// (mskb/core/task_file.hpp) calls these through a shared, immutable Model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/expr.hpp"
#include "mskb/core/task.hpp"

namespace mskb::task_model {

// An expression with where it was written ("task.toml:14: params[1].length").
struct Field {
  Expr expr;
  std::string where;
  bool given = false;
};

enum class Dist { none, uniform, normal, int_uniform, constant };
struct Init {
  Dist dist = Dist::none;
  Field a, b;  // uniform/int_uniform: lo, hi; normal: mean, std; constant: value
};

enum class SparsePart { none, row_ptr, col_idx, values };

struct ParamModel {
  Param param;
  Field length;  // buffers (not filled by [sparse])
  Field value;   // scalars given by value
  Init init;     // inputs, and scalars drawn at random
  SparsePart sparse = SparsePart::none;
};

struct SparseModel {
  bool present = false;
  Field rows, cols, density, skewed;
  std::size_t row_ptr = 0, col_idx = 0, values = 0;  // parameter indices
};

struct Model {
  std::string file;  // as given, for run-time errors
  std::vector<std::string> dims;
  std::vector<std::string> vars;       // dims, then nnz and row_nnz when [sparse]
  std::vector<std::string> cost_vars;  // vars, then real_bytes
  std::vector<ParamModel> params;
  SparseModel sparse;
  std::map<Precision, std::pair<Field, Field>> tolerance;  // atol, rtol
  Field bytes, flops, complexity;
  bool tensor = false;
};

struct SparseSizes {
  int64_t rows = 0, cols = 0, per_row = 0, nnz = 0;
};

// Evaluation at one shape: errors (TaskFileError) name the field and the shape.
[[noreturn]] void eval_fail(const Field& f, const Shape& s, const std::string& what);
ExprValue eval(const Field& f, const std::vector<ExprValue>& env, const Shape& s);
double eval_double(const Field& f, const std::vector<ExprValue>& env, const Shape& s);
int64_t eval_int(const Field& f, const std::vector<ExprValue>& env, const Shape& s);

// The variables of lengths, values, generators and tolerances (dims, nnz, row_nnz).
std::vector<ExprValue> environment(const Model& m, const Shape& s, SparseSizes* sizes = nullptr);
// The length of buffer parameter i at a shape (its expression, or the [sparse] matrix's arrays).
int64_t buffer_length(const Model& m, std::size_t i, const std::vector<ExprValue>& env, const SparseSizes& z, const Shape& s);
// An integer parameter's values must fit its type, and an int64's must be exact in FP64 (the
// reference's values): int32 in [-2^31, 2^31), int64 within +-2^53. Floating ones: nothing to check.
void check_integer_range(const ParamModel& q, const Field& f, const ExprValue& v, const Shape& s);

// The TaskSpec functions of a task file.
void generate(const Model& m, const Shape& s, Rng& rng, Args& a);
Cost cost(const Model& m, const Shape& s, Precision p);
uint64_t complexity(const Model& m, const Shape& s);
Tolerance tolerance(const Model& m, const Shape& s, Precision p);

}  // namespace mskb::task_model

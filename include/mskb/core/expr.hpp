// Owns the arithmetic expressions of task files (mskb/core/task_file.hpp): buffer lengths, scalar
// values, tolerances, costs and complexities written over a task's shape variables, e.g.
// "M*(N+1)", "ceil_div(N, 256) * 4", "1e-5 * sqrt(K)". Parsed once (one-line errors naming the
// column), evaluated per shape. Host-only, depends on nothing else of the project.
//
// Grammar (usual precedence, `^` and `**` right-associative and above unary minus: -2^2 = -4):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '//' | '%') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary (('^' | '**') unary)?
//   primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
// Values are exact 64-bit integers while every operand is one (overflow is an error), doubles
// otherwise. `/` is exact division: an integer when it divides, a double when not ("N/2" with N odd
// is x.5, "1/1000" is 0.001); `//` is floor division; `%` the remainder (floor convention, fmod
// for doubles). Functions: min(a, b, ...), max(a, b, ...), ceil_div(a, b) (integers), log2, sqrt,
// abs, floor, ceil, round (floor/ceil/round give integers).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mskb {

// A parse or evaluation error; what() is one line naming the expression, e.g.
// "expected ')' at column 7 in 'M*(N+1'", "division by zero in 'M/(N-N)'".
struct ExprError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ExprValue {
  bool is_int = true;
  int64_t i = 0;
  double d = 0.0;
  static ExprValue integer(int64_t v) { return {true, v, 0.0}; }
  static ExprValue real(double v) { return {false, 0, v}; }
  double as_double() const { return is_int ? static_cast<double>(i) : d; }
};

class Expr {
 public:
  Expr() = default;  // the constant 0
  // Parses `text` over `variables` (the names it may use, bound by position). Throws ExprError:
  // "unknown variable 'K' at column 3 in 'M*K' (variables: M, N)".
  static Expr parse(const std::string& text, const std::vector<std::string>& variables);
  static Expr constant(double value);
  static Expr constant_int(int64_t value);

  // values[k] is the value of variables[k] given to parse. Throws ExprError on division by zero,
  // integer overflow, a function outside its domain.
  ExprValue eval(const std::vector<ExprValue>& values) const;
  double eval_double(const std::vector<ExprValue>& values) const { return eval(values).as_double(); }
  // The value as an integer; throws ExprError("... is 2.5, not an integer") otherwise.
  int64_t eval_int(const std::vector<ExprValue>& values) const;

  const std::string& text() const { return text_; }
  // Indices (into the parse-time variables) of the variables the expression reads, ascending.
  std::vector<std::size_t> used_variables() const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::string text_ = "0";
};

}  // namespace mskb

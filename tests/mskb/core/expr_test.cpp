// The task-file expression evaluator: values, precedence, integer/float arithmetic, and the
// one-line errors (golden messages).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mskb/core/expr.hpp"

namespace mskb {
namespace {

const std::vector<std::string> kVars = {"M", "N", "K"};
const std::vector<ExprValue> kValues = {ExprValue::integer(6), ExprValue::integer(4), ExprValue::integer(100)};

ExprValue value(const std::string& text) { return Expr::parse(text, kVars).eval(kValues); }
int64_t integer(const std::string& text) {
  const ExprValue v = value(text);
  EXPECT_TRUE(v.is_int) << text;
  return v.i;
}
double real(const std::string& text) {
  const ExprValue v = value(text);
  EXPECT_FALSE(v.is_int) << text;
  return v.d;
}
std::string parse_error(const std::string& text) {
  try {
    Expr::parse(text, {"M", "N"});
  } catch (const ExprError& e) {
    return e.what();
  }
  return "(no error)";
}
std::string eval_error(const std::string& text) {
  try {
    Expr::parse(text, kVars).eval_int(kValues);
  } catch (const ExprError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Expr, IntegerArithmeticAndPrecedence) {
  EXPECT_EQ(integer("1 + 2 * 3"), 7);
  EXPECT_EQ(integer("(1 + 2) * 3"), 9);
  EXPECT_EQ(integer("M*N + K"), 124);
  EXPECT_EQ(integer("M*(N+1)"), 30);
  EXPECT_EQ(integer("10 - 4 - 3"), 3);  // left-associative
  EXPECT_EQ(integer("2^3^2"), 512);     // right-associative
  EXPECT_EQ(integer("2**10"), 1024);
  EXPECT_EQ(integer("-2^2"), -4);       // power binds tighter than unary minus
  EXPECT_EQ(integer("-M + +N"), -2);
  EXPECT_EQ(integer("2 * 3 ^ 2"), 18);
  EXPECT_EQ(integer("K / 4"), 25);      // exact division of integers stays an integer
  EXPECT_EQ(integer("7 // 2"), 3);
  EXPECT_EQ(integer("-7 // 2"), -4);    // floor division
  EXPECT_EQ(integer("7 % 3"), 1);
  EXPECT_EQ(integer("-7 % 3"), 2);      // floor convention
}

TEST(Expr, Functions) {
  EXPECT_EQ(integer("min(M, N, K)"), 4);
  EXPECT_EQ(integer("max(M, N, K)"), 100);
  EXPECT_EQ(integer("ceil_div(K, 16)"), 7);
  EXPECT_EQ(integer("ceil_div(96, 16)"), 6);
  EXPECT_EQ(integer("floor(K / 8)"), 12);
  EXPECT_EQ(integer("ceil(K / 8)"), 13);
  EXPECT_EQ(integer("round(2.5)"), 3);
  EXPECT_EQ(integer("abs(N - M)"), 2);
  EXPECT_DOUBLE_EQ(real("log2(1024)"), 10.0);
  EXPECT_DOUBLE_EQ(real("sqrt(K)"), 10.0);
  EXPECT_DOUBLE_EQ(real("min(M, 2.5)"), 2.5);
}

TEST(Expr, FloatArithmetic) {
  EXPECT_DOUBLE_EQ(real("K / 8"), 12.5);  // inexact division gives a double
  EXPECT_DOUBLE_EQ(real("1/1000"), 0.001);
  EXPECT_DOUBLE_EQ(real("1e-5 * sqrt(K)"), 1e-4);
  EXPECT_DOUBLE_EQ(real("2.5e2 + .5"), 250.5);
  EXPECT_DOUBLE_EQ(real("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(real("7.5 % 2"), 1.5);
  EXPECT_DOUBLE_EQ(real("M * 1.0"), 6.0);
  EXPECT_DOUBLE_EQ(Expr::constant(0.25).eval({}).as_double(), 0.25);
  EXPECT_EQ(Expr::constant_int(7).eval({}).i, 7);
  EXPECT_EQ(Expr().eval({}).i, 0);
}

TEST(Expr, EvalIntAcceptsIntegralDoublesOnly) {
  EXPECT_EQ(Expr::parse("sqrt(K) * 3", kVars).eval_int(kValues), 30);
  EXPECT_EQ(eval_error("K / 8"), "'K / 8' is 12.5, not an integer");
}

TEST(Expr, UsedVariables) {
  EXPECT_EQ(Expr::parse("K + max(K, M) * 2", kVars).used_variables(), (std::vector<std::size_t>{0, 2}));
  EXPECT_TRUE(Expr::parse("3 * 4", kVars).used_variables().empty());
}

TEST(Expr, ParseErrorsAreOneLineWithTheColumn) {
  EXPECT_EQ(parse_error("M*(N+1"), "expected ')' at column 7 in 'M*(N+1'");
  EXPECT_EQ(parse_error("M*K"), "unknown variable 'K' at column 3 in 'M*K' (variables: M, N)");
  EXPECT_EQ(parse_error(""), "empty expression");
  EXPECT_EQ(parse_error("  "), "empty expression");
  EXPECT_EQ(parse_error("M*"), "expected a number, a variable or '(' at column 3 in 'M*'");
  EXPECT_EQ(parse_error("M N"), "unexpected 'N' at column 3 in 'M N'");
  EXPECT_EQ(parse_error("2x"), "expected an operator at column 2 in '2x'");
  EXPECT_EQ(parse_error("M $ N"), "unexpected '$' at column 3 in 'M $ N'");
  EXPECT_EQ(parse_error("foo(M)"),
            "unknown function 'foo' at column 1 in 'foo(M)' (functions: min, max, ceil_div, log2, sqrt, abs, floor, ceil, round)");
  EXPECT_EQ(parse_error("ceil_div(M)"), "ceil_div takes 2 arguments (got 1) at column 1 in 'ceil_div(M)'");
  EXPECT_EQ(parse_error("sqrt(M, N)"), "sqrt takes 1 argument (got 2) at column 1 in 'sqrt(M, N)'");
  EXPECT_EQ(parse_error("min(M)"), "min takes at least 2 arguments (got 1) at column 1 in 'min(M)'");
  EXPECT_EQ(parse_error("max(M, N"), "expected ')' at column 9 in 'max(M, N'");
  EXPECT_EQ(parse_error("99999999999999999999"), "integer literal too large at column 1 in '99999999999999999999'");
  try {
    Expr::parse("x", {});
    FAIL();
  } catch (const ExprError& e) {
    EXPECT_STREQ(e.what(), "unknown variable 'x' at column 1 in 'x' (no variables here)");
  }
}

// Found by tests/fuzz (expr): ten thousand signs or parentheses overflowed the stack of the
// recursive parser. The bounds: 1,000 characters, 64 levels of parentheses, calls and signs.
TEST(Expr, LengthAndNestingAreBounded) {
  const std::string deep64 = std::string(63, '(') + "M" + std::string(63, ')');  // 63 parentheses + the whole: 64 levels
  EXPECT_EQ(integer(deep64), 6);
  const std::string deep65 = "(" + deep64 + ")";
  EXPECT_EQ(parse_error(deep65), "parentheses, calls and signs nested more than 64 deep at column 65 in '" + deep65 + "'");
  EXPECT_EQ(integer(std::string(63, '-') + "M"), -6);
  EXPECT_NE(parse_error(std::string(64, '-') + "M").find("nested more than 64 deep at column 65"), std::string::npos);
  EXPECT_NE(parse_error(std::string(64, '+') + "M").find("nested more than 64 deep"), std::string::npos);
  EXPECT_NE(parse_error(std::string(40, '(') + "min(M, " + std::string(30, '(') + "N" + std::string(71, ')')).find("nested more than 64 deep"),
            std::string::npos);
  std::string sum = "M";
  while (sum.size() + 2 <= 1000) sum += "+M";  // 1,000 characters: a chain, not a nest
  ASSERT_EQ(sum.size(), 999u);
  EXPECT_EQ(integer(sum), 6 * 500);
  EXPECT_EQ(parse_error(sum + "+M"), "expression of 1001 characters, more than 1000: '" + sum.substr(0, 40) + "...'");
  EXPECT_EQ(parse_error(std::string(100000, '-') + "M").rfind("expression of 100001 characters, more than 1000", 0), 0u);
}

TEST(Expr, EvaluationErrors) {
  EXPECT_EQ(eval_error("M / (N - N)"), "division by zero in 'M / (N - N)'");
  EXPECT_EQ(eval_error("M % 0"), "division by zero in 'M % 0'");
  EXPECT_EQ(eval_error("ceil_div(M, 0)"), "division by zero in 'ceil_div(M, 0)'");
  EXPECT_EQ(eval_error("2^63"), "integer overflow in '2^63'");
  EXPECT_EQ(eval_error("K^K^K"), "integer overflow in 'K^K^K'");
  EXPECT_EQ(eval_error("9223372036854775807 + 1"), "integer overflow in '9223372036854775807 + 1'");
  EXPECT_EQ(eval_error("ceil_div(M, 2.0)"), "ceil_div needs integers in 'ceil_div(M, 2.0)'");
  EXPECT_EQ(eval_error("log2(M - M)"), "log2 of a value <= 0 in 'log2(M - M)'");
  EXPECT_EQ(eval_error("sqrt(-M)"), "sqrt of a negative value in 'sqrt(-M)'");
  EXPECT_EQ(integer("2^62"), int64_t{1} << 62);
}

}  // namespace
}  // namespace mskb

// mskb::Expr (task-file expressions): parse and evaluate any text over the variables M, N, K.
// Input: 4 bytes choose the variables' values (small, huge or fractional, signed), the rest is the
// expression. Parse and evaluation throw nothing but a one-line ExprError; evaluation is
// deterministic; eval_int agrees with eval; used_variables names only variables of the parse.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_support.hpp"
#include "mskb/core/expr.hpp"

namespace {

mskb::ExprValue value_of(std::uint8_t mode, std::uint8_t b) {
  const auto v = static_cast<std::int8_t>(b);
  switch (mode % 4) {
    case 0: return mskb::ExprValue::integer(v);
    case 1: return mskb::ExprValue::integer(static_cast<std::int64_t>(v) * (std::int64_t{1} << 40));
    case 2: return mskb::ExprValue::integer(v < 0 ? INT64_MIN + (v + 128) : INT64_MAX - v);
    default: return mskb::ExprValue::real(v / 7.0);
  }
}

bool same(const mskb::ExprValue& a, const mskb::ExprValue& b) {
  if (a.is_int != b.is_int) return false;
  if (a.is_int) return a.i == b.i;
  return std::memcmp(&a.d, &b.d, sizeof a.d) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const std::vector<std::string> names = {"M", "N", "K"};
  const std::vector<mskb::ExprValue> values = {value_of(data[0], data[1]), value_of(data[0] >> 2, data[2]),
                                               value_of(data[0] >> 4, data[3])};
  const std::string text = fuzz::text_of(data + 4, size - 4);
  const bool one_line_text = text.find('\n') == std::string::npos && text.find('\r') == std::string::npos;
  mskb::Expr e;
  try {
    e = mskb::Expr::parse(text, names);
  } catch (const mskb::ExprError& ex) {
    if (one_line_text) fuzz::require_one_line(ex.what(), "Expr::parse");
    return 0;
  } catch (const std::exception& ex) {
    fuzz::undocumented(ex, "Expr::parse");
  }
  FUZZ_REQUIRE(e.text() == text, "text() is not the parsed text");
  for (const auto k : e.used_variables()) FUZZ_REQUIRE(k < names.size(), "used_variables names an unknown index");

  mskb::ExprValue v;
  try {
    v = e.eval(values);
  } catch (const mskb::ExprError& ex) {
    if (one_line_text) fuzz::require_one_line(ex.what(), "Expr::eval");
    try {
      e.eval(values);
      fuzz::defect("eval threw once and not the second time");
    } catch (const mskb::ExprError&) {
    }
    return 0;
  } catch (const std::exception& ex) {
    fuzz::undocumented(ex, "Expr::eval");
  }
  try {
    FUZZ_REQUIRE(same(v, e.eval(values)), "two evaluations differ");
  } catch (const mskb::ExprError&) {
    fuzz::defect("eval succeeded once and threw the second time");
  }
  try {
    const std::int64_t i = e.eval_int(values);
    if (v.is_int) FUZZ_REQUIRE(i == v.i, "eval_int differs from eval");
    else FUZZ_REQUIRE(static_cast<double>(i) == v.d, "eval_int differs from eval");
  } catch (const mskb::ExprError& ex) {
    FUZZ_REQUIRE(!v.is_int, "eval_int refused an integer value");
    if (one_line_text) fuzz::require_one_line(ex.what(), "Expr::eval_int");
  } catch (const std::exception& ex) {
    fuzz::undocumented(ex, "Expr::eval_int");
  }
  return 0;
}

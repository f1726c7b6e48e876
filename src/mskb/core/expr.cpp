#include "mskb/core/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>

namespace mskb {

enum class Op { number, variable, negate, add, sub, mul, div, floordiv, mod, pow, call };
enum class Fn { min, max, ceil_div, log2, sqrt, abs, floor, ceil, round };

struct Expr::Node {
  Op op = Op::number;
  ExprValue value;          // number
  std::size_t var = 0;      // variable
  Fn fn = Fn::min;          // call
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

struct FnInfo {
  const char* name;
  Fn fn;
  int min_args, max_args;  // max_args < 0: any number
};
constexpr FnInfo kFunctions[] = {{"min", Fn::min, 2, -1},  {"max", Fn::max, 2, -1},    {"ceil_div", Fn::ceil_div, 2, 2},
                                 {"log2", Fn::log2, 1, 1}, {"sqrt", Fn::sqrt, 1, 1},   {"abs", Fn::abs, 1, 1},
                                 {"floor", Fn::floor, 1, 1}, {"ceil", Fn::ceil, 1, 1}, {"round", Fn::round, 1, 1}};

std::string function_list() {
  std::string s;
  for (const auto& f : kFunctions) s += std::string(s.empty() ? "" : ", ") + f.name;
  return s;
}

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& vars) : t_(text), vars_(vars) {}

  NodePtr parse() {
    if (t_.size() > kMaxChars)
      throw ExprError("expression of " + std::to_string(t_.size()) + " characters, more than " + std::to_string(kMaxChars) + ": '" +
                      t_.substr(0, 40) + "...'");
    skip();
    if (pos_ == t_.size()) throw ExprError("empty expression");
    NodePtr n = expr();
    skip();
    if (pos_ != t_.size()) fail(std::string("unexpected '") + t_[pos_] + "'");
    return n;
  }

 private:
  // Bounds on what a task file may write, so that parsing and evaluating (both recursive) never
  // exhaust the stack: an expression's length, and how deeply parentheses, calls and signs nest
  // (the whole expression counts as one level).
  static constexpr std::size_t kMaxChars = 1000;
  static constexpr int kMaxDepth = 64;
  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail("parentheses, calls and signs nested more than " + std::to_string(kMaxDepth) + " deep");
    }
    ~Nest() { --p.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  // "<what> at column N in '<text>'<after>".
  [[noreturn]] void fail(const std::string& what, const std::string& after = "") const {
    throw ExprError(what + " at column " + std::to_string(pos_ + 1) + " in '" + t_ + "'" + after);
  }
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip();
    const std::size_t n = std::char_traits<char>::length(tok);
    if (t_.compare(pos_, n, tok) != 0) return false;
    pos_ += n;
    return true;
  }
  static NodePtr binary(Op op, NodePtr a, NodePtr b) {
    auto n = std::make_shared<Expr::Node>();
    n->op = op;
    n->args = {std::move(a), std::move(b)};
    return n;
  }

  NodePtr expr() {
    const Nest nest(*this);
    NodePtr n = term();
    for (;;) {
      if (eat("+")) n = binary(Op::add, n, term());
      else if (eat("-")) n = binary(Op::sub, n, term());
      else return n;
    }
  }
  NodePtr term() {
    NodePtr n = unary();
    for (;;) {
      if (eat("*")) n = binary(Op::mul, n, unary());
      else if (eat("//")) n = binary(Op::floordiv, n, unary());
      else if (eat("/")) n = binary(Op::div, n, unary());
      else if (eat("%")) n = binary(Op::mod, n, unary());
      else return n;
    }
  }
  NodePtr unary() {
    if (eat("-")) {
      const Nest nest(*this);
      auto n = std::make_shared<Expr::Node>();
      n->op = Op::negate;
      n->args = {unary()};
      return n;
    }
    if (eat("+")) {
      const Nest nest(*this);
      return unary();
    }
    return power();
  }
  NodePtr power() {
    NodePtr base = primary();
    if (eat("**") || eat("^")) return binary(Op::pow, base, unary());
    return base;
  }
  NodePtr primary() {
    skip();
    if (pos_ == t_.size()) fail("expected a number, a variable or '('");
    const char c = t_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr n = expr();
      if (!eat(")")) fail("expected ')'");
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(std::string("unexpected '") + c + "'");
  }
  NodePtr number() {
    const std::size_t start = pos_;
    bool real = false;
    while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) ++pos_;
    if (pos_ < t_.size() && t_[pos_] == '.') {
      real = true;
      ++pos_;
      while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) ++pos_;
    }
    if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
      std::size_t q = pos_ + 1;
      if (q < t_.size() && (t_[q] == '+' || t_[q] == '-')) ++q;
      if (q < t_.size() && std::isdigit(static_cast<unsigned char>(t_[q]))) {
        real = true;
        pos_ = q;
        while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) ++pos_;
      }
    }
    const std::string lit = t_.substr(start, pos_ - start);
    if (lit == ".") {
      pos_ = start;
      fail("unexpected '.'");
    }
    if (pos_ < t_.size() && (std::isalpha(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) fail("expected an operator");
    auto n = std::make_shared<Expr::Node>();
    n->op = Op::number;
    if (real) {
      n->value = ExprValue::real(std::strtod(lit.c_str(), nullptr));
    } else {
      errno = 0;
      const long long v = std::strtoll(lit.c_str(), nullptr, 10);
      if (errno == ERANGE) {
        pos_ = start;
        fail("integer literal too large");
      }
      n->value = ExprValue::integer(v);
    }
    return n;
  }
  NodePtr name() {
    const std::size_t start = pos_;
    while (pos_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) ++pos_;
    const std::string id = t_.substr(start, pos_ - start);
    skip();
    if (pos_ < t_.size() && t_[pos_] == '(') {
      const FnInfo* f = nullptr;
      for (const auto& k : kFunctions)
        if (id == k.name) f = &k;
      if (!f) {
        pos_ = start;
        fail("unknown function '" + id + "'", " (functions: " + function_list() + ")");
      }
      ++pos_;
      auto n = std::make_shared<Expr::Node>();
      n->op = Op::call;
      n->fn = f->fn;
      n->args.push_back(expr());
      while (eat(",")) n->args.push_back(expr());
      if (!eat(")")) fail(n->args.size() < static_cast<std::size_t>(f->min_args) ? "expected ','" : "expected ')'");
      const int got = static_cast<int>(n->args.size());
      if (got < f->min_args || (f->max_args >= 0 && got > f->max_args)) {
        pos_ = start;
        const std::string want = f->max_args < 0 ? "at least " + std::to_string(f->min_args) : std::to_string(f->min_args);
        fail(id + " takes " + want + " argument" + (f->min_args == 1 ? "" : "s") + " (got " + std::to_string(got) + ")");
      }
      return n;
    }
    for (std::size_t k = 0; k < vars_.size(); ++k)
      if (vars_[k] == id) {
        auto n = std::make_shared<Expr::Node>();
        n->op = Op::variable;
        n->var = k;
        return n;
      }
    pos_ = start;
    std::string known;
    for (const auto& v : vars_) known += (known.empty() ? "" : ", ") + v;
    fail("unknown variable '" + id + "'", known.empty() ? std::string(" (no variables here)") : " (variables: " + known + ")");
  }

  const std::string& t_;
  const std::vector<std::string>& vars_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

class Evaluator {
 public:
  Evaluator(const std::string& text, const std::vector<ExprValue>& values) : text_(text), values_(values) {}

  ExprValue eval(const Expr::Node& n) const {
    switch (n.op) {
      case Op::number: return n.value;
      case Op::variable:
        if (n.var >= values_.size()) fail("no value for variable " + std::to_string(n.var));
        return values_[n.var];
      case Op::negate: {
        const ExprValue a = eval(*n.args[0]);
        if (a.is_int) {
          if (a.i == std::numeric_limits<int64_t>::min()) overflow();
          return ExprValue::integer(-a.i);
        }
        return ExprValue::real(-a.d);
      }
      case Op::call: return call(n);
      default: break;
    }
    const ExprValue a = eval(*n.args[0]), b = eval(*n.args[1]);
    const bool ints = a.is_int && b.is_int;
    int64_t r = 0;
    switch (n.op) {
      case Op::add:
        if (!ints) return ExprValue::real(a.as_double() + b.as_double());
        if (__builtin_add_overflow(a.i, b.i, &r)) overflow();
        return ExprValue::integer(r);
      case Op::sub:
        if (!ints) return ExprValue::real(a.as_double() - b.as_double());
        if (__builtin_sub_overflow(a.i, b.i, &r)) overflow();
        return ExprValue::integer(r);
      case Op::mul:
        if (!ints) return ExprValue::real(a.as_double() * b.as_double());
        if (__builtin_mul_overflow(a.i, b.i, &r)) overflow();
        return ExprValue::integer(r);
      case Op::div:
        if (b.as_double() == 0.0) fail("division by zero");
        if (ints && b.i != -1 && a.i % b.i == 0) return ExprValue::integer(a.i / b.i);
        return ExprValue::real(a.as_double() / b.as_double());
      case Op::floordiv:
        if (b.as_double() == 0.0) fail("division by zero");
        if (ints) {
          if (b.i == -1) {
            if (a.i == std::numeric_limits<int64_t>::min()) overflow();
            return ExprValue::integer(-a.i);
          }
          int64_t q = a.i / b.i;
          if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))) --q;
          return ExprValue::integer(q);
        }
        return ExprValue::real(std::floor(a.as_double() / b.as_double()));
      case Op::mod:
        if (b.as_double() == 0.0) fail("division by zero");
        if (ints) {
          if (b.i == -1) return ExprValue::integer(0);
          int64_t m = a.i % b.i;
          if (m != 0 && ((m < 0) != (b.i < 0))) m += b.i;
          return ExprValue::integer(m);
        } else {
          double m = std::fmod(a.as_double(), b.as_double());
          if (m != 0 && ((m < 0) != (b.as_double() < 0))) m += b.as_double();
          return ExprValue::real(m);
        }
      case Op::pow:
        if (ints && b.i >= 0) {
          int64_t acc = 1, base = a.i, e = b.i;
          while (e > 0) {
            if (e & 1)
              if (__builtin_mul_overflow(acc, base, &acc)) overflow();
            e >>= 1;
            if (e > 0 && __builtin_mul_overflow(base, base, &base)) overflow();
          }
          return ExprValue::integer(acc);
        }
        return finite(std::pow(a.as_double(), b.as_double()), "^");
      default: fail("bad expression node");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw ExprError(what + " in '" + text_ + "'"); }
  [[noreturn]] void overflow() const { fail("integer overflow"); }
  ExprValue finite(double v, const char* what) const {
    if (std::isnan(v)) fail(std::string(what) + " outside its domain");
    return ExprValue::real(v);
  }
  ExprValue to_int(double v, const char* what) const {
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) fail(std::string(what) + " of a value beyond 64-bit integers");
    return ExprValue::integer(static_cast<int64_t>(v));
  }

  ExprValue call(const Expr::Node& n) const {
    std::vector<ExprValue> v;
    for (const auto& a : n.args) v.push_back(eval(*a));
    switch (n.fn) {
      case Fn::min:
      case Fn::max: {
        ExprValue best = v[0];
        for (std::size_t k = 1; k < v.size(); ++k) {
          const bool better = n.fn == Fn::min ? v[k].as_double() < best.as_double() : v[k].as_double() > best.as_double();
          if (v[k].is_int && best.is_int) {
            if (n.fn == Fn::min ? v[k].i < best.i : v[k].i > best.i) best = v[k];
          } else if (better) {
            best = v[k];
          }
        }
        bool all_int = true;
        for (const auto& x : v) all_int = all_int && x.is_int;
        return all_int ? best : ExprValue::real(best.as_double());
      }
      case Fn::ceil_div: {
        if (!v[0].is_int || !v[1].is_int) fail("ceil_div needs integers");
        if (v[1].i == 0) fail("division by zero");
        const int64_t a = v[0].i, b = v[1].i;
        int64_t q = a / b;
        if (a % b != 0 && ((a < 0) == (b < 0))) ++q;
        return ExprValue::integer(q);
      }
      case Fn::log2:
        if (v[0].as_double() <= 0) fail("log2 of a value <= 0");
        return ExprValue::real(std::log2(v[0].as_double()));
      case Fn::sqrt:
        if (v[0].as_double() < 0) fail("sqrt of a negative value");
        return ExprValue::real(std::sqrt(v[0].as_double()));
      case Fn::abs:
        if (v[0].is_int) {
          if (v[0].i == std::numeric_limits<int64_t>::min()) overflow();
          return ExprValue::integer(v[0].i < 0 ? -v[0].i : v[0].i);
        }
        return ExprValue::real(std::fabs(v[0].d));
      case Fn::floor: return v[0].is_int ? v[0] : to_int(std::floor(v[0].d), "floor");
      case Fn::ceil: return v[0].is_int ? v[0] : to_int(std::ceil(v[0].d), "ceil");
      case Fn::round: return v[0].is_int ? v[0] : to_int(std::round(v[0].d), "round");
    }
    fail("bad function");
  }

  const std::string& text_;
  const std::vector<ExprValue>& values_;
};

void collect(const Expr::Node& n, std::set<std::size_t>& out) {
  if (n.op == Op::variable) out.insert(n.var);
  for (const auto& a : n.args) collect(*a, out);
}

}  // namespace

Expr Expr::parse(const std::string& text, const std::vector<std::string>& variables) {
  Expr e;
  e.text_ = text;
  e.root_ = Parser(text, variables).parse();
  return e;
}

Expr Expr::constant(double value) {
  Expr e;
  auto n = std::make_shared<Node>();
  n->value = ExprValue::real(value);
  e.root_ = n;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  e.text_ = buf;
  return e;
}

Expr Expr::constant_int(int64_t value) {
  Expr e;
  auto n = std::make_shared<Node>();
  n->value = ExprValue::integer(value);
  e.root_ = n;
  e.text_ = std::to_string(value);
  return e;
}

ExprValue Expr::eval(const std::vector<ExprValue>& values) const {
  if (!root_) return ExprValue::integer(0);
  return Evaluator(text_, values).eval(*root_);
}

int64_t Expr::eval_int(const std::vector<ExprValue>& values) const {
  const ExprValue v = eval(values);
  if (v.is_int) return v.i;
  if (std::isfinite(v.d) && v.d == std::floor(v.d) && std::fabs(v.d) < 9.2e18) return static_cast<int64_t>(v.d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v.d);
  throw ExprError("'" + text_ + "' is " + buf + ", not an integer");
}

std::vector<std::size_t> Expr::used_variables() const {
  std::set<std::size_t> s;
  if (root_) collect(*root_, s);
  return {s.begin(), s.end()};
}

}  // namespace mskb

// Reading a task file's TOML: the parts that recur (task_file_reader.hpp).
#include "task_file_reader.hpp"

#if MSKB_HAVE_TOMLPP

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"

namespace mskb::task_model {

namespace {

// The UTF-8 sequence at text[i]: its length and code point, or length 0 when it is not UTF-8.
std::size_t utf8_at(const std::string& text, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned c = b(i);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) >> 6) != 0x2) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong, beyond Unicode, surrogates
  return n;
}

// The code points toml++ 3.3's is_non_ascii_horizontal_whitespace sends to TOML_UNREACHABLE (its
// bit mask misses three of its 64 blocks; marzer/tomlplusplus issue 295, fixed after 3.3), and the
// Private Use Area stand-ins (U+E000 on, which it classifies safely) they are handed to it as.
struct Range {
  char32_t lo, hi;
};
constexpr Range kUnsafe[] = {{0xA1, 0x499}, {0x2C5E, 0x2FFF}, {0x3001, 0x3057}, {0xFB26, 0xFEFE}};
constexpr char32_t kStandIn = 0xE000;
constexpr std::size_t kShielded = (0x499 - 0xA1 + 1) + (0x2FFF - 0x2C5E + 1) + (0x3057 - 0x3001 + 1) + (0xFEFE - 0xFB26 + 1);

// cp's place among the unsafe code points, or kShielded when it is safe.
std::size_t shield_slot(char32_t cp) {
  std::size_t base = 0;
  for (const Range& r : kUnsafe) {
    if (cp >= r.lo && cp <= r.hi) return base + (cp - r.lo);
    base += r.hi - r.lo + 1;
  }
  return kShielded;
}

char32_t shielded_code_point(std::size_t slot) {
  for (const Range& r : kUnsafe) {
    if (slot <= r.hi - r.lo) return r.lo + static_cast<char32_t>(slot);
    slot -= r.hi - r.lo + 1;
  }
  return 0xFFFD;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string code_point(char32_t cp) {
  char u[16];
  std::snprintf(u, sizeof u, "U+%04X", static_cast<unsigned>(cp));
  return u;
}

}  // namespace

std::string prepare_toml_text(const std::string& text, const std::string& file) {
  enum class In { toml, comment, basic, literal, ml_basic, ml_literal };
  In in = In::toml;
  std::size_t line = 1, col = 1, i = 0;
  auto fail = [&](const std::string& why) {
    throw TaskFileError(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + why);
  };
  auto at = [&](std::size_t k, const char* s) { return text.compare(k, std::char_traits<char>::length(s), s) == 0; };
  bool escape = false;  // in a basic string, after a backslash
  if (at(0, "\xEF\xBB\xBF")) i = 3;  // a byte order mark
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      fail(std::string("byte ") + hex + " is not UTF-8 (a task file is UTF-8 text)");
    }
    const char c = text[i];
    if (cp >= kStandIn && cp < kStandIn + kShielded)
      fail("character " + code_point(cp) + " (private use) is not read in a task file");
    if (cp >= 0x80 && in == In::toml)
      fail("character " + code_point(cp) + " outside a string or a comment (keys and values are ASCII; quote text that is not)");
    std::size_t step = n;
    switch (in) {
      case In::toml:
        if (c == '#') in = In::comment;
        else if (at(i, "\"\"\"")) in = In::ml_basic, step = 3;
        else if (at(i, "'''")) in = In::ml_literal, step = 3;
        else if (c == '"') in = In::basic;
        else if (c == '\'') in = In::literal;
        break;
      case In::comment:
        if (c == '\n') in = In::toml;
        break;
      case In::basic:
        if (c == '\n') in = In::toml, escape = false;  // a basic string ends with its line (an unclosed one is toml++'s to report)
        else if (escape) escape = false;    // the escaped character (checked above like any other) does not end the string
        else if (c == '\\') escape = true;
        else if (c == '"') in = In::toml;
        break;
      case In::literal:
        if (c == '\'' || c == '\n') in = In::toml;
        break;
      case In::ml_basic:
        if (escape) {
          escape = false;
        } else if (c == '\\') {
          escape = true;  // an escape, or a line-ending backslash (its whitespace is read on as content)
        } else if (at(i, "\"\"\"")) {
          step = 3;
          while (step < 5 && i + step < text.size() && text[i + step] == '"') ++step;  // up to two quotes end the content
          in = In::toml;
        }
        break;
      case In::ml_literal:
        if (at(i, "'''")) {
          step = 3;
          while (step < 5 && i + step < text.size() && text[i + step] == '\'') ++step;
          in = In::toml;
        }
        break;
    }
    for (std::size_t k = i; k < i + step && k < text.size(); ++k) {
      if (text[k] == '\n') line += 1, col = 1;
      else if ((static_cast<unsigned char>(text[k]) >> 6) != 0x2) col += 1;
    }
    i += step;
  }
  // Shield: every code point toml++ 3.3 cannot classify becomes its stand-in.
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, k, cp);  // never 0: every byte was checked above
    if (n == 0) throw std::logic_error("prepare_toml_text: unchecked byte");
    const std::size_t slot = shield_slot(cp);
    if (slot == kShielded) out.append(text, k, n);
    else append_utf8(out, kStandIn + static_cast<char32_t>(slot));
    k += n;
  }
  return out;
}

std::string unshield_toml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, k, cp);
    if (n == 0) {  // not UTF-8 (a message's own bytes): kept as they are
      out += text[k++];
      continue;
    }
    if (cp >= kStandIn && cp < kStandIn + kShielded) append_utf8(out, shielded_code_point(cp - kStandIn));
    else out.append(text, k, n);
    k += n;
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}


// ---- reading the TOML ---------------------------------------------------------------------------

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date/time";
  }
}

std::string key_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

const std::vector<std::string> kReserved = {"nnz", "row_nnz", "real_bytes"};
const std::vector<std::string> kReferencePrecisions = {"fp64", "fp32", "tf32", "bf16", "fp16"};

Init read_init(const Reader& rd, const toml::node& n, const std::string& key, const std::vector<std::string>& vars,
               const std::string& integer_type) {
  const toml::table& t = rd.table(n, key);
  Init g;
  const std::string dist = rd.string(*rd.need(t, key, "dist", "uniform, normal, int_uniform or constant"), key + ".dist");
  auto two = [&](const char* a, const char* b) {
    rd.check_keys(t, key, {"dist", a, b});
    g.a = rd.expr(*rd.need(t, key, a, "a number or an expression"), key + "." + a, vars);
    g.b = rd.expr(*rd.need(t, key, b, "a number or an expression"), key + "." + b, vars);
  };
  if (dist == "uniform") {
    g.dist = Dist::uniform;
    two("lo", "hi");
  } else if (dist == "normal") {
    g.dist = Dist::normal;
    two("mean", "std");
  } else if (dist == "int_uniform") {
    g.dist = Dist::int_uniform;
    two("lo", "hi");
  } else if (dist == "constant") {
    g.dist = Dist::constant;
    rd.check_keys(t, key, {"dist", "value"});
    g.a = rd.expr(*rd.need(t, key, "value", "a number or an expression"), key + ".value", vars);
  } else {
    rd.fail(t.get("dist")->source(), key + ".dist", "unknown distribution '" + dist + "' (uniform, normal, int_uniform, constant)");
  }
  if (!integer_type.empty() && (g.dist == Dist::uniform || g.dist == Dist::normal))
    rd.fail(t.get("dist")->source(), key + ".dist", "an " + integer_type + " parameter takes int_uniform or constant, not " + dist);
  return g;
}

void read_param(const Reader& rd, const toml::table& t, const std::string& path, const std::vector<std::string>& vars, ParamModel& q) {
  rd.check_keys(t, path, {"name", "type", "role", "length", "init", "value"});
  const std::string name = rd.string(*rd.need(t, path, "name", "the parameter's name in the entry point"), path + ".name");
  if (!is_identifier(name)) rd.fail(t.get("name")->source(), path + ".name", "'" + name + "' is not a C identifier");
  q.param.name = name;
  const toml::node* type_node =
      rd.need(t, path, "type", "fp32, fp16, bf16, real, int32 or int64 for a buffer; int, int64, float or real for a scalar");
  const std::string type = rd.string(*type_node, path + ".type");
  const toml::node* role_node = t.get("role");
  auto unsupported = [&](const std::string& ty) {
    for (const char* no : {"fp64", "double", "int8", "uint8", "int16", "uint16", "uint32", "uint64", "fp8"})
      if (ty == no) rd.fail(type_node->source(), path + ".type", "type '" + ty + "' is not supported yet");
  };
  unsupported(type);
  if (role_node) {  // a buffer (a pointer argument)
    q.param.is_buffer = true;
    if (type == "fp32") q.param.elem = Elem::f32;
    else if (type == "fp16") q.param.elem = Elem::f16;
    else if (type == "real" || type == "bf16") q.param.elem = Elem::real;
    else if (type == "int32") q.param.elem = Elem::i32;
    else if (type == "int64") q.param.elem = Elem::i64;
    else rd.fail(type_node->source(), path + ".type", "unknown buffer type '" + type + "' (fp32, fp16, bf16, real, int32, int64)");
    const std::string role = rd.string(*role_node, path + ".role");
    if (role == "in") q.param.role = Role::in;
    else if (role == "out") q.param.role = Role::out;
    else if (role == "inout" || role == "inplace") q.param.role = Role::inplace;
    else if (role == "accumulate") q.param.role = Role::accumulate;
    else rd.fail(role_node->source(), path + ".role", "unknown role '" + role + "' (in, out, inout, accumulate)");
    if (const toml::node* v = t.get("value")) rd.fail(v->source(), path + ".value", "a buffer takes length and init, not value");
    if (const toml::node* l = t.get("length")) q.length = rd.expr(*l, path + ".length", vars);
    const bool input = q.param.role == Role::in || q.param.role == Role::inplace;
    if (const toml::node* g = t.get("init")) {
      if (!input) rd.fail(g->source(), path + ".init", "'" + name + "' is an output (role " + role + "): init is for inputs");
      q.init = read_init(rd, *g, path + ".init", vars, elem_is_integer(q.param.elem) ? to_string(q.param.elem) : "");
    }
  } else {  // a scalar passed by value
    q.param.is_buffer = false;
    if (type == "int" || type == "int32") q.param.scalar = ScalarType::i32;
    else if (type == "int64") q.param.scalar = ScalarType::i64;
    else if (type == "float" || type == "fp32") q.param.scalar = ScalarType::f32;
    else if (type == "real") q.param.scalar = ScalarType::real;
    else if (type == "bf16") rd.fail(type_node->source(), path + ".type", "a bf16 scalar is not supported yet (real is __nv_bfloat16 in the _bf16 entry point)");
    else if (type == "fp16") rd.fail(type_node->source(), path + ".type", "an fp16 scalar is not supported yet (fp16 is for buffers; pass a float)");
    else rd.fail(type_node->source(), path + ".type", "unknown scalar type '" + type + "' (int, int64, float, real; a buffer needs a role)");
    if (const toml::node* l = t.get("length")) rd.fail(l->source(), path + ".length", "a scalar has no length (a buffer needs a role)");
    const toml::node* v = t.get("value");
    const toml::node* g = t.get("init");
    if (v && g) rd.fail(g->source(), path + ".init", "give value or init, not both");
    if (!v && !g) rd.fail(t.source(), path + ".value", "missing (a scalar needs value = <expression> or init = {dist = ...})");
    if (v) q.value = rd.expr(*v, path + ".value", vars);
    if (g)
      q.init = read_init(rd, *g, path + ".init", vars,
                         q.param.scalar == ScalarType::i32 ? "int32" : q.param.scalar == ScalarType::i64 ? "int64" : "");
  }
}

}  // namespace mskb::task_model

#endif  // MSKB_HAVE_TOMLPP

// Owns reading a task file's TOML: typed access to its nodes with one-line errors that name the file,
// the line and the key ("task.toml:14: params[1].length: ..."), and the readers of the parts that
// recur (an input generator, a parameter). Private to src/mskb/core: task_file_parse.cpp reads a whole
// file with them. Empty without toml++ (MSKB_HAVE_TOMLPP 0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifndef MSKB_HAVE_TOMLPP
#define MSKB_HAVE_TOMLPP 0
#endif
#if MSKB_HAVE_TOMLPP
#define TOML_ENABLE_FORMATTERS 0
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"
#include "task_file_model.hpp"

namespace mskb::task_model {

// The text toml++ is given: `text` checked (UTF-8; no character beyond ASCII outside a string or a
// comment, as TOML's keys, values and whitespace are ASCII; no Private Use Area stand-in, below) and
// shielded. toml++ 3.3 classifies some characters it meets with a lookup that has undefined
// behaviour for 3,019 code points (U+00A1-U+0499 among them: é, µ, Greek, Cyrillic; found by
// tests/fuzz; marzer/tomlplusplus issue 295): each is handed over as a stand-in from U+E000 on,
// and unshield_toml gives back the user's text. Throws TaskFileError("FILE:LINE:COL: ...").
std::string prepare_toml_text(const std::string& text, const std::string& file);
// A string (a value, a key, a message) read from prepared text, with its stand-ins restored.
std::string unshield_toml(const std::string& text);

// A C identifier (a task's, a parameter's or a shape variable's name).
bool is_identifier(const std::string& s);
// "a string", "an integer", ... for errors.
std::string type_name(const toml::node& n);
std::string key_path(const std::string& path, std::string_view key);

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  std::string where(const toml::source_region& src, const std::string& key) const {
    return file_ + ":" + std::to_string(std::max<unsigned>(1, src.begin.line)) + ": " + key;
  }
  [[noreturn]] void fail(const toml::source_region& src, const std::string& key, const std::string& msg) const {
    throw TaskFileError(where(src, key) + ": " + msg);
  }

  // Every key of `t` must be one of `allowed`.
  void check_keys(const toml::table& t, const std::string& path, const std::vector<std::string>& allowed) const {
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string best;
      std::size_t best_d = 3;
      for (const auto& a : allowed) {
        const std::size_t d = edit_distance(key, a);
        if (d < best_d && d < key.size()) best_d = d, best = a;
      }
      fail(k.source(), key_path(path, key),
           "unknown key" + (best.empty() ? " (keys here: " + join(allowed, ", ") + ")" : " (did you mean '" + best + "'?)"));
    }
  }

  const toml::node* need(const toml::table& t, const std::string& path, const char* key, const std::string& what) const {
    const toml::node* n = t.get(key);
    if (!n) fail(t.source(), key_path(path, key), "missing (" + what + ")");
    return n;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(n.source(), key, "expected a string, got " + type_name(n));
    return unshield_toml(n.as_string()->get());
  }
  std::optional<std::string> opt_string(const toml::table& t, const std::string& path, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    return string(*n, key_path(path, key));
  }
  std::vector<std::string> strings(const toml::node& n, const std::string& key) const {
    if (!n.is_array()) fail(n.source(), key, "expected an array of strings, got " + type_name(n));
    std::vector<std::string> out;
    const toml::array& a = *n.as_array();
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(string(a[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (!n.is_table()) fail(n.source(), key, "expected a table, got " + type_name(n));
    return *n.as_table();
  }
  int64_t integer(const toml::node& n, const std::string& key) const {
    if (!n.is_integer()) fail(n.source(), key, "expected an integer, got " + type_name(n));
    return n.as_integer()->get();
  }
  double number(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (!n.is_floating_point()) fail(n.source(), key, "expected a number, got " + type_name(n));
    return n.as_floating_point()->get();
  }
  bool boolean(const toml::node& n, const std::string& key) const {
    if (!n.is_boolean()) fail(n.source(), key, "expected true or false, got " + type_name(n));
    return n.as_boolean()->get();
  }
  // A number or an expression string over `vars`.
  Field expr(const toml::node& n, const std::string& key, const std::vector<std::string>& vars) const {
    Field f;
    f.where = where(n.source(), key);
    f.given = true;
    if (n.is_integer()) {
      f.expr = Expr::constant_int(n.as_integer()->get());
    } else if (n.is_floating_point()) {
      f.expr = Expr::constant(n.as_floating_point()->get());
    } else if (n.is_boolean()) {
      f.expr = Expr::constant_int(n.as_boolean()->get() ? 1 : 0);
    } else if (n.is_string()) {
      try {
        f.expr = Expr::parse(unshield_toml(n.as_string()->get()), vars);
      } catch (const ExprError& e) {
        fail(n.source(), key, e.what());
      }
    } else {
      fail(n.source(), key, "expected a number or an expression string, got " + type_name(n));
    }
    return f;
  }
  Field opt_expr(const toml::table& t, const std::string& path, const char* key, const std::vector<std::string>& vars) const {
    const toml::node* n = t.get(key);
    return n ? expr(*n, key_path(path, key), vars) : Field{};
  }
  // A file named relative to the task file, which must exist.
  std::string file_path(const toml::node& n, const std::string& key, const std::filesystem::path& dir) const {
    const std::string rel = string(n, key);
    namespace fs = std::filesystem;
    const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : dir / rel;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(n.source(), key, "file not found: " + rel + " (looked for " + p.lexically_normal().string() + ")");
    return p.lexically_normal().string();
  }

 private:
  std::string file_;
};

// Variables a task file may not name (the reader adds them).
extern const std::vector<std::string> kReserved;
// What a reference kernel may state it computes in (reference_precision): a statement for the
// reader and the check events (reference "kernel_fp32"); the tolerance is what accounts for it.
extern const std::vector<std::string> kReferencePrecisions;

// An input generator: init = {dist = ...}. `integer_type`: the parameter's integer type ("int32",
// "int64"), empty for a floating one.
Init read_init(const Reader& rd, const toml::node& n, const std::string& key, const std::vector<std::string>& vars,
               const std::string& integer_type);
// One [[params]] table into `q` (the parameter, its length, value or init).
void read_param(const Reader& rd, const toml::table& t, const std::string& path, const std::vector<std::string>& vars, ParamModel& q);

}  // namespace mskb::task_model

#endif  // MSKB_HAVE_TOMLPP

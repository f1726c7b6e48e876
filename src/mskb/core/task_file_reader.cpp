// Reading a task file's TOML: the parts that recur (task_file_reader.hpp).
#include "task_file_reader.hpp"

#if MSKB_HAVE_TOMLPP

#include <algorithm>
#include <cctype>

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"

namespace mskb::task_model {

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

// What `mskb report` needs of a report (fields.hpp).
#include "mskb/report/fields.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "mskb/util/text.hpp"

using json = nlohmann::json;

namespace mskb {

namespace {

enum class Kind { string, number, number_or_null, object };

struct Field {
  const char* name;
  Kind kind;
  bool optional = false;  // may be absent (read with a default), but not of another type
};

// Per entry of each array: the fields the renderers read without a default, and those they read
// with one (optional) but only as the type mskb writes.
const std::vector<Field> kContenderFields = {{"task", Kind::string},          {"precision", Kind::string},
                                             {"contender", Kind::string},     {"disposition", Kind::string},
                                             {"checks_passed", Kind::number}, {"checks_total", Kind::number},
                                             {"seconds", Kind::number, true}, {"phase_seconds", Kind::object, true}};
const std::vector<Field> kPhaseFields = {{"check", Kind::number, true},
                                         {"generate", Kind::number, true},
                                         {"reference", Kind::number, true},
                                         {"timing", Kind::number, true},
                                         {"waited", Kind::number, true}};
const std::vector<Field> kSlowestGenerateFields = {{"seconds", Kind::number}, {"shape", Kind::string}};  // when present
const std::vector<Field> kResultFields = {{"task", Kind::string},
                                          {"precision", Kind::string},
                                          {"contender", Kind::string},
                                          {"sweep", Kind::string},
                                          {"shape", Kind::object},
                                          {"time_us", Kind::object},
                                          {"ratio_vs_vendor", Kind::number_or_null},
                                          {"sol_fraction", Kind::number_or_null}};
const std::vector<Field> kTimeFields = {{"median", Kind::number}};
const std::vector<Field> kScoreFields = {{"task", Kind::string},      {"precision", Kind::string},       {"contender", Kind::string},
                                         {"P", Kind::number_or_null}, {"geomean", Kind::number_or_null}, {"sweep", Kind::string, true}};
const std::vector<Field> kDeviceFields = {{"name", Kind::string, true},
                                          {"sms", Kind::number, true},
                                          {"fp32_tflops", Kind::number, true},
                                          {"bf16_tflops", Kind::number, true},
                                          {"dram_bandwidth_gbs", Kind::number, true}};

const char* kind_text(Kind k) {
  switch (k) {
    case Kind::string: return "a string";
    case Kind::number: return "a number";
    case Kind::number_or_null: return "a number";
    case Kind::object: return "an object";
  }
  return "?";
}

const char* type_text(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::discarded: return "nothing";
    default: return "a number";
  }
}

bool fits(const json& v, Kind k) {
  switch (k) {
    case Kind::string: return v.is_string();
    case Kind::number: return v.is_number();
    case Kind::number_or_null: return v.is_number() || v.is_null();
    case Kind::object: return v.is_object();
  }
  return false;
}

struct Problems {
  std::vector<std::string> items;
  std::size_t max, more = 0;
  void add(std::string s) {
    if (items.size() < max) items.push_back(std::move(s));
    else ++more;
  }
};

// What an entry is about ("dot_product fp32 baseline paper"; "" when it names nothing).
std::string about(const json& e) {
  std::string text;
  for (const char* k : {"task", "precision", "contender", "sweep"}) {
    const auto it = e.find(k);
    if (it != e.end() && it->is_string()) text += (text.empty() ? "" : " ") + printable(it->get<std::string>(), 40);
  }
  return text.empty() ? "" : " (" + text + ")";
}

// `e`'s fields, `e` being at `at` ("results[3]", "results[3].time_us") in an entry about `what`.
void check_fields(const json& e, const std::string& at, const std::string& what, const std::vector<Field>& fields, Problems& out) {
  for (const Field& f : fields) {
    const auto it = e.find(f.name);
    if (it == e.end()) {
      if (!f.optional) out.add(fmt::format("{}{}: no \"{}\"", at, what, f.name));
    } else if (!fits(*it, f.kind)) {
      out.add(fmt::format("{}.{}{}: {}, not {}", at, f.name, what, type_text(*it), kind_text(f.kind)));
    }
  }
}

void check_array(const json& run, const char* name, Problems& out,
                 void (*each)(const json&, const std::string&, const std::string&, Problems&)) {
  const auto it = run.find(name);
  if (it == run.end()) return out.add(fmt::format("no \"{}\"", name));
  if (!it->is_array()) return out.add(fmt::format("{}: {}, not an array", name, type_text(*it)));
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    if (!e.is_object()) {
      out.add(fmt::format("{}[{}]: {}, not an object", name, i, type_text(e)));
      continue;
    }
    each(e, fmt::format("{}[{}]", name, i), about(e), out);
  }
}

}  // namespace

std::vector<std::string> report_field_problems(const json& run, std::size_t max) {
  Problems out{{}, max == 0 ? 1 : max};
  if (!run.is_object()) return {"the document is " + std::string(type_text(run)) + ", not an object"};
  if (const auto d = run.find("device"); d == run.end()) out.add("no \"device\"");
  else if (!d->is_object()) out.add(fmt::format("device: {}, not an object", type_text(*d)));
  else check_fields(*d, "device", "", kDeviceFields, out);
  check_array(run, "contenders", out, [](const json& e, const std::string& at, const std::string& what, Problems& p) {
    check_fields(e, at, what, kContenderFields, p);
    if (const auto ph = e.find("phase_seconds"); ph != e.end() && ph->is_object())
      check_fields(*ph, at + ".phase_seconds", what, kPhaseFields, p);
    if (const auto s = e.find("slowest_generate"); s != e.end() && !s->is_null()) {
      if (!s->is_object()) p.add(fmt::format("{}.slowest_generate{}: {}, not an object", at, what, type_text(*s)));
      else check_fields(*s, at + ".slowest_generate", what, kSlowestGenerateFields, p);
    }
  });
  check_array(run, "results", out, [](const json& e, const std::string& at, const std::string& what, Problems& p) {
    check_fields(e, at, what, kResultFields, p);
    if (const auto t = e.find("time_us"); t != e.end() && t->is_object()) check_fields(*t, at + ".time_us", what, kTimeFields, p);
  });
  check_array(run, "scores", out, [](const json& e, const std::string& at, const std::string& what, Problems& p) {
    check_fields(e, at, what, kScoreFields, p);
  });
  if (out.more > 0) out.items.push_back(fmt::format("{} more", out.more));
  return out.items;
}

}  // namespace mskb

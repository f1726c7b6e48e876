// The cells every report renderer shares (see cells.hpp).
#include "mskb/report/cells.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

using json = nlohmann::json;

namespace mskb::report {

const json& array_of(const json& j, const char* key) {
  static const json empty = json::array();
  if (!j.is_object()) return empty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

std::string str_at(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> num_at(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

std::string shape_label(const json& shape) {
  if (!shape.is_object()) return shape.is_null() ? "" : shape.dump();
  std::vector<std::string> keys;
  if (shape.contains("_order") && shape["_order"].is_array()) {
    for (const auto& k : shape["_order"])
      if (k.is_string()) keys.push_back(k.get<std::string>());
  } else {
    for (auto it = shape.begin(); it != shape.end(); ++it)
      if (it.key() != "_order") keys.push_back(it.key());
  }
  std::string out;
  for (const auto& k : keys) {
    if (!shape.contains(k)) continue;
    const json& v = shape[k];
    out += (out.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_value(const json& v) { return csv_field(v.is_object() ? shape_label(v) : text_of(v)); }

std::string csv_number(const json& v) { return is_num(v) ? fmt::format("{:.6g}", v.get<double>()) : ""; }

std::string md_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

bool is_num(const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

std::string fixed2(const json& v) { return is_num(v) ? fmt::format("{:.2f}", v.get<double>()) : "-"; }

std::string signed2(const json& v) { return is_num(v) ? fmt::format("{:+.2f}", v.get<double>()) : "-"; }

std::string percent(const json& v) {
  if (!is_num(v)) return "-";
  const double x = v.get<double>();
  return std::fabs(x) < 0.1 && x != 0 ? fmt::format("{:.1f}%", 100 * x) : fmt::format("{:.0f}%", 100 * x);
}

json tool_of(const json& report) {
  if (!report.is_object() || !report.contains("reproduce") || !report["reproduce"].is_object()) return nullptr;
  const json& r = report["reproduce"];
  return r.contains("tool") && r["tool"].is_object() ? r["tool"] : json(nullptr);
}

namespace {

// "mskb 0.9.0 at commit abc123, CUDA 13.0" (the unknown and modified cases in words; the tool's name
// where the record has one).
std::string code_of(const json& tool) {
  const std::string commit = tool.contains("commit") && tool["commit"].is_string() ? tool["commit"].get<std::string>() : "unknown";
  std::string out = tool.contains("name") && tool["name"].is_string() ? tool["name"].get<std::string>() : "mskb";
  if (tool.contains("version") && tool["version"].is_string()) out += " " + tool["version"].get<std::string>();
  if (commit == "unknown" || commit.empty())
    out += " at an unknown commit (built without git metadata or a source stamp: these numbers cannot be tied to their code)";
  else
    out += " at commit " + commit;
  if (commit.find("+modified") != std::string::npos) out += " (the source tree differed from that commit)";
  if (tool.contains("cuda") && tool["cuda"].is_string()) out += ", CUDA " + tool["cuda"].get<std::string>();
  return out;
}

}  // namespace

std::string code_text(const json& tool) { return tool.is_object() ? code_of(tool) : "code not recorded"; }

std::string code_line(const json& tool) {
  return tool.is_object() ? "Code: " + code_of(tool) + "." : "Code: not recorded (this record names no commit).";
}

std::string provenance_line(const json& report) {
  if (const json tool = tool_of(report); tool.is_object()) return code_line(tool);
  // A merged report: the code of each input that contributed groups, in order, counted once per code.
  std::vector<std::pair<std::string, long long>> codes;
  for (const json& src : array_of(report, "sources")) {
    if (!src.is_object()) continue;
    const std::string code = src.contains("tool") && src["tool"].is_object() ? code_of(src["tool"]) : "mskb at an unrecorded commit";
    const long long groups = src.value("groups", 0LL);
    auto at = std::find_if(codes.begin(), codes.end(), [&](const auto& c) { return c.first == code; });
    if (at == codes.end()) codes.emplace_back(code, groups);
    else at->second += groups;
  }
  if (codes.size() == 1) return "Code: " + codes[0].first + " (merged by mskb merge).";
  if (codes.size() > 1) {
    std::string out = "Code: merged from reports of different code:";
    for (std::size_t k = 0; k < codes.size(); ++k)
      out += fmt::format("{} {} ({} group{})", k ? ";" : "", codes[k].first, codes[k].second, codes[k].second == 1 ? "" : "s");
    return out + ".";
  }
  return code_line(nullptr);
}

}  // namespace mskb::report

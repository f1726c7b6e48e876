// Owns the cells every report renderer shares (mskb's text, Markdown, CSV and HTML renderers and
// cudamaster's pages): reading a report's JSON safely (array_of, str_at, num_at), the shape label,
// CSV fields (RFC 4180 quoting), Markdown table cells, the number formats of the tables, and the
// "Code:" line naming the commit that made a report.
// Pure functions; nothing here knows a report's layout beyond a member's name.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mskb::report {

// A member array of `j`, by reference (json::value() would copy it), or an empty array.
const nlohmann::json& array_of(const nlohmann::json& j, const char* key);
// A member string of `j`, or "" (absent, not a string).
std::string str_at(const nlohmann::json& j, const char* key);
// A member number of `j` when it is finite.
std::optional<double> num_at(const nlohmann::json& j, const char* key);
// A JSON value as text: a string's characters, "" for null, otherwise as JSON writes it.
std::string text_of(const nlohmann::json& v);

// "N=1024,M=8" of a report's shape object, in its "_order" when it has one ("_order" itself left
// out); a shape that is not an object as JSON writes it ("" for null).
std::string shape_label(const nlohmann::json& shape);

// One CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled).
std::string csv_field(const std::string& text);
// A JSON value as a CSV field: a string as its text, a shape object as its label, null as
// nothing, a number as JSON writes it.
std::string csv_value(const nlohmann::json& v);
// A number with six significant digits; "" for anything else.
std::string csv_number(const nlohmann::json& v);

// A Markdown table cell: '|' escaped, line breaks as spaces.
std::string md_cell(const std::string& text);

// Number formats of the tables ("-" when the value is not a finite number): two decimals, a
// signed one, a percentage (one decimal below 10%, none above).
bool is_num(const nlohmann::json& v);
std::string fixed2(const nlohmann::json& v);
std::string signed2(const nlohmann::json& v);
std::string percent(const nlohmann::json& v);

// "Code: mskb 0.9.0 at commit abc123, CUDA 13.0." from a report's reproduce.tool, saying so when the
// commit is unknown (a build without git metadata or source stamp) or the tree was modified. A merged
// report (`mskb merge`) names the code of its inputs' groups (its "sources"): one line when they agree,
// each commit with its number of groups when they do not. A report without either says it names no code.
std::string provenance_line(const nlohmann::json& report);
// The same line for one tool record ({"name", "version", "commit", "cuda"}; null: not recorded), e.g. a
// cudamaster run's.
std::string code_line(const nlohmann::json& tool);
// The line's text alone ("cudamaster 0.1.0 at commit abc123, CUDA 13.0"), for a sentence.
std::string code_text(const nlohmann::json& tool);
// The reproduce.tool object of a report (null when it has none).
nlohmann::json tool_of(const nlohmann::json& report);

}  // namespace mskb::report

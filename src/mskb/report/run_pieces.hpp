// Pieces the suite report's text and Markdown renderers share (text.cpp, markdown.cpp): the
// warning about timings beside other GPU processes and the submission summary's columns.
// Private to the report library.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb::report {

// The warning about timed shapes that ran while other processes held a context on the GPU (""
// when none): a heading wrapped in `emphasis` and ended by `after_heading`, then one `bullet`
// line per shape (at most 20).
std::string shared_gpu_warning(const nlohmann::json& j, const std::string& emphasis, const char* after_heading, const char* bullet);

// The submission summary's columns (key, heading); a number of it ("-" for null, a share as a
// percentage, else two decimals); whether a key is a share; the summary's heading line.
const std::vector<std::pair<const char*, const char*>>& summary_columns();
std::string summary_cell(const nlohmann::json& row, const char* key, bool share);
bool is_share(const char* key);
std::string summary_heading(const nlohmann::json& sum);

}  // namespace mskb::report

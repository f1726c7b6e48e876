// Internal string helpers shared by the LLM sources (not installed, not public).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace cudamaster::llm::detail {

inline std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

inline std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Collapses whitespace runs (newlines included) to one space and shortens to `max_chars`, so
// server text fits in a one-line message.
inline std::string one_line(const std::string& s, std::size_t max_chars = 300) {
  std::string out;
  out.reserve(std::min(s.size(), max_chars + 3));
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace cudamaster::llm::detail

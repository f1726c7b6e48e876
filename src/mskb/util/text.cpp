#include "mskb/util/text.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mskb {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string trim(std::string_view text, std::string_view chars) {
  const std::size_t b = text.find_first_not_of(chars);
  if (b == std::string_view::npos) return "";
  const std::size_t e = text.find_last_not_of(chars);
  return std::string(text.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view text, char delimiter, bool skip_empty) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(delimiter, begin);
    if (end == std::string_view::npos) end = text.size();
    if (!skip_empty || end > begin) items.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// `text` with every byte that `keep` refuses written as \xNN; after `max_bytes` bytes of the input
// the rest is cut and "..." follows.
template <typename Keep>
std::string escape_bytes(std::string_view text, Keep keep, std::size_t max_bytes) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 3);
  for (std::size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (keep(c)) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_chars) {
  return escape_bytes(text, [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }, max_chars);
}

std::string one_line(std::string_view text) {
  return escape_bytes(text, [](unsigned char c) { return !is_control(c); }, std::string_view::npos);
}

std::string collapse_whitespace(std::string_view text, std::size_t max_bytes) {
  std::string out;
  bool space = false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || is_control(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  if (out.size() <= max_bytes) return out;
  // Cut to leave room for "...", never inside a UTF-8 sequence (continuation bytes are 10xxxxxx).
  std::size_t keep = max_bytes > 3 ? max_bytes - 3 : 0;
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80) --keep;
  out.resize(keep);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "...";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace mskb

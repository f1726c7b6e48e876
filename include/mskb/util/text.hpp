// Owns the small string helpers the host code shares: reading a whole file, trimming, splitting a
// delimited list (`--task a,b`, `CUDA_VISIBLE_DEVICES=0,1`), joining, prefix tests, escaping
// untrusted names for messages, putting any text on one line. Host-only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mskb {

// The file's bytes. Throws std::runtime_error("cannot read PATH") when it cannot be opened.
std::string read_text(const std::string& path);

// `text` without leading and trailing characters from `chars`.
std::string trim(std::string_view text, std::string_view chars = " \t\r\n");

// The items of a `delimiter`-separated list as std::getline reads them: an empty text has none, a
// trailing delimiter adds no empty item, empty items between two delimiters are kept (or dropped
// with skip_empty).
std::vector<std::string> split(std::string_view text, char delimiter, bool skip_empty = false);

// The items with `separator` between each two.
std::string join(const std::vector<std::string>& items, std::string_view separator);

bool starts_with(std::string_view text, std::string_view prefix);

// `text` safe to put in a one-line message or a report cell when it comes from an untrusted file
// (a symbol name read from a kernel's object): every byte outside printable ASCII written as
// \xNN, and cut after `max_chars` bytes of the input with "...".
std::string printable(std::string_view text, std::size_t max_chars = 200);

// `text` on one line: control characters (newlines, tabs, escape sequences' ESC) written as \xNN,
// the rest (UTF-8 included) kept. For messages that quote a user's file.
std::string one_line(std::string_view text);

// `text` as words on one line (a model's plan, a server's reply, a compiler's message in a log line):
// trimmed, each run of spaces and control characters (newlines, tabs, ESC) one space, UTF-8 kept.
// Longer than `max_bytes`, it is cut at a character boundary and ends in "..." (at most `max_bytes`
// bytes in all).
std::string collapse_whitespace(std::string_view text, std::size_t max_bytes = std::string_view::npos);

// Levenshtein distance (insertions, deletions, substitutions): for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace mskb

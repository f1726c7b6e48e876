// Owns the small string helpers the host code shares: reading a whole file, trimming, splitting a
// delimited list (`--task a,b`, `CUDA_VISIBLE_DEVICES=0,1`), joining, prefix tests. Host-only.
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

// Levenshtein distance (insertions, deletions, substitutions): for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace mskb

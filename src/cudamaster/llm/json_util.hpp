// Internal: type-checked reads from nlohmann::json that never throw. Responses come from the
// network; a field of the wrong type must become a MalformedResponse, not an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cudamaster::llm::detail {

inline const nlohmann::json* member(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

inline std::optional<std::string> get_string(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

// An integer, or a float with an integer's range (truncated); absent beyond 64-bit integers (a
// converted 1e126 would be undefined behaviour; found by tests/fuzz, cassette).
inline std::optional<std::int64_t> get_int(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
    return static_cast<std::int64_t>(d);
  }
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return v->get<std::int64_t>();
}

// A token count the budget adds up: absent or null is 0; otherwise an integer from 0 to 10^12, and
// anything else (negative, fractional beyond range, a string) std::nullopt, for the caller to call
// the reply malformed rather than bill it.
inline std::optional<std::int64_t> get_count(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || v->is_null()) return 0;
  const auto n = get_int(j, key);
  if (!n || *n < 0 || *n > 1'000'000'000'000) return std::nullopt;
  return n;
}

inline std::optional<double> get_double(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

inline std::optional<bool> get_bool(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

}  // namespace cudamaster::llm::detail

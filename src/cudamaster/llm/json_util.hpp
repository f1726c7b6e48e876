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

inline std::optional<std::int64_t> get_int(const nlohmann::json& j, const char* key) {
  const auto* v = member(j, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  if (v->is_number_float()) return static_cast<std::int64_t>(v->get<double>());
  return v->get<std::int64_t>();
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

#include "cudamaster/llm/pricing.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "text_util.hpp"

namespace cudamaster::llm {

// Defined in the generated pricing_builtin.cpp (data/pricing.json embedded at build time).
extern const char* const kBuiltinPricingJson;

double compute_cost(const Usage& usage, const ModelPrice& price) {
  const auto cached = static_cast<double>(std::min(usage.cached_input_tokens, usage.input_tokens));
  const double uncached = static_cast<double>(usage.input_tokens) - cached;
  const auto reasoning = static_cast<double>(std::min(usage.reasoning_tokens, usage.output_tokens));
  const double visible = static_cast<double>(usage.output_tokens) - reasoning;
  const double usd = uncached * price.input + cached * price.cached_input.value_or(price.input) +
                     visible * price.output + reasoning * price.reasoning.value_or(price.output);
  return usd / 1e6;
}

namespace {

Result<double> read_price(const nlohmann::json& entry, const char* field, const std::string& where) {
  const auto it = entry.find(field);
  if (it == entry.end() || !it->is_number() || it->get<double>() < 0)
    return make_error(LlmErrorKind::InvalidArgument, "pricing",
                      fmt::format("{}: '{}' must be a non-negative number", where, field));
  return it->get<double>();
}

}  // namespace

Result<PricingTable> PricingTable::parse(const std::string& json_text, const std::string& origin) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error(LlmErrorKind::InvalidArgument, "pricing", fmt::format("{}: not a JSON object", origin));
  const auto models = doc.find("models");
  if (models == doc.end() || !models->is_object())
    return make_error(LlmErrorKind::InvalidArgument, "pricing",
                      fmt::format("{}: missing object \"models\"", origin));
  PricingTable table;
  for (const auto& [key, entry] : models->items()) {
    const std::string where = fmt::format("{}: models[\"{}\"]", origin, key);
    if (!entry.is_object())
      return make_error(LlmErrorKind::InvalidArgument, "pricing", where + ": not an object");
    for (const auto& [field, value] : entry.items()) {
      (void)value;
      if (field != "input" && field != "output" && field != "cached_input" && field != "reasoning" &&
          !detail::starts_with(field, "_"))
        return make_error(LlmErrorKind::InvalidArgument, "pricing",
                          fmt::format("{}: unknown field '{}' (input, output, cached_input, reasoning)",
                                      where, field));
    }
    ModelPrice price;
    auto input = read_price(entry, "input", where);
    if (!input) return input.error();
    auto output = read_price(entry, "output", where);
    if (!output) return output.error();
    price.input = *input;
    price.output = *output;
    if (entry.contains("cached_input")) {
      auto v = read_price(entry, "cached_input", where);
      if (!v) return v.error();
      price.cached_input = *v;
    }
    if (entry.contains("reasoning")) {
      auto v = read_price(entry, "reasoning", where);
      if (!v) return v.error();
      price.reasoning = *v;
    }
    table.prices_[key] = price;
  }
  return table;
}

PricingTable PricingTable::builtin() {
  auto table = parse(kBuiltinPricingJson, "builtin data/pricing.json");
  // The build embeds a file the tests parse; a broken one fails the test suite, not users.
  return table.ok() ? std::move(table).value() : PricingTable{};
}

Result<PricingTable> PricingTable::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(LlmErrorKind::Io, "pricing", fmt::format("cannot read pricing file '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

Result<PricingTable> PricingTable::load_default(const std::optional<std::string>& override_path) {
  PricingTable table = builtin();
  std::optional<std::string> path = override_path;
  if (!path) {
    if (const char* env = std::getenv("CUDAMASTER_PRICING"); env != nullptr && *env != '\0') path = env;
  }
  if (path) {
    auto user = load_file(*path);
    if (!user) return user.error();
    table.merge(*user);
  }
  return table;
}

void PricingTable::merge(const PricingTable& other) {
  for (const auto& [key, price] : other.prices_) prices_[key] = price;
}

std::optional<ModelPrice> PricingTable::find(const std::string& provider, const std::string& model) const {
  const std::string qualified = provider + ":" + model;
  if (auto it = prices_.find(qualified); it != prices_.end()) return it->second;
  if (auto it = prices_.find(model); it != prices_.end()) return it->second;
  const ModelPrice* best = nullptr;
  std::size_t best_len = 0;
  bool best_qualified = false;
  for (const auto& [key, price] : prices_) {
    if (!detail::ends_with(key, "*")) continue;
    const std::string prefix = key.substr(0, key.size() - 1);
    const bool is_qualified = detail::starts_with(qualified, prefix) && prefix.find(':') != std::string::npos;
    const bool is_bare = !is_qualified && detail::starts_with(model, prefix);
    if (!is_qualified && !is_bare) continue;
    // Compare by the length of the model part matched, qualified first on ties.
    const std::size_t len = is_qualified ? prefix.size() - provider.size() - 1 : prefix.size();
    if (best == nullptr || len > best_len || (len == best_len && is_qualified && !best_qualified)) {
      best = &price;
      best_len = len;
      best_qualified = is_qualified;
    }
  }
  if (best != nullptr) return *best;
  return std::nullopt;
}

}  // namespace cudamaster::llm

// Owns what a call costs: a pricing table (USD per million tokens: input, cached input, output,
// reasoning) loaded from data/pricing.json (built into the binary) and optionally overridden,
// entry by entry, by a user file (--pricing FILE or CUDAMASTER_PRICING).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/types.hpp"

namespace cudamaster::llm {

struct ModelPrice {
  double input = 0;   // USD per 1M input tokens
  double output = 0;  // USD per 1M output tokens
  std::optional<double> cached_input;  // USD per 1M cached input tokens; `input` when unset
  std::optional<double> reasoning;     // USD per 1M reasoning tokens; `output` when unset
};

// USD for one call.
double compute_cost(const Usage& usage, const ModelPrice& price);

class PricingTable {
 public:
  // The table built from data/pricing.json at compile time.
  static PricingTable builtin();
  // Parses a pricing document ({"models": {"KEY": {"input":..,"output":..}, ...}}).
  static Result<PricingTable> parse(const std::string& json_text, const std::string& origin);
  static Result<PricingTable> load_file(const std::string& path);
  // builtin(), then the file named by `override_path`, or else by env CUDAMASTER_PRICING.
  static Result<PricingTable> load_default(const std::optional<std::string>& override_path);

  // Entries of `other` replace same-keyed entries of this table.
  void merge(const PricingTable& other);
  void set(const std::string& key, const ModelPrice& price) { prices_[key] = price; }

  // Keys are "provider:model" or "model"; a trailing '*' makes a prefix pattern. Lookup order:
  // exact "provider:model", exact "model", then the longest matching pattern ("provider:" ones
  // before bare ones of the same length).
  std::optional<ModelPrice> find(const std::string& provider, const std::string& model) const;
  std::size_t size() const { return prices_.size(); }

 private:
  std::map<std::string, ModelPrice> prices_;
};

}  // namespace cudamaster::llm

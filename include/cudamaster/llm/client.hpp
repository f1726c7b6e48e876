// Owns the one call everything above the LLM layer makes: LlmClient::complete(). It chains
// budget admission -> provider (optionally recording) -> pricing -> budget charge.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cudamaster/llm/budget.hpp"
#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/pricing.hpp"
#include "cudamaster/llm/provider.hpp"
#include "cudamaster/llm/types.hpp"

namespace cudamaster::llm {

struct ClientOptions {
  std::string llm;                           // "PROVIDER:MODEL", see provider_spec.hpp
  std::optional<std::string> record_path;    // --record FILE (live providers only)
  std::optional<std::string> pricing_path;   // --pricing FILE (else env CUDAMASTER_PRICING)
  std::optional<PricingTable> pricing;       // already loaded; wins over pricing_path
  std::shared_ptr<Budget> budget;            // shared by a run's conversations; null = unlimited
  ProviderOptions provider;
};

class LlmClient {
 public:
  // Fails fast: bad provider string, missing key, unreadable pricing or cassette, unwritable
  // record file, or a budget with a model that has no price.
  static Result<std::unique_ptr<LlmClient>> create(const ClientOptions& options);

  LlmClient(std::unique_ptr<Provider> provider, PricingTable pricing,
            std::shared_ptr<Budget> budget);

  // Thread-safe. BudgetExceeded without sending anything once the budget is spent.
  Result<ChatResponse> complete(const ChatRequest& request);

  const Provider& provider() const { return *provider_; }
  const PricingTable& pricing() const { return pricing_; }
  const std::shared_ptr<Budget>& budget() const { return budget_; }

 private:
  std::unique_ptr<Provider> provider_;
  PricingTable pricing_;
  std::shared_ptr<Budget> budget_;
};

}  // namespace cudamaster::llm

#include "cudamaster/llm/client.hpp"

#include <fmt/format.h>

namespace cudamaster::llm {

Result<std::unique_ptr<LlmClient>> LlmClient::create(const ClientOptions& options) {
  auto spec = parse_provider_spec(options.llm);
  if (!spec) return spec.error();

  PricingTable pricing;
  if (options.pricing) {
    pricing = *options.pricing;
  } else {
    auto loaded = PricingTable::load_default(options.pricing_path);
    if (!loaded) return loaded.error();
    pricing = std::move(loaded).value();
  }

  const std::string provider_name = to_string(spec->kind);
  // Replay prices as recorded; an exchange reply may carry its own cost (else its label's price).
  if (options.budget && options.budget->limit_usd() && spec->kind != ProviderKind::Replay && spec->kind != ProviderKind::Exchange &&
      !pricing.find(provider_name, spec->model))
    return make_error(LlmErrorKind::UnknownPrice, provider_name,
                      fmt::format("a budget is set but '{}:{}' has no price; add it to a pricing file "
                                  "(--pricing FILE or CUDAMASTER_PRICING) or run without a budget",
                                  provider_name, spec->model));

  auto provider = make_provider(*spec, options.provider);
  if (!provider) return provider.error();
  std::unique_ptr<Provider> p = std::move(provider).value();
  if (options.record_path) {
    if (spec->kind == ProviderKind::Replay)
      return make_error(LlmErrorKind::InvalidArgument, "replay", "--record needs a live provider, not replay:");
    auto recording = make_recording_provider(std::move(p), *options.record_path);
    if (!recording) return recording.error();
    p = std::move(recording).value();
  }
  return std::make_unique<LlmClient>(std::move(p), std::move(pricing), options.budget);
}

LlmClient::LlmClient(std::unique_ptr<Provider> provider, PricingTable pricing, std::shared_ptr<Budget> budget)
    : provider_(std::move(provider)), pricing_(std::move(pricing)), budget_(std::move(budget)) {}

Result<ChatResponse> LlmClient::complete(const ChatRequest& request) {
  if (budget_) {
    if (auto admitted = budget_->admit(provider_->name()); !admitted) return admitted.error();
  }
  Result<ChatResponse> result = provider_->complete(request);
  if (!result) return result;
  ChatResponse& r = result.value();
  if (auto price = pricing_.find(r.provider, r.model)) r.cost_usd = compute_cost(r.usage, *price);
  else if (r.provider != to_string(ProviderKind::Exchange)) r.cost_usd.reset();  // an exchange reply's own cost stays
  if (budget_) budget_->charge(r.cost_usd);
  return result;
}

}  // namespace cudamaster::llm

#include "cudamaster/loop/gateway.hpp"

namespace cudamaster::loop {

llm::Result<std::unique_ptr<LlmGateway>> LlmGateway::create(const llm::ClientOptions& options) {
  auto spec = llm::parse_provider_spec(options.llm);
  if (!spec) return spec.error();
  std::unique_ptr<LlmGateway> g(new LlmGateway());
  if (spec->kind != llm::ProviderKind::Replay) {
    auto client = llm::LlmClient::create(options);
    if (!client) return client.error();
    g->client_ = std::move(client).value();
    return g;
  }
  // Replay: assembled here (as LlmClient::create does) to keep a handle on the provider.
  if (options.record_path)
    return llm::make_error(llm::LlmErrorKind::InvalidArgument, "replay", "--record needs a live provider, not replay:");
  llm::PricingTable pricing;
  if (options.pricing) {
    pricing = *options.pricing;
  } else {
    auto loaded = llm::PricingTable::load_default(options.pricing_path);
    if (!loaded) return loaded.error();
    pricing = std::move(loaded).value();
  }
  auto provider = llm::make_provider(*spec, options.provider);
  if (!provider) return provider.error();
  std::unique_ptr<llm::Provider> p = std::move(provider).value();
  g->replay_ = p.get();
  g->client_ = std::make_unique<llm::LlmClient>(std::move(p), std::move(pricing), options.budget);
  return g;
}

std::unique_ptr<LlmGateway> LlmGateway::wrap(std::unique_ptr<llm::LlmClient> client, llm::Provider* replay) {
  std::unique_ptr<LlmGateway> g(new LlmGateway());
  g->client_ = std::move(client);
  g->replay_ = replay;
  return g;
}

llm::Result<llm::ChatResponse> LlmGateway::complete(const llm::ChatRequest& request) { return client_->complete(request); }

void LlmGateway::skip_recorded(const llm::ChatRequest& request) {
  if (replay_ != nullptr) (void)replay_->complete(request);
}

}  // namespace cudamaster::loop

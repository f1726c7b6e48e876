// Owns the loop's access to the LLM: one client per run (shared by every conversation, with the
// run-wide budget) and the resume rule for replayed runs. A resumed job does not send the calls
// its journal already holds; for a `replay:` cassette it still has to move the cassette past
// them, which skip_recorded() does without charging the budget.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cudamaster/llm/llm.hpp"

namespace cudamaster::loop {

class LlmGateway {
 public:
  // Same failures as LlmClient::create.
  static llm::Result<std::unique_ptr<LlmGateway>> create(const llm::ClientOptions& options);

  // An already built client (tests); `replay` is its provider when that is a replay cassette.
  static std::unique_ptr<LlmGateway> wrap(std::unique_ptr<llm::LlmClient> client, llm::Provider* replay = nullptr);

  // A live call (thread-safe).
  llm::Result<llm::ChatResponse> complete(const llm::ChatRequest& request);
  // A call the journal already answered: replay cassettes consume their next matching exchange;
  // live providers do nothing.
  void skip_recorded(const llm::ChatRequest& request);

  const std::shared_ptr<llm::Budget>& budget() const { return client_->budget(); }
  std::string provider_name() const { return client_->provider().name(); }
  std::string endpoint() const { return client_->provider().endpoint(); }
  bool replay() const { return replay_ != nullptr; }
  // exchange:DIR: calls are files in endpoint() (a call without its reply stops the job).
  bool exchange() const { return provider_name() == "exchange"; }

 private:
  LlmGateway() = default;
  std::unique_ptr<llm::LlmClient> client_;
  llm::Provider* replay_ = nullptr;  // owned by client_, set for replay: providers
};

}  // namespace cudamaster::loop

// Owns the provider interface and its factories: OpenAI Chat Completions, Anthropic Messages,
// any OpenAI-compatible server, replay from a cassette, and the recording decorator that writes
// cassettes. Providers do wire formats, HTTP and retries; cost and budget live in LlmClient.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/http.hpp"
#include "cudamaster/llm/provider_spec.hpp"
#include "cudamaster/llm/retry.hpp"
#include "cudamaster/llm/types.hpp"

namespace cudamaster::llm {

// Reads one environment variable; injectable so tests never touch the real environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();

inline constexpr const char* kDefaultOpenAIBaseUrl = "https://api.openai.com/v1";
inline constexpr const char* kDefaultAnthropicBaseUrl = "https://api.anthropic.com";
inline constexpr const char* kAnthropicVersion = "2023-06-01";

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;      // "openai", "anthropic", "openai-compatible", "replay", "exchange"
  virtual std::string model() const = 0;     // "" for replay
  virtual std::string endpoint() const = 0;  // URL, or the cassette path for replay
  // Thread-safe. Fills everything in ChatResponse except cost_usd.
  virtual Result<ChatResponse> complete(const ChatRequest& request) = 0;
};

enum class ReplayMatch { Full, SystemOnly, Task };

struct ProviderOptions {
  HttpOptions http;
  RetryPolicy retry;
  std::shared_ptr<HttpTransport> transport;  // null: libcurl
  EnvLookup env;                             // null: the process environment
  // Replay: strictly in recorded order (default), or the first unused matching exchange, for
  // runs whose concurrent conversations interleave differently from the recording.
  bool replay_allow_reorder = false;
  // Replay: what must equal the recording. Full: messages and parameters. SystemOnly: the system
  // messages, the roles of all messages and the parameters; user and assistant text may differ
  // (prompts that carry measurements - times, profiles - replay on another machine). Task: as
  // SystemOnly, plus the first line of every user message (the prompts' heading, which names the
  // task and precision), and the first unused matching exchange is served: each conversation keeps
  // its recorded order while concurrent ones interleave freely (a multi-task run with --jobs N).
  ReplayMatch replay_match = ReplayMatch::Full;
  // Exchange: how long a call polls for its reply file before it fails with AwaitingReply (0: it
  // looks once); a set flag ends the wait early (Ctrl-C). The largest reply read is
  // http.max_reply_bytes.
  std::chrono::milliseconds exchange_wait{0};
  const std::atomic<bool>* exchange_cancel = nullptr;
};

// exchange:DIR[:LABEL] (exchange.cpp, docs/agents.md "The exchange provider"): each call writes
// DIR/<name>.request.json and answers with DIR/<name>.reply.json once someone wrote it.
//
// Environment: OPENAI_API_KEY (required), OPENAI_BASE_URL, OPENAI_ORGANIZATION, OPENAI_PROJECT;
// ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL; OPENAI_COMPATIBLE_API_KEY (optional).
Result<std::unique_ptr<Provider>> make_provider(const ProviderSpec& spec,
                                                const ProviderOptions& options);

// Wraps `inner`, appending every exchange (request, response or final error) as one JSON line
// to the cassette at `path`, which is created or truncated now. Thread-safe, flushed per line.
Result<std::unique_ptr<Provider>> make_recording_provider(std::unique_ptr<Provider> inner,
                                                          const std::string& path);

}  // namespace cudamaster::llm

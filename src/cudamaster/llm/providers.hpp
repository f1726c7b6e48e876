// Internal: the pieces make_provider() assembles. A WireFormat turns ChatRequest into one API's
// JSON and that API's JSON back into ChatResponse; HttpProvider does everything in between
// (headers, retries, timing, raw capture) once for all HTTP APIs.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/llm/provider.hpp"

namespace cudamaster::llm::detail {

// dump() that never throws on invalid UTF-8 (prompts may quote compiler output): bad bytes
// become U+FFFD.
inline std::string dump_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class WireFormat {
 public:
  virtual ~WireFormat() = default;
  virtual nlohmann::json build_body(const ChatRequest& request, const std::string& model) const = 0;
  // Parses a 2xx body; fills text, reasoning_text, finish reason, usage, id, response_model.
  virtual Result<ChatResponse> parse_body(const nlohmann::json& body, const std::string& provider) const = 0;
};

std::unique_ptr<WireFormat> make_openai_format(bool official_openai);
std::unique_ptr<WireFormat> make_anthropic_format();

struct HttpProviderConfig {
  std::string name;   // provider kind name
  std::string model;
  std::string url;    // full endpoint URL
  HttpHeaders headers;  // auth and API-specific headers (Content-Type is added)
  std::unique_ptr<WireFormat> format;
  std::shared_ptr<HttpTransport> transport;
  HttpOptions http;
  RetryPolicy retry;
};

std::unique_ptr<Provider> make_http_provider(HttpProviderConfig config);

Result<std::unique_ptr<Provider>> make_replay_provider(const std::string& path, bool allow_reorder,
                                                      ReplayMatch match = ReplayMatch::Full);

// exchange:DIR[:LABEL]: requests and replies as files in DIR (exchange.cpp). Creates DIR.
Result<std::unique_ptr<Provider>> make_exchange_provider(const std::string& dir, const std::string& label,
                                                         const ProviderOptions& options);

// One cassette line for an exchange (exactly one of response / error is non-null).
nlohmann::json cassette_line(std::int64_t seq, const std::string& provider, const std::string& model,
                             const std::string& endpoint, const ChatRequest& request,
                             const ChatResponse* response, const LlmError* error);

}  // namespace cudamaster::llm::detail

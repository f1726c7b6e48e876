// Owns when and how long to wait between attempts: exponential backoff with jitter, Retry-After
// (seconds, HTTP date) and retry-after-ms, capped. The sleep function is injectable so tests
// observe the delays without waiting for them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/http.hpp"

namespace cudamaster::llm {

struct RetryPolicy {
  int max_attempts = 6;                            // 1 try + 5 retries
  std::chrono::milliseconds base_delay{1'000};     // first backoff (before jitter)
  std::chrono::milliseconds max_delay{60'000};     // cap on the computed backoff
  std::chrono::milliseconds max_retry_after{300'000};  // cap on a server's Retry-After
  double jitter = 0.5;  // backoff is drawn uniformly from [(1-jitter)*d, d]
  // How to wait; defaults to std::this_thread::sleep_for. Tests inject a recorder.
  std::function<void(std::chrono::milliseconds)> sleep;
};

// Backoff before attempt `attempt + 1` after `attempt` failed (attempt >= 1). With a
// Retry-After the server's value wins (capped); otherwise base*2^(attempt-1), capped, jittered.
// `unit_random` in [0,1) picks the jitter; pass a fixed value for deterministic tests.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        double unit_random);

// Parses "retry-after-ms" (milliseconds) or "retry-after" (delta seconds, possibly fractional,
// or an IMF-fixdate HTTP date relative to `now`). Empty when absent or unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(
    const HttpResponse& response,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Sends `request`, retrying retryable failures (transport errors, 429, 5xx, 529) per `policy`.
// Returns the first 2xx response, or the last error with `attempts` filled in; non-2xx
// responses become typed errors whose server_message is extracted from the body.
Result<HttpResponse> post_with_retries(HttpTransport& transport, const HttpRequest& request,
                                       const HttpOptions& options, const RetryPolicy& policy,
                                       const std::string& provider, int* attempts_out = nullptr);

// Turns a non-2xx response into a typed error (kind from the status, server's own message).
LlmError error_from_status(const HttpResponse& response, const std::string& provider);

// The server's own error text from an error body in the common shapes (OpenAI, Anthropic,
// FastAPI "detail", Ollama "error": "..."); otherwise the body's first line, shortened.
std::string extract_server_message(const std::string& body);

}  // namespace cudamaster::llm

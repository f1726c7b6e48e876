// Owns the LLM layer's failure vocabulary: the error kinds, the typed error value every call
// returns instead of throwing, a small Result<T> (C++17 has no std::expected), and the one
// exception type used where a caller prefers throwing (CLI boundaries).
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace cudamaster::llm {

enum class LlmErrorKind {
  InvalidArgument,     // bad provider string, option or request; fix the call, do not retry
  MissingCredentials,  // API key not in the environment
  Connection,          // DNS, refused, reset, send/receive failure (retried)
  Tls,                 // certificate or handshake problem (not retried)
  Timeout,             // connect or read timeout (retried)
  TruncatedResponse,   // connection closed before the announced body arrived (retried)
  RateLimited,         // HTTP 429 (retried, honours Retry-After)
  Overloaded,          // HTTP 529 (retried)
  ServerError,         // HTTP 5xx (retried)
  Authentication,      // HTTP 401/403
  ClientError,         // any other non-2xx status
  MalformedResponse,   // 2xx with a body that is not the expected JSON shape
  BudgetExceeded,      // the run's budget is spent; the call was not sent
  UnknownPrice,        // a budget is set but the model has no price
  ReplayMismatch,      // replay: the request differs from the recorded one
  ReplayExhausted,     // replay: no recorded exchange left
  Io,                  // cassette or pricing file could not be read or written
  Unsupported,         // feature compiled out (e.g. built without libcurl)
  ReplyTooLarge,       // the reply body exceeded HttpOptions::max_reply_bytes; reading stopped (not retried)
  AwaitingReply,       // exchange: the request file is written and has no reply yet (LlmError::pending names it)
  StaleReply,          // exchange: the reply file answers another request (its id differs)
};
inline constexpr LlmErrorKind kLastLlmErrorKind = LlmErrorKind::StaleReply;

// snake_case name used in messages and JSON ("rate_limited").
const char* to_string(LlmErrorKind kind);

// Whether the retry loop may try again after an error of this kind.
bool is_retryable(LlmErrorKind kind);

struct LlmError {
  LlmErrorKind kind = LlmErrorKind::InvalidArgument;
  std::string provider;        // "openai", "anthropic", "openai-compatible", "replay", ...
  int http_status = 0;         // 0 when no HTTP status was received
  std::string message;         // what we observed ("read timeout after 30000 ms")
  std::string server_message;  // the server's own error text, when it sent one
  int attempts = 1;            // HTTP attempts made before giving up
  std::optional<std::chrono::milliseconds> retry_after;  // parsed Retry-After, if any
  std::string pending;         // AwaitingReply: the request file that waits for its reply

  // One line: "openai: rate_limited (HTTP 429, 3 attempts): Rate limit reached ...".
  std::string describe() const;
};

LlmError make_error(LlmErrorKind kind, std::string provider, std::string message);

class LlmException : public std::runtime_error {
 public:
  explicit LlmException(LlmError error) : std::runtime_error(error.describe()), error_(std::move(error)) {}
  const LlmError& error() const noexcept { return error_; }

 private:
  LlmError error_;
};

// Either a value or an LlmError. Deliberately small: ok(), value(), error(), value_or_throw().
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}       // NOLINT: implicit by design
  Result(LlmError error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }
  T& operator*() & { return checked(); }

  const LlmError& error() const& { return std::get<1>(v_); }
  LlmError&& error() && { return std::get<1>(std::move(v_)); }

  T value_or_throw() && {
    if (!ok()) throw LlmException(std::get<1>(std::move(v_)));
    return std::get<0>(std::move(v_));
  }

 private:
  T& checked() {
    if (!ok()) throw LlmException(std::get<1>(v_));
    return std::get<0>(v_);
  }
  std::variant<T, LlmError> v_;
};

// Result<void>: success carries nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(LlmError error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const LlmError& error() const& { return *error_; }
  void value_or_throw() && {
    if (error_) throw LlmException(std::move(*error_));
  }

 private:
  std::optional<LlmError> error_;
};

}  // namespace cudamaster::llm

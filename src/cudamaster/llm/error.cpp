#include "cudamaster/llm/error.hpp"

#include <fmt/format.h>

#include "cudamaster/llm/types.hpp"
#include "text_util.hpp"

namespace cudamaster::llm {

const char* to_string(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::InvalidArgument: return "invalid_argument";
    case LlmErrorKind::MissingCredentials: return "missing_credentials";
    case LlmErrorKind::Connection: return "connection";
    case LlmErrorKind::Tls: return "tls";
    case LlmErrorKind::Timeout: return "timeout";
    case LlmErrorKind::TruncatedResponse: return "truncated_response";
    case LlmErrorKind::RateLimited: return "rate_limited";
    case LlmErrorKind::Overloaded: return "overloaded";
    case LlmErrorKind::ServerError: return "server_error";
    case LlmErrorKind::Authentication: return "authentication";
    case LlmErrorKind::ClientError: return "client_error";
    case LlmErrorKind::MalformedResponse: return "malformed_response";
    case LlmErrorKind::BudgetExceeded: return "budget_exceeded";
    case LlmErrorKind::UnknownPrice: return "unknown_price";
    case LlmErrorKind::ReplayMismatch: return "replay_mismatch";
    case LlmErrorKind::ReplayExhausted: return "replay_exhausted";
    case LlmErrorKind::Io: return "io";
    case LlmErrorKind::Unsupported: return "unsupported";
    case LlmErrorKind::ReplyTooLarge: return "reply_too_large";
    case LlmErrorKind::AwaitingReply: return "awaiting_reply";
    case LlmErrorKind::StaleReply: return "stale_reply";
  }
  return "unknown";
}

bool is_retryable(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::Connection:
    case LlmErrorKind::Timeout:
    case LlmErrorKind::TruncatedResponse:
    case LlmErrorKind::RateLimited:
    case LlmErrorKind::Overloaded:
    case LlmErrorKind::ServerError:
      return true;
    default:
      return false;
  }
}

std::string LlmError::describe() const {
  std::string where;
  if (http_status != 0) where = fmt::format("HTTP {}", http_status);
  if (attempts > 1) where += fmt::format("{}{} attempts", where.empty() ? "" : ", ", attempts);
  std::string out = fmt::format("{}: {}", provider.empty() ? "llm" : provider, to_string(kind));
  if (!where.empty()) out += fmt::format(" ({})", where);
  const std::string msg = detail::one_line(message);
  const std::string server = detail::one_line(server_message);
  if (!msg.empty()) out += ": " + msg;
  if (!server.empty()) out += (msg.empty() ? ": " : " - server says: ") + server;
  return out;
}

LlmError make_error(LlmErrorKind kind, std::string provider, std::string message) {
  LlmError e;
  e.kind = kind;
  e.provider = std::move(provider);
  e.message = std::move(message);
  return e;
}

const char* to_string(Role role) {
  switch (role) {
    case Role::System: return "system";
    case Role::User: return "user";
    case Role::Assistant: return "assistant";
  }
  return "user";
}

const char* to_string(FinishReason reason) {
  switch (reason) {
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::ContentFilter: return "content_filter";
    case FinishReason::ToolUse: return "tool_use";
    case FinishReason::Other: return "other";
  }
  return "other";
}

}  // namespace cudamaster::llm

// Owns the provider-neutral conversation model: messages and parameters going in, text, finish
// reason, token usage, cost and latency coming out. Providers translate to and from their wire
// formats; everything above the provider layer sees only these types.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudamaster::llm {

enum class Role { System, User, Assistant };
const char* to_string(Role role);

struct Message {
  Role role = Role::User;
  std::string content;
};

struct ChatParams {
  // Upper bound on generated tokens (including reasoning tokens for reasoning models).
  int max_tokens = 4096;
  std::optional<double> temperature;  // ignored (not sent) for OpenAI reasoning models
  std::optional<double> top_p;        // ignored (not sent) for OpenAI reasoning models
  // OpenAI reasoning models: "minimal" | "low" | "medium" | "high"; "medium" when unset.
  // Sent to openai-compatible servers only when set.
  std::optional<std::string> reasoning_effort;
  // Anthropic extended thinking: budget in tokens (must be < max_tokens); no temperature then.
  std::optional<int> thinking_budget_tokens;
  std::vector<std::string> stop;
  std::optional<std::int64_t> seed;   // OpenAI-style servers only
};

// What a call belongs to. Only the exchange provider reads it (its files' names and the request
// file's "context"); it is not part of the request's JSON form, so replay never compares it.
struct CallContext {
  std::string name;  // stable within the caller's run ("run1-spmv_csr-fp32-step0007-coder"); "" = from the request
  std::vector<std::pair<std::string, std::string>> fields;  // run, task, precision, round, agent, attempt, step
};

struct ChatRequest {
  std::vector<Message> messages;  // system messages anywhere; Anthropic gets them joined
  ChatParams params;
  CallContext context = {};
};

enum class FinishReason { Stop, Length, ContentFilter, ToolUse, Other };
const char* to_string(FinishReason reason);

struct Usage {
  std::int64_t input_tokens = 0;         // all prompt tokens, cached ones included
  std::int64_t cached_input_tokens = 0;  // the part of input_tokens served from a prompt cache
  std::int64_t output_tokens = 0;        // all generated tokens as billed, reasoning included
  std::int64_t reasoning_tokens = 0;     // the part of output_tokens spent on reasoning
  bool reasoning_reported = false;       // whether the provider reported reasoning_tokens
};

struct ChatResponse {
  std::string provider;        // provider kind that answered ("openai", "replay" keeps the recorded one)
  std::string model;           // model as requested
  std::string response_model;  // model as reported by the server (may carry a date suffix)
  std::string id;              // server's response id
  std::string text;            // the assistant's visible reply
  std::string reasoning_text;  // visible reasoning (Anthropic thinking, reasoning_content), if any
  FinishReason finish_reason = FinishReason::Other;
  std::string finish_reason_raw;  // the server's own word ("stop", "end_turn", ...)
  Usage usage;
  std::optional<double> cost_usd;     // empty when the model has no price
  std::chrono::milliseconds latency{0};  // the successful attempt's round trip
  std::chrono::milliseconds elapsed{0};  // the whole call: attempts, backoff, parsing
  int attempts = 1;
  std::string endpoint;       // URL the request went to ("" for replay)
  std::string raw_request;    // request body exactly as sent (never contains keys)
  std::string raw_response;   // response body exactly as received
  bool replayed = false;
};

}  // namespace cudamaster::llm

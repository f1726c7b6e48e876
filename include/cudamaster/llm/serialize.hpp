// Owns the JSON forms of the LLM types: cassette lines (record/replay), `--json` output, and
// later the run store. Readers validate and return typed errors; they never throw.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/types.hpp"

namespace cudamaster::llm {

nlohmann::json to_json(const ChatRequest& request);
nlohmann::json to_json(const Usage& usage);
nlohmann::json to_json(const ChatResponse& response, bool include_raw = true);
nlohmann::json to_json(const LlmError& error);

Result<ChatRequest> chat_request_from_json(const nlohmann::json& j);
Result<Usage> usage_from_json(const nlohmann::json& j);
Result<ChatResponse> chat_response_from_json(const nlohmann::json& j);
// Empty when `j` is not a serialized LlmError (missing or unknown 'kind').
std::optional<LlmError> llm_error_from_json(const nlohmann::json& j);

FinishReason finish_reason_from_string(const std::string& s);  // our own names (to_string)
Result<Role> role_from_string(const std::string& s);
Result<LlmErrorKind> error_kind_from_string(const std::string& s);

// Where two JSON values first differ, as "messages[1].content: recorded \"a\" vs got \"b\""
// (values shortened); "" when equal.
std::string first_difference(const nlohmann::json& recorded, const nlohmann::json& got);

}  // namespace cudamaster::llm

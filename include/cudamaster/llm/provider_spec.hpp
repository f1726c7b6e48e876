// Owns the `--llm PROVIDER:MODEL` grammar:
//   openai:MODEL | anthropic:MODEL | openai-compatible:URL:MODEL | replay:FILE | exchange:DIR[:LABEL]
// URL contains ':' itself (scheme, port) and local model tags may too ("llama3.1:8b"), so the
// URL is read as a URL (scheme://host[:port][/path]) and everything after the next ':' is the
// model. For models without ':' this equals splitting on the last ':'. exchange: DIR ends at the
// first ':' (a folder name with ':' cannot be used); the label, recorded as the model, may hold ':'.
#pragma once

#include <string>

#include "cudamaster/llm/error.hpp"

namespace cudamaster::llm {

enum class ProviderKind { OpenAI, Anthropic, OpenAICompatible, Replay, Exchange };
// "openai", "anthropic", "openai-compatible", "replay", "exchange"
const char* to_string(ProviderKind kind);

struct ProviderSpec {
  ProviderKind kind = ProviderKind::OpenAI;
  std::string model;     // empty for replay; exchange: the label ("" when none was given)
  std::string base_url;  // openai-compatible only (as given, trailing '/' removed)
  std::string path;      // replay: the cassette file; exchange: the folder of request and reply files
  std::string text;      // the original string, for messages
};

Result<ProviderSpec> parse_provider_spec(const std::string& text);

// OpenAI reasoning models (o1/o3/o4... and the gpt-5 family except gpt-5-chat*) take
// max_completion_tokens and reasoning_effort and reject temperature.
bool is_openai_reasoning_model(const std::string& model);

}  // namespace cudamaster::llm

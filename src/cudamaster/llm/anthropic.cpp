// Anthropic Messages API (https://docs.anthropic.com/en/api/messages): system prompt as a
// top-level field, content as typed blocks, stop_reason instead of finish_reason, and optional
// extended thinking (which forbids temperature/top_p).
#include <fmt/format.h>

#include "json_util.hpp"
#include "providers.hpp"
#include "text_util.hpp"

namespace cudamaster::llm::detail {
namespace {

using nlohmann::json;

FinishReason finish_from_anthropic(const std::string& s) {
  if (s == "end_turn" || s == "stop_sequence") return FinishReason::Stop;
  if (s == "max_tokens") return FinishReason::Length;
  if (s == "tool_use") return FinishReason::ToolUse;
  if (s == "refusal") return FinishReason::ContentFilter;
  return FinishReason::Other;
}

class AnthropicFormat final : public WireFormat {
 public:
  json build_body(const ChatRequest& request, const std::string& model) const override {
    const ChatParams& p = request.params;
    std::string system;
    json messages = json::array();
    for (const auto& m : request.messages) {
      if (m.role == Role::System) {
        if (!system.empty()) system += "\n\n";
        system += m.content;
        continue;
      }
      messages.push_back({{"role", to_string(m.role)}, {"content", m.content}});
    }
    json body = {{"model", model}, {"max_tokens", p.max_tokens}, {"messages", std::move(messages)}};
    if (!system.empty()) body["system"] = system;
    if (p.thinking_budget_tokens) {
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *p.thinking_budget_tokens}};
    } else {
      if (p.temperature) body["temperature"] = *p.temperature;
      if (p.top_p) body["top_p"] = *p.top_p;
    }
    if (!p.stop.empty()) body["stop_sequences"] = p.stop;
    return body;
  }

  Result<ChatResponse> parse_body(const json& body, const std::string& provider) const override {
    auto malformed = [&](const std::string& why) {
      LlmError e = make_error(LlmErrorKind::MalformedResponse, provider, why);
      if (member(body, "error") != nullptr) e.server_message = extract_server_message(body.dump());
      return e;
    };
    if (!body.is_object()) return malformed("response is not a JSON object");
    if (get_string(body, "type").value_or("message") == "error") return malformed("error object in a 2xx response");
    const json* content = member(body, "content");
    if (content == nullptr || !content->is_array()) return malformed("response has no 'content' array");
    ChatResponse r;
    for (const auto& block : *content) {
      const std::string type = get_string(block, "type").value_or("");
      if (type == "text") {
        auto text = get_string(block, "text");
        if (!text) return malformed("text block without a string 'text'");
        r.text += *text;
      } else if (type == "thinking") {
        r.reasoning_text += get_string(block, "thinking").value_or("");
      }
    }
    r.finish_reason_raw = get_string(body, "stop_reason").value_or("");
    r.finish_reason = finish_from_anthropic(r.finish_reason_raw);
    r.id = get_string(body, "id").value_or("");
    r.response_model = get_string(body, "model").value_or("");
    if (const json* usage = member(body, "usage"); usage != nullptr && usage->is_object()) {
      const auto cache_read = get_count(*usage, "cache_read_input_tokens"), cache_write = get_count(*usage, "cache_creation_input_tokens");
      const auto input = get_count(*usage, "input_tokens"), output = get_count(*usage, "output_tokens");
      if (!cache_read || !cache_write || !input || !output) return malformed("usage: a token count is not a count from 0 to 10^12");
      // Anthropic counts cached tokens outside input_tokens; we count all prompt tokens.
      r.usage.input_tokens = *input + *cache_read + *cache_write;
      r.usage.cached_input_tokens = *cache_read;
      r.usage.output_tokens = *output;
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<WireFormat> make_anthropic_format() { return std::make_unique<AnthropicFormat>(); }

}  // namespace cudamaster::llm::detail

// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat), also spoken by
// vLLM, SGLang, llama.cpp server and Ollama. Reasoning models differ: max_completion_tokens
// instead of max_tokens, reasoning_effort, no sampling parameters, "developer" for "system".
#include <fmt/format.h>

#include "json_util.hpp"
#include "providers.hpp"
#include "text_util.hpp"

namespace cudamaster::llm::detail {
namespace {

using nlohmann::json;

FinishReason finish_from_openai(const std::string& s) {
  if (s == "stop") return FinishReason::Stop;
  if (s == "length") return FinishReason::Length;
  if (s == "content_filter") return FinishReason::ContentFilter;
  if (s == "tool_calls" || s == "function_call") return FinishReason::ToolUse;
  return FinishReason::Other;
}

std::string model_basename(const std::string& model) {
  const std::size_t slash = model.rfind('/');
  return slash == std::string::npos ? model : model.substr(slash + 1);
}

class OpenAIFormat final : public WireFormat {
 public:
  explicit OpenAIFormat(bool official) : official_(official) {}

  json build_body(const ChatRequest& request, const std::string& model) const override {
    // Proxies (LiteLLM, OpenRouter) name OpenAI models "openai/o3": judge the last segment.
    const bool reasoning = is_openai_reasoning_model(official_ ? model : model_basename(model));
    const ChatParams& p = request.params;
    json messages = json::array();
    for (const auto& m : request.messages) {
      const char* role = to_string(m.role);
      if (m.role == Role::System && reasoning && official_) role = "developer";
      messages.push_back({{"role", role}, {"content", m.content}});
    }
    json body = {{"model", model}, {"messages", std::move(messages)}};
    if (reasoning) {
      body["max_completion_tokens"] = p.max_tokens;
      body["reasoning_effort"] = p.reasoning_effort.value_or("medium");
    } else {
      body["max_tokens"] = p.max_tokens;
      if (p.temperature) body["temperature"] = *p.temperature;
      if (p.top_p) body["top_p"] = *p.top_p;
      // Official non-reasoning models reject reasoning_effort; local servers may use it.
      if (p.reasoning_effort && !official_) body["reasoning_effort"] = *p.reasoning_effort;
    }
    if (!p.stop.empty()) body["stop"] = p.stop;
    if (p.seed) body["seed"] = *p.seed;
    return body;
  }

  Result<ChatResponse> parse_body(const json& body, const std::string& provider) const override {
    auto malformed = [&](const std::string& why) {
      LlmError e = make_error(LlmErrorKind::MalformedResponse, provider, why);
      if (member(body, "error") != nullptr) e.server_message = extract_server_message(body.dump());
      return e;
    };
    if (!body.is_object()) return malformed("response is not a JSON object");
    const json* choices = member(body, "choices");
    if (choices == nullptr || !choices->is_array()) return malformed("response has no 'choices' array");
    if (choices->empty()) return malformed("response has an empty 'choices' list");
    const json& choice = (*choices)[0];
    const json* message = member(choice, "message");
    if (message == nullptr || !message->is_object()) return malformed("choices[0] has no 'message' object");
    const json* content = member(*message, "content");
    if (content != nullptr && !content->is_string() && !content->is_null())
      return malformed("choices[0].message.content is neither a string nor null");

    ChatResponse r;
    if (content != nullptr && content->is_string()) r.text = content->get<std::string>();
    if (auto reasoning = get_string(*message, "reasoning_content")) r.reasoning_text = *reasoning;
    else if (auto alt = get_string(*message, "reasoning")) r.reasoning_text = *alt;
    r.finish_reason_raw = get_string(choice, "finish_reason").value_or("");
    r.finish_reason = finish_from_openai(r.finish_reason_raw);
    if (auto refusal = get_string(*message, "refusal"); refusal && r.text.empty()) {
      r.text = *refusal;
      r.finish_reason = FinishReason::ContentFilter;
    }
    r.id = get_string(body, "id").value_or("");
    r.response_model = get_string(body, "model").value_or("");
    if (const json* usage = member(body, "usage"); usage != nullptr && usage->is_object()) {
      const auto input = get_count(*usage, "prompt_tokens"), output = get_count(*usage, "completion_tokens");
      if (!input || !output) return malformed("usage: prompt_tokens or completion_tokens is not a count from 0 to 10^12");
      r.usage.input_tokens = *input;
      r.usage.output_tokens = *output;
      if (const json* d = member(*usage, "completion_tokens_details"); d != nullptr) {
        if (const json* reasoning = member(*d, "reasoning_tokens"); reasoning != nullptr && !reasoning->is_null()) {
          const auto v = get_count(*d, "reasoning_tokens");
          if (!v) return malformed("usage: reasoning_tokens is not a count from 0 to 10^12");
          r.usage.reasoning_tokens = *v;
          r.usage.reasoning_reported = true;
        }
      }
      if (const json* d = member(*usage, "prompt_tokens_details"); d != nullptr) {
        const auto v = get_count(*d, "cached_tokens");
        if (!v) return malformed("usage: cached_tokens is not a count from 0 to 10^12");
        r.usage.cached_input_tokens = *v;
      }
    }
    return r;
  }

 private:
  bool official_;
};

}  // namespace

std::unique_ptr<WireFormat> make_openai_format(bool official_openai) {
  return std::make_unique<OpenAIFormat>(official_openai);
}

}  // namespace cudamaster::llm::detail

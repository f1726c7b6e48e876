#include "cudamaster/llm/provider.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "providers.hpp"
#include "text_util.hpp"

namespace cudamaster::llm {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

namespace {

std::optional<std::string> non_empty(const EnvLookup& env, const char* name) {
  auto v = env(name);
  if (v) *v = detail::trim(*v);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

std::string strip_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// OpenAI convention: the base URL includes /v1 ("https://api.openai.com/v1", "http://h:8000/v1").
std::string chat_completions_url(const std::string& base) {
  const std::string b = strip_slashes(base);
  if (detail::ends_with(b, "/chat/completions")) return b;
  return b + "/chat/completions";
}

// Anthropic convention: the base URL excludes /v1 ("https://api.anthropic.com"); accept it too.
std::string messages_url(const std::string& base) {
  const std::string b = strip_slashes(base);
  if (detail::ends_with(b, "/v1/messages")) return b;
  if (detail::ends_with(b, "/v1")) return b + "/messages";
  return b + "/v1/messages";
}

}  // namespace

Result<std::unique_ptr<Provider>> make_provider(const ProviderSpec& spec, const ProviderOptions& options) {
  const EnvLookup env = options.env ? options.env : process_env();
  detail::HttpProviderConfig c;
  c.name = to_string(spec.kind);
  c.model = spec.model;
  c.transport = options.transport ? options.transport : make_curl_transport();
  c.http = options.http;
  c.retry = options.retry;
  switch (spec.kind) {
    case ProviderKind::OpenAI: {
      auto key = non_empty(env, "OPENAI_API_KEY");
      if (!key)
        return make_error(LlmErrorKind::MissingCredentials, c.name,
                          "OPENAI_API_KEY is not set (export it, or use openai-compatible:URL:MODEL "
                          "for a server without keys)");
      c.url = chat_completions_url(non_empty(env, "OPENAI_BASE_URL").value_or(kDefaultOpenAIBaseUrl));
      c.headers.emplace_back("Authorization", "Bearer " + *key);
      if (auto org = non_empty(env, "OPENAI_ORGANIZATION")) c.headers.emplace_back("OpenAI-Organization", *org);
      if (auto project = non_empty(env, "OPENAI_PROJECT")) c.headers.emplace_back("OpenAI-Project", *project);
      c.format = detail::make_openai_format(/*official_openai=*/true);
      break;
    }
    case ProviderKind::Anthropic: {
      auto key = non_empty(env, "ANTHROPIC_API_KEY");
      if (!key) return make_error(LlmErrorKind::MissingCredentials, c.name, "ANTHROPIC_API_KEY is not set");
      c.url = messages_url(non_empty(env, "ANTHROPIC_BASE_URL").value_or(kDefaultAnthropicBaseUrl));
      c.headers.emplace_back("x-api-key", *key);
      c.headers.emplace_back("anthropic-version", kAnthropicVersion);
      c.format = detail::make_anthropic_format();
      break;
    }
    case ProviderKind::OpenAICompatible: {
      c.url = chat_completions_url(spec.base_url);
      if (auto key = non_empty(env, "OPENAI_COMPATIBLE_API_KEY")) c.headers.emplace_back("Authorization", "Bearer " + *key);
      c.format = detail::make_openai_format(/*official_openai=*/false);
      break;
    }
    case ProviderKind::Replay:
      return detail::make_replay_provider(spec.path, options.replay_allow_reorder, options.replay_match);
    case ProviderKind::Exchange:
      return detail::make_exchange_provider(spec.path, spec.model, options);
  }
  return detail::make_http_provider(std::move(c));
}

}  // namespace cudamaster::llm

#include "cudamaster/llm/provider_spec.hpp"

#include <cctype>

#include <fmt/format.h>

#include "text_util.hpp"

namespace cudamaster::llm {

const char* to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::OpenAI: return "openai";
    case ProviderKind::Anthropic: return "anthropic";
    case ProviderKind::OpenAICompatible: return "openai-compatible";
    case ProviderKind::Replay: return "replay";
    case ProviderKind::Exchange: return "exchange";
  }
  return "openai";
}

namespace {

LlmError bad(const std::string& text, const std::string& why) {
  return make_error(LlmErrorKind::InvalidArgument, "llm",
                    fmt::format("bad --llm '{}': {} (expected openai:MODEL, anthropic:MODEL, "
                                "openai-compatible:URL:MODEL, replay:FILE or exchange:DIR[:LABEL])",
                                text, why));
}

// Splits "URL:MODEL" where URL = scheme://authority[/path]. Returns the index of the ':' that
// separates URL from MODEL, or npos.
std::size_t url_model_separator(const std::string& rest) {
  const std::size_t scheme_end = rest.find("://");
  if (scheme_end == std::string::npos) return std::string::npos;
  std::size_t i = scheme_end + 3;
  // Host: bracketed IPv6 literal or up to ':' / '/'.
  if (i < rest.size() && rest[i] == '[') {
    const std::size_t close = rest.find(']', i);
    if (close == std::string::npos) return std::string::npos;
    i = close + 1;
  } else {
    while (i < rest.size() && rest[i] != ':' && rest[i] != '/') ++i;
  }
  // Optional port: ':' digits followed by ':' or '/' (a ':' followed by anything else starts
  // the model, e.g. "http://host:llama3").
  if (i < rest.size() && rest[i] == ':') {
    std::size_t j = i + 1;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j;
    if (j > i + 1 && j < rest.size() && (rest[j] == ':' || rest[j] == '/')) i = j;
    else if (j > i + 1 && j == rest.size()) return std::string::npos;  // "http://host:8000", no model
  }
  // Path: up to the next ':'.
  if (i < rest.size() && rest[i] == '/') {
    while (i < rest.size() && rest[i] != ':') ++i;
  }
  if (i < rest.size() && rest[i] == ':') return i;
  return std::string::npos;
}

}  // namespace

Result<ProviderSpec> parse_provider_spec(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return bad(text, "no ':' after the provider");
  const std::string provider = text.substr(0, colon);
  const std::string rest = text.substr(colon + 1);
  ProviderSpec spec;
  spec.text = text;
  if (provider == "openai" || provider == "anthropic") {
    spec.kind = provider == "openai" ? ProviderKind::OpenAI : ProviderKind::Anthropic;
    spec.model = detail::trim(rest);
    if (spec.model.empty()) return bad(text, "empty model");
    return spec;
  }
  if (provider == "openai-compatible") {
    spec.kind = ProviderKind::OpenAICompatible;
    const std::size_t sep = url_model_separator(rest);
    if (sep == std::string::npos) return bad(text, "expected URL:MODEL with an http(s):// URL");
    spec.base_url = rest.substr(0, sep);
    spec.model = detail::trim(rest.substr(sep + 1));
    if (!detail::starts_with(spec.base_url, "http://") && !detail::starts_with(spec.base_url, "https://"))
      return bad(text, "URL must start with http:// or https://");
    while (!spec.base_url.empty() && spec.base_url.back() == '/') spec.base_url.pop_back();
    if (spec.model.empty()) return bad(text, "empty model");
    return spec;
  }
  if (provider == "replay") {
    spec.kind = ProviderKind::Replay;
    spec.path = rest;
    if (spec.path.empty()) return bad(text, "empty cassette path");
    return spec;
  }
  if (provider == "exchange") {
    spec.kind = ProviderKind::Exchange;
    const std::size_t sep = rest.find(':');
    spec.path = rest.substr(0, sep);
    if (sep != std::string::npos) spec.model = detail::trim(rest.substr(sep + 1));
    if (spec.path.empty()) return bad(text, "empty exchange folder");
    return spec;
  }
  return bad(text, fmt::format("unknown provider '{}'", provider));
}

bool is_openai_reasoning_model(const std::string& model_in) {
  // Fine-tunes look like "ft:o4-mini-2025-04-16:org::id".
  std::string model = detail::to_lower(model_in);
  if (detail::starts_with(model, "ft:")) model = model.substr(3);
  if (model.size() >= 2 && model[0] == 'o' && std::isdigit(static_cast<unsigned char>(model[1])))
    return true;
  if (detail::starts_with(model, "gpt-5")) return !detail::starts_with(model, "gpt-5-chat");
  return false;
}

}  // namespace cudamaster::llm

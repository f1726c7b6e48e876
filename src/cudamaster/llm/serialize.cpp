#include "cudamaster/llm/serialize.hpp"

#include <fmt/format.h>

#include "json_util.hpp"
#include "text_util.hpp"

namespace cudamaster::llm {

using nlohmann::json;

namespace {

LlmError bad(const std::string& what) {
  return make_error(LlmErrorKind::MalformedResponse, "llm", what);
}

}  // namespace

json to_json(const ChatRequest& request) {
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", to_string(m.role)}, {"content", m.content}});
  const ChatParams& p = request.params;
  json params = {{"max_tokens", p.max_tokens}};
  if (p.temperature) params["temperature"] = *p.temperature;
  if (p.top_p) params["top_p"] = *p.top_p;
  if (p.reasoning_effort) params["reasoning_effort"] = *p.reasoning_effort;
  if (p.thinking_budget_tokens) params["thinking_budget_tokens"] = *p.thinking_budget_tokens;
  if (!p.stop.empty()) params["stop"] = p.stop;
  if (p.seed) params["seed"] = *p.seed;
  return {{"messages", std::move(messages)}, {"params", std::move(params)}};
}

json to_json(const Usage& usage) {
  return {{"input_tokens", usage.input_tokens},
          {"cached_input_tokens", usage.cached_input_tokens},
          {"output_tokens", usage.output_tokens},
          {"reasoning_tokens", usage.reasoning_reported ? json(usage.reasoning_tokens) : json(nullptr)}};
}

json to_json(const ChatResponse& r, bool include_raw) {
  json j = {{"provider", r.provider},
            {"model", r.model},
            {"response_model", r.response_model},
            {"id", r.id},
            {"text", r.text},
            {"reasoning_text", r.reasoning_text},
            {"finish_reason", to_string(r.finish_reason)},
            {"finish_reason_raw", r.finish_reason_raw},
            {"usage", to_json(r.usage)},
            {"cost_usd", r.cost_usd ? json(*r.cost_usd) : json(nullptr)},
            {"latency_ms", r.latency.count()},
            {"elapsed_ms", r.elapsed.count()},
            {"attempts", r.attempts},
            {"endpoint", r.endpoint},
            {"replayed", r.replayed}};
  if (include_raw) {
    j["raw_request"] = r.raw_request;
    j["raw_response"] = r.raw_response;
  }
  return j;
}

json to_json(const LlmError& e) {
  json j = {{"kind", to_string(e.kind)},
          {"provider", e.provider},
          {"http_status", e.http_status},
          {"message", e.message},
          {"server_message", e.server_message},
          {"attempts", e.attempts},
          {"retry_after_ms", e.retry_after ? json(e.retry_after->count()) : json(nullptr)},
          {"description", e.describe()}};
  if (!e.pending.empty()) j["pending"] = e.pending;
  return j;
}

Result<Role> role_from_string(const std::string& s) {
  if (s == "system") return Role::System;
  if (s == "user") return Role::User;
  if (s == "assistant") return Role::Assistant;
  return bad(fmt::format("unknown role '{}'", s));
}

FinishReason finish_reason_from_string(const std::string& s) {
  for (auto r : {FinishReason::Stop, FinishReason::Length, FinishReason::ContentFilter, FinishReason::ToolUse})
    if (s == to_string(r)) return r;
  return FinishReason::Other;
}

Result<LlmErrorKind> error_kind_from_string(const std::string& s) {
  for (int k = 0; k <= static_cast<int>(kLastLlmErrorKind); ++k)
    if (s == to_string(static_cast<LlmErrorKind>(k))) return static_cast<LlmErrorKind>(k);
  return bad(fmt::format("unknown error kind '{}'", s));
}

Result<ChatRequest> chat_request_from_json(const json& j) {
  const json* messages = detail::member(j, "messages");
  if (messages == nullptr || !messages->is_array()) return bad("request: missing array 'messages'");
  ChatRequest request;
  for (const auto& m : *messages) {
    auto role_text = detail::get_string(m, "role");
    auto content = detail::get_string(m, "content");
    if (!role_text || !content) return bad("request: message needs string 'role' and 'content'");
    auto role = role_from_string(*role_text);
    if (!role) return role.error();
    request.messages.push_back({*role, *content});
  }
  const json* params = detail::member(j, "params");
  if (params != nullptr) {
    ChatParams& p = request.params;
    if (auto v = detail::get_int(*params, "max_tokens")) p.max_tokens = static_cast<int>(*v);
    p.temperature = detail::get_double(*params, "temperature");
    p.top_p = detail::get_double(*params, "top_p");
    p.reasoning_effort = detail::get_string(*params, "reasoning_effort");
    if (auto v = detail::get_int(*params, "thinking_budget_tokens")) p.thinking_budget_tokens = static_cast<int>(*v);
    if (const json* stop = detail::member(*params, "stop"); stop != nullptr && stop->is_array())
      for (const auto& s : *stop)
        if (s.is_string()) p.stop.push_back(s.get<std::string>());
    p.seed = detail::get_int(*params, "seed");
  }
  return request;
}

Result<Usage> usage_from_json(const json& j) {
  if (!j.is_object()) return bad("usage: not an object");
  Usage u;
  u.input_tokens = detail::get_int(j, "input_tokens").value_or(0);
  u.cached_input_tokens = detail::get_int(j, "cached_input_tokens").value_or(0);
  u.output_tokens = detail::get_int(j, "output_tokens").value_or(0);
  if (auto r = detail::get_int(j, "reasoning_tokens")) {
    u.reasoning_tokens = *r;
    u.reasoning_reported = true;
  }
  return u;
}

Result<ChatResponse> chat_response_from_json(const json& j) {
  if (!j.is_object()) return bad("response: not an object");
  ChatResponse r;
  auto text = detail::get_string(j, "text");
  if (!text) return bad("response: missing string 'text'");
  r.text = *text;
  r.provider = detail::get_string(j, "provider").value_or("");
  r.model = detail::get_string(j, "model").value_or("");
  r.response_model = detail::get_string(j, "response_model").value_or("");
  r.id = detail::get_string(j, "id").value_or("");
  r.reasoning_text = detail::get_string(j, "reasoning_text").value_or("");
  r.finish_reason = finish_reason_from_string(detail::get_string(j, "finish_reason").value_or(""));
  r.finish_reason_raw = detail::get_string(j, "finish_reason_raw").value_or("");
  if (const json* usage = detail::member(j, "usage")) {
    auto u = usage_from_json(*usage);
    if (!u) return u.error();
    r.usage = *u;
  }
  r.cost_usd = detail::get_double(j, "cost_usd");
  r.latency = std::chrono::milliseconds{detail::get_int(j, "latency_ms").value_or(0)};
  r.elapsed = std::chrono::milliseconds{detail::get_int(j, "elapsed_ms").value_or(0)};
  r.attempts = static_cast<int>(detail::get_int(j, "attempts").value_or(1));
  r.endpoint = detail::get_string(j, "endpoint").value_or("");
  r.raw_request = detail::get_string(j, "raw_request").value_or("");
  r.raw_response = detail::get_string(j, "raw_response").value_or("");
  r.replayed = detail::get_bool(j, "replayed").value_or(false);
  return r;
}

std::optional<LlmError> llm_error_from_json(const json& j) {
  auto kind_text = detail::get_string(j, "kind");
  if (!kind_text) return std::nullopt;
  auto kind = error_kind_from_string(*kind_text);
  if (!kind) return std::nullopt;
  LlmError e;
  e.kind = *kind;
  e.provider = detail::get_string(j, "provider").value_or("");
  e.http_status = static_cast<int>(detail::get_int(j, "http_status").value_or(0));
  e.message = detail::get_string(j, "message").value_or("");
  e.server_message = detail::get_string(j, "server_message").value_or("");
  e.attempts = static_cast<int>(detail::get_int(j, "attempts").value_or(1));
  if (auto ms = detail::get_int(j, "retry_after_ms")) e.retry_after = std::chrono::milliseconds{*ms};
  e.pending = detail::get_string(j, "pending").value_or("");
  return e;
}

namespace {

std::string shorten(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string diff_at(const std::string& path, const json& a, const json& b) {
  if (a == b) return {};
  const std::string where = path.empty() ? "(root)" : path;
  if (a.type() != b.type()) return fmt::format("{}: recorded {} vs got {}", where, shorten(a), shorten(b));
  if (a.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string sub = path.empty() ? key : path + "." + key;
      if (!b.contains(key)) return fmt::format("{}: recorded {} vs got nothing", sub, shorten(value));
      if (auto d = diff_at(sub, value, b[key]); !d.empty()) return d;
    }
    for (const auto& [key, value] : b.items()) {
      const std::string sub = path.empty() ? key : path + "." + key;
      if (!a.contains(key)) return fmt::format("{}: recorded nothing vs got {}", sub, shorten(value));
    }
    return {};
  }
  if (a.is_array()) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
      if (auto d = diff_at(fmt::format("{}[{}]", path, i), a[i], b[i]); !d.empty()) return d;
    return fmt::format("{}: recorded {} elements vs got {}", where, a.size(), b.size());
  }
  if (a.is_string()) {
    // Point at the first differing character: prompts are long.
    const std::string& x = a.get_ref<const std::string&>();
    const std::string& y = b.get_ref<const std::string&>();
    std::size_t i = 0;
    while (i < x.size() && i < y.size() && x[i] == y[i]) ++i;
    const std::size_t from = i > 20 ? i - 20 : 0;
    return fmt::format("{}: strings differ at character {}: recorded {} vs got {}", where, i,
                       shorten(json(x.substr(from, 60))), shorten(json(y.substr(from, 60))));
  }
  return fmt::format("{}: recorded {} vs got {}", where, shorten(a), shorten(b));
}

}  // namespace

std::string first_difference(const json& recorded, const json& got) { return diff_at("", recorded, got); }

}  // namespace cudamaster::llm

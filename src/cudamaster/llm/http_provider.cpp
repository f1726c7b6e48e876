#include <chrono>

#include <fmt/format.h>

#include "providers.hpp"
#include "text_util.hpp"

namespace cudamaster::llm::detail {
namespace {

class HttpProvider final : public Provider {
 public:
  explicit HttpProvider(HttpProviderConfig config) : c_(std::move(config)) {
    c_.headers.emplace_back("Content-Type", "application/json");
  }

  std::string name() const override { return c_.name; }
  std::string model() const override { return c_.model; }
  std::string endpoint() const override { return c_.url; }

  Result<ChatResponse> complete(const ChatRequest& request) override {
    const auto start = std::chrono::steady_clock::now();
    if (request.messages.empty())
      return make_error(LlmErrorKind::InvalidArgument, c_.name, "request has no messages");
    if (request.params.max_tokens <= 0)
      return make_error(LlmErrorKind::InvalidArgument, c_.name, "max_tokens must be positive");

    HttpRequest http{c_.url, c_.headers, dump_json(c_.format->build_body(request, c_.model))};
    int attempts = 1;
    Result<HttpResponse> sent = post_with_retries(*c_.transport, http, c_.http, c_.retry, c_.name, &attempts);
    if (!sent) return std::move(sent).error();
    const HttpResponse& reply = *sent;

    auto malformed = [&](const std::string& why) {
      LlmError e = make_error(LlmErrorKind::MalformedResponse, c_.name, why);
      e.http_status = reply.status;
      e.attempts = attempts;
      return e;
    };
    if (reply.body.empty()) return malformed("empty response body");
    const nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded())
      return malformed(fmt::format("response is not valid JSON ({} bytes, starts {})", reply.body.size(),
                                   one_line(reply.body.substr(0, 60), 60)));
    Result<ChatResponse> parsed = [&]() -> Result<ChatResponse> {
      try {  // parse_body checks types itself; this is the last line of defence against a crash
        return c_.format->parse_body(body, c_.name);
      } catch (const std::exception& ex) {
        return malformed(fmt::format("unexpected response shape: {}", ex.what()));
      }
    }();
    if (!parsed) {
      LlmError e = std::move(parsed).error();
      e.http_status = reply.status;
      e.attempts = attempts;
      return e;
    }
    ChatResponse r = std::move(parsed).value();
    r.provider = c_.name;
    r.model = c_.model;
    r.endpoint = c_.url;
    r.raw_request = std::move(http.body);
    r.raw_response = reply.body;
    r.latency = reply.latency;
    r.attempts = attempts;
    r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    return r;
  }

 private:
  HttpProviderConfig c_;
};

}  // namespace

std::unique_ptr<Provider> make_http_provider(HttpProviderConfig config) {
  return std::make_unique<HttpProvider>(std::move(config));
}

}  // namespace cudamaster::llm::detail

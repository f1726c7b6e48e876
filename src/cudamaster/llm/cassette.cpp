// Record/replay. A cassette is JSON lines, one exchange per line:
//   {"cassette":1,"seq":N,"provider":"openai","model":"gpt-4o","endpoint":"...",
//    "request":{"messages":[...],"params":{...}},"response":{...}}   (or "error":{...})
// The request is the provider-neutral ChatRequest, so a replay checks what the caller asked,
// not the wire format. API keys are never recorded (they live in headers, which are not).
#include <chrono>
#include <fstream>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "cudamaster/llm/serialize.hpp"
#include "json_util.hpp"
#include "providers.hpp"
#include "text_util.hpp"

namespace cudamaster::llm::detail {

using nlohmann::json;

json cassette_line(std::int64_t seq, const std::string& provider, const std::string& model,
                   const std::string& endpoint, const ChatRequest& request, const ChatResponse* response,
                   const LlmError* error) {
  json line = {{"cassette", 1},     {"seq", seq},           {"provider", provider},
               {"model", model},    {"endpoint", endpoint}, {"request", to_json(request)}};
  if (response != nullptr) line["response"] = to_json(*response, /*include_raw=*/true);
  if (error != nullptr) line["error"] = to_json(*error);
  return line;
}

namespace {

// The part of a normalised request that replay compares: everything (Full), everything but the
// text of user and assistant messages (SystemOnly), or that plus the first line of each user
// message (Task).
json match_view(const json& request, ReplayMatch match) {
  if (match == ReplayMatch::Full || !request.contains("messages")) return request;
  json v = request;
  for (json& m : v["messages"]) {
    const std::string role = m.value("role", "");
    if (role == "system" || !m.contains("content")) continue;
    if (match == ReplayMatch::Task && role == "user" && m["content"].is_string()) {
      const std::string text = m["content"].get<std::string>();
      m["content"] = text.substr(0, text.find('\n'));
    } else {
      m["content"] = "";
    }
  }
  return v;
}

// The first user message's text in a match view ("" when there is none): under Task, the heading
// that tells the conversations apart.
std::string first_user_text(const json& view) {
  if (!view.contains("messages")) return "";
  for (const json& m : view["messages"])
    if (m.value("role", "") == "user" && m.contains("content") && m["content"].is_string()) return m["content"].get<std::string>();
  return "";
}

struct Exchange {
  std::size_t line_no = 0;
  json request;
  std::optional<ChatResponse> response;
  std::optional<LlmError> error;
  bool used = false;
};

class ReplayProvider final : public Provider {
 public:
  ReplayProvider(std::string path, std::vector<Exchange> exchanges, bool allow_reorder, ReplayMatch match)
      : path_(std::move(path)), exchanges_(std::move(exchanges)), allow_reorder_(allow_reorder), match_(match) {}

  std::string name() const override { return "replay"; }
  std::string model() const override { return ""; }
  std::string endpoint() const override { return path_; }

  Result<ChatResponse> complete(const ChatRequest& request) override {
    const json got = match_view(to_json(request), match_);
    std::lock_guard<std::mutex> lock(mutex_);
    while (next_ < exchanges_.size() && exchanges_[next_].used) ++next_;
    if (next_ >= exchanges_.size())
      return make_error(LlmErrorKind::ReplayExhausted, "replay",
                        fmt::format("{}: all {} recorded exchanges used; the run asked for one more",
                                    path_, exchanges_.size()));
    Exchange* hit = nullptr;
    if (exchanges_[next_].request == got) {
      hit = &exchanges_[next_];
    } else if (allow_reorder_ || match_ == ReplayMatch::Task) {
      for (std::size_t i = next_ + 1; i < exchanges_.size() && hit == nullptr; ++i)
        if (!exchanges_[i].used && exchanges_[i].request == got) hit = &exchanges_[i];
    }
    if (hit == nullptr) {
      // Under Task the difference is shown against the next unused exchange of the same conversation.
      std::size_t shown = next_;
      if (match_ == ReplayMatch::Task) {
        const std::string heading = first_user_text(got);
        for (std::size_t i = next_; i < exchanges_.size(); ++i)
          if (!exchanges_[i].used && first_user_text(exchanges_[i].request) == heading) {
            shown = i;
            break;
          }
      }
      const Exchange& want = exchanges_[shown];
      return make_error(LlmErrorKind::ReplayMismatch, "replay",
                        fmt::format("{} line {}: request differs from the recording at {}", path_,
                                    want.line_no, first_difference(want.request, got)));
    }
    hit->used = true;
    if (hit->error) return *hit->error;
    ChatResponse r = *hit->response;
    r.replayed = true;
    r.latency = std::chrono::milliseconds{0};
    r.elapsed = std::chrono::milliseconds{0};
    return r;
  }

 private:
  std::string path_;
  std::vector<Exchange> exchanges_;
  bool allow_reorder_;
  ReplayMatch match_;
  std::mutex mutex_;
  std::size_t next_ = 0;
};

class RecordingProvider final : public Provider {
 public:
  RecordingProvider(std::unique_ptr<Provider> inner, std::string path, std::ofstream out)
      : inner_(std::move(inner)), path_(std::move(path)), out_(std::move(out)) {}

  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  std::string endpoint() const override { return inner_->endpoint(); }

  Result<ChatResponse> complete(const ChatRequest& request) override {
    Result<ChatResponse> result = inner_->complete(request);
    std::lock_guard<std::mutex> lock(mutex_);
    const json line = cassette_line(seq_++, inner_->name(), inner_->model(), inner_->endpoint(), request,
                                    result.ok() ? &result.value() : nullptr,
                                    result.ok() ? nullptr : &result.error());
    out_ << dump_json(line) << '\n';
    out_.flush();
    if (!out_)
      return make_error(LlmErrorKind::Io, inner_->name(),
                        fmt::format("cannot append to cassette '{}' (disk full?)", path_));
    return result;
  }

 private:
  std::unique_ptr<Provider> inner_;
  std::string path_;
  std::ofstream out_;
  std::mutex mutex_;
  std::int64_t seq_ = 0;
};

}  // namespace

Result<std::unique_ptr<Provider>> make_replay_provider(const std::string& path, bool allow_reorder, ReplayMatch match) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(LlmErrorKind::Io, "replay", fmt::format("cannot read cassette '{}'", path));
  std::vector<Exchange> exchanges;
  std::string text;
  std::size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (trim(text).empty()) continue;
    auto bad = [&](const std::string& why) {
      return make_error(LlmErrorKind::InvalidArgument, "replay", fmt::format("{} line {}: {}", path, line_no, why));
    };
    const json line = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (line.is_discarded() || !line.is_object()) return bad("not a JSON object (truncated recording?)");
    const json* request = member(line, "request");
    if (request == nullptr) return bad("no 'request'");
    auto parsed_request = chat_request_from_json(*request);
    if (!parsed_request) return bad(parsed_request.error().message);
    Exchange ex;
    ex.line_no = line_no;
    ex.request = match_view(to_json(*parsed_request), match);  // normalised: comparisons ignore formatting
    if (const json* response = member(line, "response")) {
      auto r = chat_response_from_json(*response);
      if (!r) return bad(r.error().message);
      ex.response = std::move(r).value();
    } else if (const json* error = member(line, "error")) {
      ex.error = llm_error_from_json(*error);
      if (!ex.error) return bad("'error' is not a recorded error (missing or unknown 'kind')");
    } else {
      return bad("neither 'response' nor 'error'");
    }
    exchanges.push_back(std::move(ex));
  }
  return std::unique_ptr<Provider>(std::make_unique<ReplayProvider>(path, std::move(exchanges), allow_reorder, match));
}

}  // namespace cudamaster::llm::detail

namespace cudamaster::llm {

Result<std::unique_ptr<Provider>> make_recording_provider(std::unique_ptr<Provider> inner, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return make_error(LlmErrorKind::Io, inner->name(), fmt::format("cannot write cassette '{}'", path));
  return std::unique_ptr<Provider>(
      std::make_unique<detail::RecordingProvider>(std::move(inner), path, std::move(out)));
}

}  // namespace cudamaster::llm

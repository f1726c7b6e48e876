// A loopback LLM server for tests (cpp-httplib): speaks OpenAI Chat Completions
// (POST /v1/chat/completions) and Anthropic Messages (POST /v1/messages), records every request,
// and serves scripted faults: any status and headers, delays, truncated bodies, broken JSON.
// Binds 127.0.0.1 on a free port; never reaches the internet.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace cmtest {

struct ScriptedReply {
  ScriptedReply() = default;
  ScriptedReply(int status_, std::string body_, std::vector<std::pair<std::string, std::string>> headers_ = {},
                std::chrono::milliseconds delay_ = std::chrono::milliseconds{0}, bool truncate_ = false)
      : status(status_), body(std::move(body_)), headers(std::move(headers_)), delay(delay_), truncate(truncate_) {}
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};
  bool truncate = false;  // announce more bytes than sent, then drop the connection
  // > 0: instead of `body`, stream this many bytes (`body` repeated, then padded with spaces) in
  // 64 KiB chunks; FakeLlmServer::streamed_bytes() counts what the client took.
  std::size_t stream_bytes = 0;
};

struct ReceivedRequest {
  std::string path;
  httplib::Headers headers;
  std::string body;
  nlohmann::json json;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);  // httplib's Headers compare case-insensitively
    return it == headers.end() ? std::string() : it->second;
  }
};

inline std::string openai_reply(const std::string& text, int prompt_tokens = 12, int completion_tokens = 3,
                                std::optional<int> reasoning_tokens = std::nullopt,
                                const std::string& finish = "stop") {
  nlohmann::json usage = {{"prompt_tokens", prompt_tokens},
                          {"completion_tokens", completion_tokens},
                          {"total_tokens", prompt_tokens + completion_tokens}};
  if (reasoning_tokens) usage["completion_tokens_details"] = {{"reasoning_tokens", *reasoning_tokens}};
  return nlohmann::json{{"id", "chatcmpl-test"},
                        {"object", "chat.completion"},
                        {"model", "served-model"},
                        {"choices",
                         {{{"index", 0},
                           {"message", {{"role", "assistant"}, {"content", text}}},
                           {"finish_reason", finish}}}},
                        {"usage", usage}}
      .dump();
}

inline std::string anthropic_reply(const std::string& text, int input_tokens = 20, int output_tokens = 4,
                                   const std::string& stop_reason = "end_turn") {
  return nlohmann::json{{"id", "msg_test"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", "served-claude"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", stop_reason},
                        {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}}
      .dump();
}

class FakeLlmServer {
 public:
  // Keys the default handlers demand ("" = no check).
  std::string openai_key = "test-openai-key";
  std::string anthropic_key = "test-anthropic-key";
  std::string default_text = "pong";

  FakeLlmServer() {
    // Loopback must not go through a proxy configured for the machine.
    for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"})
      unsetenv(v);
    server_.Post(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs would be lost and the destructor would hang.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }

  ~FakeLlmServer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void enqueue(ScriptedReply reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.push_back(std::move(reply));
  }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  std::size_t streamed_bytes() const { return streamed_.load(); }
  std::size_t request_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_.size();
  }

 private:
  void handle(const httplib::Request& req, httplib::Response& res) {
    std::optional<ScriptedReply> scripted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ReceivedRequest r{req.path, req.headers, req.body, nlohmann::json::parse(req.body, nullptr, false)};
      requests_.push_back(std::move(r));
      if (!script_.empty()) {
        scripted = std::move(script_.front());
        script_.pop_front();
      }
    }
    if (!scripted) scripted = default_reply(req);
    if (scripted->delay.count() > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, scripted->delay, [this] { return stopping_; });
    }
    for (const auto& [k, v] : scripted->headers) res.set_header(k, v);
    res.status = scripted->status;
    if (scripted->stream_bytes > 0) {
      const std::size_t total = scripted->stream_bytes;
      auto chunk = std::make_shared<std::string>();
      while (chunk->size() < (std::size_t{64} << 10)) chunk->append(scripted->body.empty() ? std::string(" ") : scripted->body);
      chunk->resize(std::size_t{64} << 10);
      res.set_content_provider(total, "application/json", [this, chunk, total](size_t offset, size_t, httplib::DataSink& sink) {
        const std::size_t n = std::min(chunk->size(), total - offset);
        if (!sink.write(chunk->data(), n)) return false;  // the client went away
        streamed_ += n;
        return true;
      });
      return;
    }
    if (scripted->truncate) {
      auto body = std::make_shared<std::string>(scripted->body);
      res.set_content_provider(body->size() + 100, "application/json",
                               [body](size_t offset, size_t, httplib::DataSink& sink) {
                                 if (offset == 0) sink.write(body->data(), body->size());
                                 return false;  // abort: the client sees a short body
                               });
      return;
    }
    res.set_content(scripted->body, "application/json");
  }

  ScriptedReply default_reply(const httplib::Request& req) const {
    ScriptedReply r;
    if (req.path == "/v1/chat/completions") {
      const std::string auth = req.get_header_value("Authorization");
      if (!openai_key.empty() && auth != "Bearer " + openai_key) {
        r.status = 401;
        r.body = R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})";
        return r;
      }
      r.body = openai_reply(default_text);
      return r;
    }
    if (req.path == "/v1/messages") {
      if (!anthropic_key.empty() && req.get_header_value("x-api-key") != anthropic_key) {
        r.status = 401;
        r.body = R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})";
        return r;
      }
      if (req.get_header_value("anthropic-version").empty()) {
        r.status = 400;
        r.body = R"({"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version header is required"}})";
        return r;
      }
      r.body = anthropic_reply(default_text);
      return r;
    }
    r.status = 404;
    r.body = R"({"error":"no such route"})";
    return r;
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<ScriptedReply> script_;
  std::vector<ReceivedRequest> requests_;
  std::atomic<std::size_t> streamed_{0};
};

}  // namespace cmtest

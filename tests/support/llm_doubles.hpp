// Test doubles that need no network: a scripted HttpTransport, a stub Provider, temp files and an
// environment map for ProviderOptions::env.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cudamaster/llm/llm.hpp"

namespace cmtest {

namespace llm = cudamaster::llm;

// A unique scratch directory removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("cm_llm_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

inline llm::EnvLookup env_map(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// Records the delays instead of sleeping.
struct SleepRecorder {
  std::shared_ptr<std::vector<std::chrono::milliseconds>> delays =
      std::make_shared<std::vector<std::chrono::milliseconds>>();
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  std::function<void(std::chrono::milliseconds)> fn() const {
    auto d = delays;
    auto m = mutex;
    return [d, m](std::chrono::milliseconds ms) {
      std::lock_guard<std::mutex> lock(*m);
      d->push_back(ms);
    };
  }
};

// Fast retry policy: no real sleeping.
inline llm::RetryPolicy fast_retry(int attempts, const SleepRecorder& recorder) {
  llm::RetryPolicy p;
  p.max_attempts = attempts;
  p.base_delay = std::chrono::milliseconds{100};
  p.max_delay = std::chrono::milliseconds{1000};
  p.sleep = recorder.fn();
  return p;
}

// Transport that answers from a script (responses or errors), recording what it was sent.
class ScriptedTransport final : public llm::HttpTransport {
 public:
  void push(int status, std::string body, llm::HttpHeaders headers = {}) {
    llm::HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    script_.emplace_back(std::move(r));
  }
  void push_error(llm::LlmErrorKind kind, std::string message) {
    script_.emplace_back(llm::make_error(kind, "", std::move(message)));
  }
  llm::Result<llm::HttpResponse> post(const llm::HttpRequest& request, const llm::HttpOptions&,
                                      const std::string& provider) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sent.push_back(request);
    if (script_.empty()) return llm::make_error(llm::LlmErrorKind::Connection, provider, "script exhausted");
    auto next = std::move(script_.front());
    script_.pop_front();
    if (!next.ok()) {
      llm::LlmError e = next.error();
      e.provider = provider;
      return e;
    }
    return next;
  }
  std::vector<llm::HttpRequest> sent;

 private:
  std::mutex mutex_;
  std::deque<llm::Result<llm::HttpResponse>> script_;
};

// In-process provider: echoes the last user message, reports fixed usage.
class StubProvider final : public llm::Provider {
 public:
  explicit StubProvider(std::string name = "openai", std::string model = "gpt-4o", llm::Usage usage = default_usage())
      : name_(std::move(name)), model_(std::move(model)), usage_(usage) {}
  static llm::Usage default_usage() {
    llm::Usage u;
    u.input_tokens = 1000;
    u.output_tokens = 500;
    return u;
  }
  std::string name() const override { return name_; }
  std::string model() const override { return model_; }
  std::string endpoint() const override { return "stub://"; }
  llm::Result<llm::ChatResponse> complete(const llm::ChatRequest& request) override {
    calls.fetch_add(1);
    if (fail_with) return *fail_with;
    llm::ChatResponse r;
    r.provider = name_;
    r.model = model_;
    r.text = "echo: " + (request.messages.empty() ? std::string() : request.messages.back().content);
    r.finish_reason = llm::FinishReason::Stop;
    r.finish_reason_raw = "stop";
    r.usage = usage_;
    r.raw_request = "{}";
    r.raw_response = "{}";
    return r;
  }
  std::atomic<int> calls{0};
  std::optional<llm::LlmError> fail_with;

 private:
  std::string name_, model_;
  llm::Usage usage_;
};

inline llm::ChatRequest simple_request(const std::string& user, const std::string& system = "You write CUDA.") {
  llm::ChatRequest r;
  r.messages = {{llm::Role::System, system}, {llm::Role::User, user}};
  r.params.max_tokens = 256;
  r.params.temperature = 0.2;
  return r;
}

}  // namespace cmtest

// Runs the real `cudamaster llm-check` binary against the loopback server, reaching it only
// through the documented base-URL overrides (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) or an
// openai-compatible URL. The child gets a minimal environment: no real keys, no proxies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/fake_llm_server.hpp"
#include "support/llm_doubles.hpp"

using namespace cmtest;
using nlohmann::json;

namespace {

// The binary with PATH, HOME and `env` alone.
Proc run_cudamaster(const std::vector<std::string>& args, std::map<std::string, std::string> env) {
  env.emplace("PATH", "/usr/bin:/bin");
  env.emplace("HOME", "/tmp");
  return run_isolated(CM_CUDAMASTER_BIN, args, env);
}

}  // namespace

TEST(LlmCheckCli, OpenAIThroughBaseUrlOverride) {
  FakeLlmServer server;
  const Proc r = run_cudamaster({"llm-check", "--llm", "openai:gpt-4o-mini"},
                                {{"OPENAI_API_KEY", server.openai_key}, {"OPENAI_BASE_URL", server.url() + "/v1"}});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reply:    pong"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tokens:   input 12 (cached 0), output 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("latency:  "), std::string::npos);
  EXPECT_NE(r.out.find("cost:     $0.000004"), std::string::npos) << r.out;  // (12*0.15+3*0.6)/1M = 3.6e-6
  ASSERT_EQ(server.request_count(), 1u);
  const auto got = server.requests()[0];
  EXPECT_EQ(got.header("Authorization"), "Bearer test-openai-key");
  EXPECT_EQ(got.json["model"], "gpt-4o-mini");
  EXPECT_EQ(got.json["max_tokens"], 64);
  EXPECT_EQ(got.json["messages"][1]["content"], "Reply with exactly one word: pong");
}

TEST(LlmCheckCli, AnthropicThroughBaseUrlOverrideJson) {
  FakeLlmServer server;
  const Proc r = run_cudamaster({"llm-check", "--llm", "anthropic:claude-haiku-4-5", "--json"},
                                {{"ANTHROPIC_API_KEY", server.anthropic_key}, {"ANTHROPIC_BASE_URL", server.url()}});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["reply"], "pong");
  EXPECT_EQ(j["provider"], "anthropic");
  EXPECT_EQ(j["usage"]["input_tokens"], 20);
  EXPECT_EQ(j["usage"]["output_tokens"], 4);
  EXPECT_TRUE(j["latency_ms"].is_number());
  EXPECT_FALSE(j.contains("raw_request"));
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/v1/messages");
  EXPECT_EQ(server.requests()[0].header("anthropic-version"), "2023-06-01");
}

TEST(LlmCheckCli, OpenAICompatibleUrlWithoutKeyRecordThenReplay) {
  TempDir dir;
  const std::string cassette = dir.file("check.jsonl");
  {
    FakeLlmServer server;
    server.openai_key = "";
    const Proc r = run_cudamaster({"llm-check", "--llm", "openai-compatible:" + server.url() + "/v1:llama3.1:8b",
                                  "--record", cassette},
                                  {});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("reply:    pong"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("recorded: " + cassette), std::string::npos) << r.out;
    EXPECT_EQ(server.requests()[0].json["model"], "llama3.1:8b");
  }
  // The server is gone; the cassette answers.
  const Proc replay = run_cudamaster({"llm-check", "--llm", "replay:" + cassette, "--json"}, {});
  ASSERT_EQ(replay.code, 0) << replay.out << replay.err;
  const json j = json::parse(replay.out);
  EXPECT_EQ(j["reply"], "pong");
  EXPECT_EQ(j["replayed"], true);
  EXPECT_EQ(j["provider"], "openai-compatible");
}

TEST(LlmCheckCli, FailuresExitNonZeroWithOneLine) {
  FakeLlmServer server;
  const Proc bad_key = run_cudamaster({"llm-check", "--llm", "openai:gpt-4o"},
                                      {{"OPENAI_API_KEY", "wrong"}, {"OPENAI_BASE_URL", server.url() + "/v1"}});
  EXPECT_EQ(bad_key.code, 1);
  EXPECT_EQ(bad_key.err,
            "cudamaster llm-check: openai: authentication (HTTP 401): invalid_request_error: Incorrect API key provided\n");

  const Proc no_key = run_cudamaster({"llm-check", "--llm", "anthropic:claude-haiku-4-5", "--json"}, {});
  EXPECT_EQ(no_key.code, 1);
  const json j = json::parse(no_key.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["error"]["kind"], "missing_credentials");

  server.enqueue({503, R"({"error":{"message":"warming up"}})"});
  server.enqueue({503, R"({"error":{"message":"warming up"}})"});
  const Proc busy = run_cudamaster({"llm-check", "--llm", "openai-compatible:" + server.url() + "/v1:m", "--attempts", "2"},
                                   {});
  EXPECT_EQ(busy.code, 1);
  EXPECT_NE(busy.err.find("server_error (HTTP 503, 2 attempts): warming up"), std::string::npos) << busy.err;

  const Proc usage = run_cudamaster({"llm-check"}, {});
  EXPECT_NE(usage.code, 0);
  EXPECT_NE(usage.err.find("--llm"), std::string::npos) << usage.err;
}

// --max-reply-bytes (and CUDAMASTER_MAX_REPLY_BYTES): a reply above it is refused with one line.
TEST(LlmCheckCli, ReplyAboveMaxReplyBytesIsRefused) {
  FakeLlmServer server;
  const std::map<std::string, std::string> env = {{"OPENAI_API_KEY", server.openai_key}, {"OPENAI_BASE_URL", server.url() + "/v1"}};
  server.enqueue({200, openai_reply(std::string(4096, 'x'))});
  const Proc r = run_cudamaster({"llm-check", "--llm", "openai:gpt-4o-mini", "--max-reply-bytes", "1024"}, env);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "cudamaster llm-check: openai: reply_too_large (HTTP 200): LLM reply larger than 1024 bytes (limit --max-reply-bytes): refused\n");
  EXPECT_EQ(server.request_count(), 1u);  // not retried

  std::map<std::string, std::string> env2 = env;
  env2["CUDAMASTER_MAX_REPLY_BYTES"] = "2048";
  server.enqueue({200, openai_reply(std::string(4096, 'x'))});
  const Proc e = run_cudamaster({"llm-check", "--llm", "openai:gpt-4o-mini"}, env2);
  EXPECT_EQ(e.code, 1) << e.out << e.err;
  EXPECT_NE(e.err.find("LLM reply larger than 2048 bytes (limit --max-reply-bytes): refused"), std::string::npos) << e.err;

  const Proc ok = run_cudamaster({"llm-check", "--llm", "openai:gpt-4o-mini", "--max-reply-bytes", "1024"}, env);
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;  // the default reply is small
}

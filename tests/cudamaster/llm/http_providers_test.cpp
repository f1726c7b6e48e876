// The providers over real HTTP (libcurl) against the loopback FakeLlmServer: exact wire JSON and
// headers for both APIs, and every failure mode the issue lists.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "support/fake_llm_server.hpp"
#include "support/llm_doubles.hpp"

using namespace cmtest;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

class LlmHttp : public ::testing::Test {
 protected:
  FakeLlmServer server;
  SleepRecorder sleeps;

  llm::ClientOptions options(const std::string& llm_spec, int attempts = 4) {
    llm::ClientOptions o;
    o.llm = llm_spec;
    o.provider.env = env_map({{"OPENAI_API_KEY", server.openai_key},
                              {"OPENAI_BASE_URL", server.url() + "/v1"},
                              {"ANTHROPIC_API_KEY", server.anthropic_key},
                              {"ANTHROPIC_BASE_URL", server.url()}});
    o.provider.retry = fast_retry(attempts, sleeps);
    o.provider.http.connect_timeout = milliseconds{2000};
    o.provider.http.read_timeout = milliseconds{3000};
    return o;
  }

  std::unique_ptr<llm::LlmClient> client(const llm::ClientOptions& o) {
    auto c = llm::LlmClient::create(o);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
    return c.ok() ? std::move(c).value() : nullptr;
  }

  std::unique_ptr<llm::LlmClient> client(const std::string& spec, int attempts = 4) {
    return client(options(spec, attempts));
  }
};

}  // namespace

TEST_F(LlmHttp, OpenAIExactRequestAndParsedResponse) {
  server.enqueue({200, openai_reply("__global__ void k() {}", 120, 30)});
  auto c = client("openai:gpt-4o");
  auto req = simple_request("Write a kernel.");
  req.params.stop = {"</code>"};
  req.params.seed = 42;
  auto r = c->complete(req);
  ASSERT_TRUE(r.ok()) << r.error().describe();

  ASSERT_EQ(server.request_count(), 1u);
  const ReceivedRequest got = server.requests()[0];
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_EQ(got.header("Authorization"), "Bearer test-openai-key");
  EXPECT_EQ(got.header("Content-Type"), "application/json");
  EXPECT_EQ(got.header("x-api-key"), "");
  EXPECT_EQ(got.json, json::parse(R"({
    "model": "gpt-4o",
    "messages": [{"role": "system", "content": "You write CUDA."},
                 {"role": "user", "content": "Write a kernel."}],
    "max_tokens": 256, "temperature": 0.2, "stop": ["</code>"], "seed": 42})"));

  EXPECT_EQ(r->text, "__global__ void k() {}");
  EXPECT_EQ(r->finish_reason, llm::FinishReason::Stop);
  EXPECT_EQ(r->usage.input_tokens, 120);
  EXPECT_EQ(r->usage.output_tokens, 30);
  EXPECT_FALSE(r->usage.reasoning_reported);
  EXPECT_EQ(r->provider, "openai");
  EXPECT_EQ(r->model, "gpt-4o");
  EXPECT_EQ(r->response_model, "served-model");
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->endpoint, server.url() + "/v1/chat/completions");
  EXPECT_EQ(json::parse(r->raw_request), got.json);
  EXPECT_EQ(json::parse(r->raw_response), json::parse(openai_reply("__global__ void k() {}", 120, 30)));
  EXPECT_EQ(r->raw_request.find("test-openai-key"), std::string::npos);
  ASSERT_TRUE(r->cost_usd.has_value());
  EXPECT_NEAR(*r->cost_usd, (120 * 2.5 + 30 * 10.0) / 1e6, 1e-15);
  EXPECT_GE(r->elapsed, r->latency);
}

TEST_F(LlmHttp, OpenAIReasoningModelsGetCompletionTokensAndEffortNoTemperature) {
  server.enqueue({200, openai_reply("ok", 50, 900, 850, "stop")});
  auto c = client("openai:o4-mini");
  auto req = simple_request("Plan.");  // has temperature 0.2: must not be sent
  req.params.top_p = 0.9;
  auto r = c->complete(req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(server.requests()[0].json, json::parse(R"({
    "model": "o4-mini",
    "messages": [{"role": "developer", "content": "You write CUDA."},
                 {"role": "user", "content": "Plan."}],
    "max_completion_tokens": 256, "reasoning_effort": "medium"})"));
  EXPECT_TRUE(r->usage.reasoning_reported);
  EXPECT_EQ(r->usage.reasoning_tokens, 850);
  EXPECT_NEAR(*r->cost_usd, (50 * 1.10 + 900 * 4.40) / 1e6, 1e-15);

  server.enqueue({200, openai_reply("ok")});
  auto c5 = client("openai:gpt-5-mini");
  req.params.reasoning_effort = "high";
  ASSERT_TRUE(c5->complete(req).ok());
  const json body = server.requests()[1].json;
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_EQ(body["max_completion_tokens"], 256);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("top_p"));
  EXPECT_FALSE(body.contains("max_tokens"));
}

TEST_F(LlmHttp, AnthropicExactRequestAndParsedResponse) {
  server.enqueue({200, json{{"id", "msg_1"},
                            {"type", "message"},
                            {"model", "claude-sonnet-4-5-20250929"},
                            {"content", {{{"type", "thinking"}, {"thinking", "hmm"}, {"signature", "s"}},
                                         {{"type", "text"}, {"text", "part one, "}},
                                         {{"type", "text"}, {"text", "part two"}}}},
                            {"stop_reason", "max_tokens"},
                            {"usage", {{"input_tokens", 100}, {"output_tokens", 40},
                                       {"cache_read_input_tokens", 1000}, {"cache_creation_input_tokens", 0}}}}
                           .dump()});
  auto c = client("anthropic:claude-sonnet-4-5");
  llm::ChatRequest req;
  req.messages = {{llm::Role::System, "You write CUDA."},
                  {llm::Role::System, "Be terse."},
                  {llm::Role::User, "Hi"},
                  {llm::Role::Assistant, "Hello"},
                  {llm::Role::User, "Kernel please"}};
  req.params.max_tokens = 1000;
  req.params.temperature = 0.5;
  req.params.stop = {"END"};
  auto r = c->complete(req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const ReceivedRequest got = server.requests()[0];
  EXPECT_EQ(got.path, "/v1/messages");
  EXPECT_EQ(got.header("x-api-key"), "test-anthropic-key");
  EXPECT_EQ(got.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(got.header("Content-Type"), "application/json");
  EXPECT_EQ(got.header("Authorization"), "");
  EXPECT_EQ(got.json, json::parse(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 1000,
    "system": "You write CUDA.\n\nBe terse.",
    "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                 {"role": "user", "content": "Kernel please"}],
    "temperature": 0.5, "stop_sequences": ["END"]})"));
  EXPECT_EQ(r->text, "part one, part two");
  EXPECT_EQ(r->reasoning_text, "hmm");
  EXPECT_EQ(r->finish_reason, llm::FinishReason::Length);
  EXPECT_EQ(r->finish_reason_raw, "max_tokens");
  EXPECT_EQ(r->usage.input_tokens, 1100);
  EXPECT_EQ(r->usage.cached_input_tokens, 1000);
  EXPECT_EQ(r->usage.output_tokens, 40);
  EXPECT_NEAR(*r->cost_usd, (100 * 3.0 + 1000 * 0.30 + 40 * 15.0) / 1e6, 1e-15);
}

TEST_F(LlmHttp, AnthropicThinkingDropsTemperature) {
  auto c = client("anthropic:claude-opus-4-1");
  auto req = simple_request("Think.");
  req.params.max_tokens = 4000;
  req.params.thinking_budget_tokens = 2000;
  ASSERT_TRUE(c->complete(req).ok());
  const json body = server.requests()[0].json;
  EXPECT_EQ(body["thinking"], json::parse(R"({"type":"enabled","budget_tokens":2000})"));
  EXPECT_FALSE(body.contains("temperature"));
}

TEST_F(LlmHttp, OpenAICompatibleWithAndWithoutKey) {
  server.openai_key = "";  // a local server that checks nothing
  auto o = options("openai-compatible:" + server.url() + "/v1:qwen2.5-coder:32b");
  o.provider.env = env_map({{"OPENAI_API_KEY", "must-not-leak"}});
  auto c = client(o);
  auto req = simple_request("hi");
  req.params.reasoning_effort = "low";  // forwarded to local servers when set
  auto r = c->complete(req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const ReceivedRequest got = server.requests()[0];
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_EQ(got.header("Authorization"), "");
  EXPECT_EQ(got.json["model"], "qwen2.5-coder:32b");
  EXPECT_EQ(got.json["messages"][0]["role"], "system");
  EXPECT_EQ(got.json["max_tokens"], 256);
  EXPECT_EQ(got.json["reasoning_effort"], "low");
  EXPECT_EQ(r->provider, "openai-compatible");
  ASSERT_TRUE(r->cost_usd.has_value());
  EXPECT_EQ(*r->cost_usd, 0.0);

  o.provider.env = env_map({{"OPENAI_COMPATIBLE_API_KEY", "local-key"}});
  ASSERT_TRUE(client(o)->complete(req).ok());
  EXPECT_EQ(server.requests()[1].header("Authorization"), "Bearer local-key");
}

TEST_F(LlmHttp, RateLimitWithRetryAfterThenSuccess) {
  server.enqueue({429, R"({"error":{"message":"Rate limit reached for gpt-4o","type":"requests"}})",
                  {{"Retry-After", "7"}}});
  server.enqueue({200, openai_reply("after wait")});
  auto r = client("openai:gpt-4o")->complete(simple_request("x"));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->text, "after wait");
  EXPECT_EQ(r->attempts, 2);
  ASSERT_EQ(sleeps.delays->size(), 1u);
  EXPECT_EQ((*sleeps.delays)[0], milliseconds{7000});
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(server.requests()[0].body, server.requests()[1].body);  // the same request again
}

TEST_F(LlmHttp, ServerErrorsAreRetriedThenReported) {
  server.enqueue({500, R"({"error":{"message":"The server had an error"}})"});
  server.enqueue({200, openai_reply("ok")});
  EXPECT_TRUE(client("openai:gpt-4o")->complete(simple_request("x")).ok());

  const std::string overloaded = R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
  for (int i = 0; i < 3; ++i) server.enqueue({529, overloaded});
  auto r = client("anthropic:claude-haiku-4-5", 3)->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::Overloaded);
  EXPECT_EQ(r.error().http_status, 529);
  EXPECT_EQ(r.error().attempts, 3);
  EXPECT_EQ(r.error().describe(), "anthropic: overloaded (HTTP 529, 3 attempts): overloaded_error: Overloaded");
  EXPECT_EQ(server.request_count(), 2u + 3u);

  server.enqueue({502, "<html><body>502 Bad Gateway</body></html>"});
  auto g = client("openai:gpt-4o", 1)->complete(simple_request("x"));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().kind, llm::LlmErrorKind::ServerError);
  EXPECT_NE(g.error().describe().find("502 Bad Gateway"), std::string::npos);
}

TEST_F(LlmHttp, ClientErrorsAreNotRetried) {
  server.enqueue({400, R"({"error":{"message":"Unsupported parameter: 'temperature'","type":"invalid_request_error"}})"});
  auto r = client("openai:gpt-4o")->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ClientError);
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(r.error().describe(),
            "openai: client_error (HTTP 400): invalid_request_error: Unsupported parameter: 'temperature'");

  auto o = options("openai:gpt-4o");
  o.provider.env = env_map({{"OPENAI_API_KEY", "wrong"}, {"OPENAI_BASE_URL", server.url() + "/v1"}});
  auto a = client(o)->complete(simple_request("x"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, llm::LlmErrorKind::Authentication);
  EXPECT_NE(a.error().describe().find("Incorrect API key provided"), std::string::npos);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(LlmHttp, SlowResponsePastTheReadTimeout) {
  server.enqueue({200, openai_reply("late"), {}, milliseconds{5000}});
  server.enqueue({200, openai_reply("late"), {}, milliseconds{5000}});
  auto o = options("openai:gpt-4o", 2);
  o.provider.http.read_timeout = milliseconds{300};
  const auto start = std::chrono::steady_clock::now();
  auto r = client(o)->complete(simple_request("x"));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::Timeout);
  EXPECT_EQ(r.error().attempts, 2);  // timeouts are retried
  EXPECT_LT(took, std::chrono::seconds{4});
  EXPECT_NE(r.error().describe().find("openai: timeout (2 attempts)"), std::string::npos) << r.error().describe();
}

TEST_F(LlmHttp, TruncatedBody) {
  const std::string full = openai_reply("this reply will be cut");
  server.enqueue({200, full.substr(0, full.size() / 2), {}, milliseconds{0}, /*truncate=*/true});
  server.enqueue({200, full.substr(0, full.size() / 2), {}, milliseconds{0}, /*truncate=*/true});
  auto r = client("openai:gpt-4o", 2)->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::TruncatedResponse) << r.error().describe();
  EXPECT_EQ(r.error().attempts, 2);
}

// Replies are capped (--max-reply-bytes, default 8 MiB): a larger body is refused with one line,
// not retried, and the transfer is aborted in the write callback, so memory does not grow with it.
TEST_F(LlmHttp, OversizedReplyIsAbortedNotRead) {
  // 20 MiB streamed in 64 KiB chunks against a 1 MiB cap: the client stops the transfer, so the
  // server cannot write (much) more than the cap plus the sockets' buffers, and this process's
  // peak memory does not grow by the body's size.
  struct rusage before {};
  getrusage(RUSAGE_SELF, &before);
  ScriptedReply reply(200, "{\"choices\": [");
  reply.stream_bytes = std::size_t{20} << 20;
  server.enqueue(reply);
  auto o = options("openai:gpt-4o");
  o.provider.http.max_reply_bytes = std::size_t{1} << 20;
  auto r = client(o)->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ReplyTooLarge) << r.error().describe();
  EXPECT_NE(r.error().describe().find("LLM reply larger than 1 MiB (limit --max-reply-bytes): refused"), std::string::npos);
  std::this_thread::sleep_for(milliseconds{200});  // let the server notice the closed connection
  EXPECT_LT(server.streamed_bytes(), std::size_t{12} << 20) << "the transfer was not aborted";
  struct rusage after {};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 10L << 10) << "peak RSS grew by " << (after.ru_maxrss - before.ru_maxrss) << " KiB";
}

TEST_F(LlmHttp, ReplyAboveTheCapIsRefused) {
  const std::string big = openai_reply(std::string(std::size_t{20} << 20, 'x'));  // a 20 MiB reply
  server.enqueue({200, big});
  auto r = client("openai:gpt-4o")->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ReplyTooLarge) << r.error().describe();
  EXPECT_FALSE(llm::is_retryable(r.error().kind));
  EXPECT_EQ(r.error().attempts, 1);
  EXPECT_EQ(r.error().http_status, 200);
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(r.error().describe(), "openai: reply_too_large (HTTP 200): LLM reply larger than 8 MiB (limit --max-reply-bytes): refused");
  EXPECT_EQ(llm::reply_too_large_message(1000), "LLM reply larger than 1000 bytes (limit --max-reply-bytes): refused");

  // A body just under a lowered cap still goes through.
  auto o = options("openai:gpt-4o");
  o.provider.http.max_reply_bytes = std::size_t{1} << 20;
  server.enqueue({200, openai_reply(std::string(std::size_t{900} << 10, 'y'))});
  auto ok = client(o)->complete(simple_request("x"));
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ(ok->text.size(), std::size_t{900} << 10);
}

TEST_F(LlmHttp, MalformedBodiesAreErrorsNotCrashes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"id":"x","choices":[{"message":{"content":"hi"}})", "not valid JSON"},    // cut JSON, full transfer
      {"", "empty response body"},
      {"<html>ok</html>", "not valid JSON"},
      {R"({"id":"x","choices":[]})", "empty 'choices' list"},
      {R"({"id":"x"})", "no 'choices' array"},
      {R"({"choices":[{"finish_reason":"stop"}]})", "no 'message' object"},
      {R"({"choices":[{"message":{"content":42}}]})", "neither a string nor null"},
      {R"([1,2,3])", "not a JSON object"},
      {R"({"error":{"message":"model overloaded, try later"}})", "model overloaded, try later"},
  };
  auto c = client("openai:gpt-4o");
  for (const auto& [body, expect] : cases) {
    server.enqueue({200, body});
    auto r = c->complete(simple_request("x"));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, llm::LlmErrorKind::MalformedResponse) << body;
    EXPECT_EQ(r.error().http_status, 200);
    EXPECT_NE(r.error().describe().find(expect), std::string::npos) << r.error().describe();
  }
  EXPECT_EQ(server.request_count(), cases.size());  // malformed bodies are not retried

  auto a = client("anthropic:claude-haiku-4-5");
  for (const char* body : {R"({"type":"message"})", R"({"content":[{"type":"text","text":7}]})", "{{{"}) {
    server.enqueue({200, body});
    auto r = a->complete(simple_request("x"));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, llm::LlmErrorKind::MalformedResponse) << body;
  }
}

TEST_F(LlmHttp, NullContentWithLengthIsAnEmptyReplyNotAnError) {
  server.enqueue({200, R"({"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}],
                          "usage":{"prompt_tokens":10,"completion_tokens":256,
                                   "completion_tokens_details":{"reasoning_tokens":256}}})"});
  auto r = client("openai:o3")->complete(simple_request("x"));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->text, "");
  EXPECT_EQ(r->finish_reason, llm::FinishReason::Length);
  EXPECT_EQ(r->usage.reasoning_tokens, 256);
}

TEST_F(LlmHttp, ConnectionRefusedIsRetriedThenTyped) {
  int closed_port = 0;
  {
    FakeLlmServer temp;
    closed_port = temp.port();
  }
  auto o = options("openai-compatible:http://127.0.0.1:" + std::to_string(closed_port) + "/v1:m", 3);
  auto r = client(o)->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::Connection) << r.error().describe();
  EXPECT_EQ(r.error().attempts, 3);
  EXPECT_EQ(sleeps.delays->size(), 2u);
}

TEST_F(LlmHttp, RecordThenReplayWithoutTheServer) {
  TempDir dir;
  const std::string cassette = dir.file("run.jsonl");
  server.enqueue({200, openai_reply("first answer", 10, 2)});
  server.enqueue({400, R"({"error":{"message":"context too long"}})"});
  server.enqueue({200, openai_reply("third answer", 30, 4)});
  auto o = options("openai:gpt-4o-mini");
  o.record_path = cassette;
  std::vector<llm::Result<llm::ChatResponse>> live;
  {
    auto c = client(o);
    for (const char* p : {"one", "two", "three"}) live.push_back(c->complete(simple_request(p)));
  }
  ASSERT_EQ(read_lines(cassette).size(), 3u);
  const std::string text = read_file(cassette);
  EXPECT_EQ(text.find("test-openai-key"), std::string::npos);  // keys never recorded

  const std::size_t served = server.request_count();
  llm::ClientOptions ro;
  ro.llm = "replay:" + cassette;
  auto replay = client(ro);
  for (std::size_t i = 0; i < 3; ++i) {
    auto r = replay->complete(simple_request(i == 0 ? "one" : i == 1 ? "two" : "three"));
    ASSERT_EQ(r.ok(), live[i].ok()) << i;
    if (r.ok()) {
      EXPECT_EQ(r->text, live[i]->text);
      EXPECT_EQ(r->usage.input_tokens, live[i]->usage.input_tokens);
      EXPECT_EQ(r->raw_request, live[i]->raw_request);
      EXPECT_EQ(r->raw_response, live[i]->raw_response);
      EXPECT_EQ(r->cost_usd, live[i]->cost_usd);
      EXPECT_TRUE(r->replayed);
    } else {
      EXPECT_EQ(r.error().describe(), live[i].error().describe());
    }
  }
  EXPECT_EQ(server.request_count(), served);  // replay never touched the network
}

TEST_F(LlmHttp, ConcurrentConversationsShareOneClientAndBudget) {
  auto o = options("openai:gpt-4o-mini");
  o.budget = std::make_shared<llm::Budget>(1.0);
  TempDir dir;
  o.record_path = dir.file("c.jsonl");
  auto c = client(o);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i)
        if (c->complete(simple_request("t" + std::to_string(t) + "/" + std::to_string(i))).ok()) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 30);
  EXPECT_EQ(o.budget->calls(), 30);
  EXPECT_EQ(server.request_count(), 30u);
  EXPECT_EQ(read_lines(o.record_path.value()).size(), 30u);
  for (const auto& line : read_lines(o.record_path.value())) EXPECT_TRUE(json::accept(line));
}

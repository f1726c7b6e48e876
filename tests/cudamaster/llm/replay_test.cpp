#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/llm_doubles.hpp"

using namespace cmtest;

namespace {

// Records `prompts` through a stub provider into `path`.
void record(const std::string& path, const std::vector<std::string>& prompts) {
  auto recording = llm::make_recording_provider(std::make_unique<StubProvider>("openai", "gpt-4o"), path);
  ASSERT_TRUE(recording.ok());
  llm::LlmClient client(std::move(recording).value(), llm::PricingTable::builtin(), nullptr);
  for (const auto& p : prompts) ASSERT_TRUE(client.complete(simple_request(p)).ok());
}

std::unique_ptr<llm::LlmClient> replay_client(const std::string& path, bool reorder = false,
                                              llm::ReplayMatch match = llm::ReplayMatch::Full) {
  llm::ClientOptions o;
  o.llm = "replay:" + path;
  o.provider.replay_allow_reorder = reorder;
  o.provider.replay_match = match;
  auto c = llm::LlmClient::create(o);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
  return c.ok() ? std::move(c).value() : nullptr;
}

}  // namespace

TEST(LlmReplay, RoundTripReturnsTheRecordedResponses) {
  TempDir dir;
  const std::string path = dir.file("cassette.jsonl");
  record(path, {"first", "second"});
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  const auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["provider"], "openai");
  EXPECT_EQ(j["model"], "gpt-4o");
  EXPECT_EQ(j["request"]["messages"][1]["content"], "first");
  EXPECT_EQ(j["response"]["text"], "echo: first");

  auto client = replay_client(path);
  ASSERT_TRUE(client);
  auto a = client->complete(simple_request("first"));
  ASSERT_TRUE(a.ok()) << a.error().describe();
  EXPECT_EQ(a->text, "echo: first");
  EXPECT_TRUE(a->replayed);
  EXPECT_EQ(a->provider, "openai");
  EXPECT_EQ(a->usage.input_tokens, 1000);
  ASSERT_TRUE(a->cost_usd.has_value());  // priced as the recorded provider:model
  EXPECT_NEAR(*a->cost_usd, 0.0075, 1e-12);
  auto b = client->complete(simple_request("second"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->text, "echo: second");
  auto c = client->complete(simple_request("third"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, llm::LlmErrorKind::ReplayExhausted);
}

TEST(LlmReplay, MismatchNamesTheFirstDifference) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  record(path, {"write a reduction kernel for 1M floats"});
  auto client = replay_client(path);
  ASSERT_TRUE(client);
  auto r = client->complete(simple_request("write a reduction kernel for 2M floats"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ReplayMismatch);
  const std::string d = r.error().describe();
  EXPECT_NE(d.find("line 1"), std::string::npos) << d;
  EXPECT_NE(d.find("messages[1].content"), std::string::npos) << d;
  EXPECT_NE(d.find("character 29"), std::string::npos) << d;

  auto params_client = replay_client(path);
  auto changed = simple_request("write a reduction kernel for 1M floats");
  changed.params.temperature = 0.7;
  auto p = params_client->complete(changed);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().describe().find("params.temperature"), std::string::npos) << p.error().describe();
}

TEST(LlmReplay, OrderIsStrictUnlessReorderAllowed) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  record(path, {"a", "b", "c"});
  auto strict = replay_client(path);
  EXPECT_EQ(strict->complete(simple_request("b")).error().kind, llm::LlmErrorKind::ReplayMismatch);
  auto loose = replay_client(path, /*reorder=*/true);
  EXPECT_EQ(loose->complete(simple_request("b"))->text, "echo: b");
  EXPECT_EQ(loose->complete(simple_request("a"))->text, "echo: a");
  EXPECT_EQ(loose->complete(simple_request("c"))->text, "echo: c");
  EXPECT_EQ(loose->complete(simple_request("a")).error().kind, llm::LlmErrorKind::ReplayExhausted);
}

// Task: system prompts + the first line of the user prompt; conversations (here: "# Task: a" and
// "# Task: b") may interleave, each keeps its recorded order; the rest of the user text is free.
TEST(LlmReplay, TaskMatchKeepsEachConversationsOrderAndIgnoresMeasurements) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  record(path, {"# Task: a\nplan 1", "# Task: a\nplan 2", "# Task: b\nplan 1", "# Task: b\nplan 2"});
  auto task = replay_client(path, false, llm::ReplayMatch::Task);
  ASSERT_TRUE(task);
  EXPECT_EQ(task->complete(simple_request("# Task: b\ntimes measured here"))->text, "echo: # Task: b\nplan 1");
  EXPECT_EQ(task->complete(simple_request("# Task: a\nother times"))->text, "echo: # Task: a\nplan 1");
  EXPECT_EQ(task->complete(simple_request("# Task: a"))->text, "echo: # Task: a\nplan 2");
  EXPECT_EQ(task->complete(simple_request("# Task: b\n"))->text, "echo: # Task: b\nplan 2");
  EXPECT_EQ(task->complete(simple_request("# Task: a\nplan 1")).error().kind, llm::LlmErrorKind::ReplayExhausted);

  // A heading that was never recorded, or another system prompt, is a mismatch named against the
  // next unused exchange of the same conversation.
  auto other = replay_client(path, false, llm::ReplayMatch::Task);
  const auto c = other->complete(simple_request("# Task: c\nplan 1"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, llm::LlmErrorKind::ReplayMismatch);
  EXPECT_EQ(other->complete(simple_request("# Task: b\nplan 1"))->text, "echo: # Task: b\nplan 1");
  const auto sys = other->complete(simple_request("# Task: b\nplan 2", "You review CUDA."));
  ASSERT_FALSE(sys.ok());
  const std::string d = sys.error().describe();
  EXPECT_NE(d.find("line 4"), std::string::npos) << d;
  EXPECT_NE(d.find("messages[0].content"), std::string::npos) << d;

  // SystemOnly serves the next exchange whatever its heading; Full wants the whole text.
  auto system_only = replay_client(path, false, llm::ReplayMatch::SystemOnly);
  EXPECT_EQ(system_only->complete(simple_request("# Task: b\nplan 1"))->text, "echo: # Task: a\nplan 1");
  auto full = replay_client(path, false, llm::ReplayMatch::Full);
  EXPECT_EQ(full->complete(simple_request("# Task: a\nother times")).error().kind, llm::LlmErrorKind::ReplayMismatch);
}

TEST(LlmReplay, RecordedErrorsReplayAsTheSameTypedError) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  auto stub = std::make_unique<StubProvider>("anthropic", "claude-sonnet-4-5");
  llm::LlmError e = llm::make_error(llm::LlmErrorKind::Overloaded, "anthropic", "");
  e.http_status = 529;
  e.server_message = "overloaded_error: Overloaded";
  e.attempts = 6;
  stub->fail_with = e;
  {
    auto rec = llm::make_recording_provider(std::move(stub), path);
    ASSERT_TRUE(rec.ok());
    EXPECT_FALSE((*rec)->complete(simple_request("x")).ok());
  }
  auto client = replay_client(path);
  auto r = client->complete(simple_request("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::Overloaded);
  EXPECT_EQ(r.error().describe(), e.describe());
}

TEST(LlmReplay, BadCassettesAreTypedErrors) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  record(path, {"a"});
  std::string text = read_file(path);
  write_file(path, text + text.substr(0, text.size() / 2) + "\n");  // a second line cut in half
  llm::ClientOptions o;
  o.llm = "replay:" + path;
  auto c = llm::LlmClient::create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().describe().find("line 2"), std::string::npos) << c.error().describe();

  write_file(path, R"({"request":{"messages":[]}})" "\n");
  auto d = llm::LlmClient::create(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().describe().find("neither 'response' nor 'error'"), std::string::npos);

  o.llm = "replay:" + dir.file("missing.jsonl");
  auto m = llm::LlmClient::create(o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, llm::LlmErrorKind::Io);
}

TEST(LlmReplay, RecordingRejectsReplayAndUnwritablePaths) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  record(path, {"a"});
  llm::ClientOptions o;
  o.llm = "replay:" + path;
  o.record_path = dir.file("again.jsonl");
  auto c = llm::LlmClient::create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, llm::LlmErrorKind::InvalidArgument);
  auto bad = llm::make_recording_provider(std::make_unique<StubProvider>(), dir.file("no/such/dir/c.jsonl"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, llm::LlmErrorKind::Io);
}

TEST(LlmReplay, InvalidUtf8InPromptsIsRecordedNotFatal) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  std::string prompt = "nvcc said: \xff\xfe garbage";
  record(path, {prompt});
  EXPECT_EQ(read_lines(path).size(), 1u);
  EXPECT_TRUE(nlohmann::json::accept(read_lines(path)[0]));
}

TEST(LlmSerialize, ResponseRoundTrip) {
  llm::ChatResponse r;
  r.provider = "anthropic";
  r.model = "claude-haiku-4-5";
  r.text = "hi";
  r.reasoning_text = "thinking...";
  r.finish_reason = llm::FinishReason::Length;
  r.finish_reason_raw = "max_tokens";
  r.usage.input_tokens = 5;
  r.usage.cached_input_tokens = 2;
  r.usage.output_tokens = 7;
  r.usage.reasoning_tokens = 3;
  r.usage.reasoning_reported = true;
  r.cost_usd = 0.25;
  r.latency = std::chrono::milliseconds{123};
  r.attempts = 2;
  r.raw_request = "{\"a\":1}";
  r.raw_response = "{\"b\":2}";
  auto back = llm::chat_response_from_json(llm::to_json(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(llm::to_json(*back), llm::to_json(r));

  llm::ChatRequest q = simple_request("u");
  q.params.stop = {"```"};
  q.params.seed = 7;
  q.params.reasoning_effort = "high";
  q.params.thinking_budget_tokens = 1024;
  auto qb = llm::chat_request_from_json(llm::to_json(q));
  ASSERT_TRUE(qb.ok());
  EXPECT_EQ(llm::to_json(*qb), llm::to_json(q));
  EXPECT_EQ(llm::first_difference(llm::to_json(q), llm::to_json(*qb)), "");
}

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "support/llm_doubles.hpp"

using namespace cmtest;

TEST(LlmPricing, BuiltinTableParsesAndCoversTheDefaults) {
  // builtin() silently yields an empty table if data/pricing.json were broken; parse it loudly.
  auto direct = llm::PricingTable::load_file(CM_PRICING_FILE);
  ASSERT_TRUE(direct.ok()) << direct.error().describe();
  const auto table = llm::PricingTable::builtin();
  EXPECT_EQ(table.size(), direct->size());
  EXPECT_GT(table.size(), 10u);
  for (const auto& [provider, model] : std::vector<std::pair<std::string, std::string>>{
           {"openai", "gpt-4o"}, {"openai", "gpt-4o-mini-2024-07-18"}, {"openai", "gpt-5"},
           {"openai", "o3"}, {"openai", "o4-mini"}, {"anthropic", "claude-sonnet-4-5-20250929"},
           {"anthropic", "claude-opus-4-1"}, {"anthropic", "claude-haiku-4-5"},
           {"openai-compatible", "anything/local"}})
    EXPECT_TRUE(table.find(provider, model).has_value()) << provider << ":" << model;
  EXPECT_FALSE(table.find("openai", "no-such-model").has_value());
}

TEST(LlmPricing, LongestPrefixWinsAndQualifiedBeatsBare) {
  llm::PricingTable t;
  t.set("openai:gpt-4o*", {2.5, 10, std::nullopt, std::nullopt});
  t.set("openai:gpt-4o-mini*", {0.15, 0.6, std::nullopt, std::nullopt});
  t.set("gpt-4o-mini*", {99, 99, std::nullopt, std::nullopt});
  t.set("exact-model", {1, 2, std::nullopt, std::nullopt});
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o-2024-08-06")->input, 2.5);
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o-mini")->input, 0.15);
  EXPECT_DOUBLE_EQ(t.find("openai-compatible", "gpt-4o-mini")->input, 99);  // bare pattern
  EXPECT_DOUBLE_EQ(t.find("anthropic", "exact-model")->output, 2);
  EXPECT_FALSE(t.find("anthropic", "gpt-4").has_value());
}

TEST(LlmPricing, CostSplitsCachedAndReasoningTokens) {
  llm::ModelPrice p{2.0, 8.0, 0.5, 20.0};
  llm::Usage u;
  u.input_tokens = 1'000'000;
  u.cached_input_tokens = 400'000;
  u.output_tokens = 300'000;
  u.reasoning_tokens = 100'000;
  // 0.6M*2 + 0.4M*0.5 + 0.2M*8 + 0.1M*20
  EXPECT_NEAR(llm::compute_cost(u, p), 1.2 + 0.2 + 1.6 + 2.0, 1e-12);
  llm::ModelPrice plain{2.0, 8.0, std::nullopt, std::nullopt};  // cached at input, reasoning at output
  EXPECT_NEAR(llm::compute_cost(u, plain), 2.0 + 2.4, 1e-12);
}

TEST(LlmPricing, OverrideFileMergesOverBuiltin) {
  TempDir dir;
  const std::string path = dir.file("prices.json");
  write_file(path, R"({"models": {"openai:gpt-4o*": {"input": 1, "output": 2},
                                   "openai-compatible:my-model": {"input": 0.5, "output": 0.5}}})");
  auto t = llm::PricingTable::load_default(path);
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_DOUBLE_EQ(t->find("openai", "gpt-4o")->input, 1);
  EXPECT_DOUBLE_EQ(t->find("openai-compatible", "my-model")->input, 0.5);
  EXPECT_TRUE(t->find("anthropic", "claude-sonnet-4-5").has_value());  // builtin entries kept

  // Same through the environment variable.
  setenv("CUDAMASTER_PRICING", path.c_str(), 1);
  auto from_env = llm::PricingTable::load_default(std::nullopt);
  unsetenv("CUDAMASTER_PRICING");
  ASSERT_TRUE(from_env.ok());
  EXPECT_DOUBLE_EQ(from_env->find("openai", "gpt-4o")->output, 2);
}

TEST(LlmPricing, BadFilesAreTypedErrors) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not a JSON object"},
      {R"({"prices": {}})", "missing object \"models\""},
      {R"({"models": {"m": {"input": 1}}})", "'output'"},
      {R"({"models": {"m": {"input": -1, "output": 1}}})", "non-negative"},
      {R"({"models": {"m": {"input": 1, "ouput": 1, "output": 2}}})", "unknown field 'ouput'"},
  };
  for (const auto& [text, expect] : cases) {
    const std::string path = dir.file("bad.json");
    write_file(path, text);
    auto t = llm::PricingTable::load_default(path);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_NE(t.error().describe().find(expect), std::string::npos) << t.error().describe();
  }
  auto missing = llm::PricingTable::load_default(dir.file("nope.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, llm::LlmErrorKind::Io);
}

TEST(LlmBudget, RefusesOnceSpent) {
  llm::Budget b(1.0);
  EXPECT_TRUE(b.admit("openai").ok());
  b.charge(0.6);
  EXPECT_TRUE(b.admit("openai").ok());
  b.charge(0.6);  // overshoot by the call in flight
  auto refused = b.admit("openai");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, llm::LlmErrorKind::BudgetExceeded);
  EXPECT_NE(refused.error().describe().find("$1.2000 of $1.0000"), std::string::npos) << refused.error().describe();
  EXPECT_EQ(b.calls(), 2);
  EXPECT_EQ(b.refused(), 1);
  EXPECT_NEAR(*b.remaining_usd(), -0.2, 1e-12);

  llm::Budget zero(0.0);
  EXPECT_FALSE(zero.admit("x").ok());
  llm::Budget unlimited;
  unlimited.charge(1e6);
  unlimited.charge(std::nullopt);
  EXPECT_TRUE(unlimited.admit("x").ok());
  EXPECT_EQ(unlimited.calls(), 2);
}

TEST(LlmBudget, ThreadSafeAccounting) {
  llm::Budget b(1e9);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        ASSERT_TRUE(b.admit("p").ok());
        b.charge(0.25);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(b.calls(), 16000);
  EXPECT_DOUBLE_EQ(b.spent_usd(), 4000.0);
}

TEST(LlmClient, BudgetRefusesTheNextCallAndSendsNothing) {
  auto stub = std::make_unique<StubProvider>("openai", "gpt-4o");  // 1000 in, 500 out
  StubProvider* raw = stub.get();
  auto budget = std::make_shared<llm::Budget>(0.01);  // one call costs 0.0025 + 0.005 = 0.0075
  llm::LlmClient client(std::move(stub), llm::PricingTable::builtin(), budget);
  auto first = client.complete(simple_request("a"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->cost_usd.has_value());
  EXPECT_NEAR(*first->cost_usd, 0.0075, 1e-12);
  ASSERT_TRUE(client.complete(simple_request("b")).ok());  // 0.0075 < 0.01: admitted
  auto third = client.complete(simple_request("c"));
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().kind, llm::LlmErrorKind::BudgetExceeded);
  EXPECT_EQ(raw->calls.load(), 2);
  EXPECT_NEAR(budget->spent_usd(), 0.015, 1e-12);
}

TEST(LlmClient, BudgetSharedByConcurrentConversations) {
  auto budget = std::make_shared<llm::Budget>(0.075);  // ten calls' worth
  llm::LlmClient client(std::make_unique<StubProvider>("openai", "gpt-4o"), llm::PricingTable::builtin(), budget);
  std::atomic<int> ok{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto r = client.complete(simple_request("x"));
        if (r.ok()) ++ok;
        else if (r.error().kind == llm::LlmErrorKind::BudgetExceeded) ++refused;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok + refused, 80);
  EXPECT_GE(ok.load(), 10);
  EXPECT_LE(ok.load(), 10 + 3);  // at most the other conversations' in-flight calls overshoot
  EXPECT_GE(budget->spent_usd(), 0.075 - 1e-12);
}

TEST(LlmClient, BudgetWithUnpricedModelFailsAtCreate) {
  llm::ClientOptions o;
  o.llm = "openai:some-future-model";
  o.budget = std::make_shared<llm::Budget>(5.0);
  o.provider.env = env_map({{"OPENAI_API_KEY", "k"}});
  o.provider.transport = std::make_shared<ScriptedTransport>();
  auto c = llm::LlmClient::create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, llm::LlmErrorKind::UnknownPrice);
  o.budget.reset();  // without a budget an unknown price is allowed (cost reported as unknown)
  EXPECT_TRUE(llm::LlmClient::create(o).ok());
}

TEST(LlmClient, MissingKeysAreTypedErrors) {
  llm::ClientOptions o;
  o.provider.env = env_map({});
  o.provider.transport = std::make_shared<ScriptedTransport>();
  o.llm = "openai:gpt-4o";
  auto a = llm::LlmClient::create(o);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, llm::LlmErrorKind::MissingCredentials);
  EXPECT_NE(a.error().describe().find("OPENAI_API_KEY"), std::string::npos);
  o.llm = "anthropic:claude-sonnet-4-5";
  auto b = llm::LlmClient::create(o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().describe().find("ANTHROPIC_API_KEY"), std::string::npos);
  o.llm = "openai-compatible:http://127.0.0.1:1/v1:m";  // key optional
  EXPECT_TRUE(llm::LlmClient::create(o).ok());
}

// Found by tests/fuzz (cassette): a token count of 1e126 was converted to an integer (undefined
// behaviour), and a negative one would have been billed as a credit. A reply whose usage is not a
// count from 0 to 10^12 is malformed; absent or null counts read as 0 / not reported.
TEST(LlmClient, UsageThatIsNotATokenCountIsAMalformedReply) {
  const auto complete_with = [](const std::string& spec, const std::string& body) {
    auto t = std::make_shared<ScriptedTransport>();
    t->push(200, body);
    llm::ClientOptions o;
    o.llm = spec;
    o.provider.env = env_map({{"OPENAI_API_KEY", "k"}, {"ANTHROPIC_API_KEY", "k"}});
    o.provider.transport = t;
    o.provider.retry.max_attempts = 1;
    auto c = llm::LlmClient::create(o);
    EXPECT_TRUE(c.ok());
    return (*c)->complete(simple_request("Write a kernel."));
  };
  const auto openai = [](const std::string& usage) {
    return R"({"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}], "usage": )" + usage + "}";
  };
  const auto anthropic = [](const std::string& usage) {
    return R"({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": )" + usage + "}";
  };
  for (const std::string usage : {R"({"prompt_tokens": 1e126, "completion_tokens": 3})", R"({"prompt_tokens": -5, "completion_tokens": 3})",
                                  R"({"prompt_tokens": 5, "completion_tokens": "3"})",
                                  R"({"prompt_tokens": 5, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": -1}})",
                                  R"({"prompt_tokens": 5, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 18446744073709551615}})"}) {
    auto r = complete_with("openai:gpt-4o", openai(usage));
    ASSERT_FALSE(r.ok()) << usage;
    EXPECT_EQ(r.error().kind, llm::LlmErrorKind::MalformedResponse) << usage;
    EXPECT_NE(r.error().describe().find("is not a count from 0 to 10^12"), std::string::npos) << r.error().describe();
  }
  for (const std::string usage : {R"({"input_tokens": 9e18, "output_tokens": 1, "cache_read_input_tokens": 9e18})",
                                  R"({"input_tokens": 5, "output_tokens": -1})"}) {
    auto r = complete_with("anthropic:claude-sonnet-4-5", anthropic(usage));
    ASSERT_FALSE(r.ok()) << usage;
    EXPECT_EQ(r.error().kind, llm::LlmErrorKind::MalformedResponse) << usage;
  }
  auto ok = complete_with("openai:gpt-4o", openai(R"({"prompt_tokens": 7, "completion_tokens": 2.0, "completion_tokens_details": {"reasoning_tokens": null}})"));
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ(ok->usage.input_tokens, 7);
  EXPECT_EQ(ok->usage.output_tokens, 2);
  EXPECT_FALSE(ok->usage.reasoning_reported);
  auto a = complete_with("anthropic:claude-sonnet-4-5", anthropic(R"({"input_tokens": 100, "output_tokens": 4, "cache_read_input_tokens": 1000})"));
  ASSERT_TRUE(a.ok()) << a.error().describe();
  EXPECT_EQ(a->usage.input_tokens, 1100);
  EXPECT_EQ(a->usage.cached_input_tokens, 1000);
}

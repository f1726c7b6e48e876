#include <gtest/gtest.h>

#include "cudamaster/llm/provider_spec.hpp"

namespace llm = cudamaster::llm;

TEST(LlmProviderSpec, OpenAIAndAnthropic) {
  auto o = llm::parse_provider_spec("openai:gpt-4o-mini");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->kind, llm::ProviderKind::OpenAI);
  EXPECT_EQ(o->model, "gpt-4o-mini");
  auto a = llm::parse_provider_spec("anthropic:claude-sonnet-4-5");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, llm::ProviderKind::Anthropic);
  EXPECT_EQ(a->model, "claude-sonnet-4-5");
  // Fine-tune names contain ':' - everything after the provider is the model.
  auto ft = llm::parse_provider_spec("openai:ft:gpt-4o-mini:org::abc");
  ASSERT_TRUE(ft.ok());
  EXPECT_EQ(ft->model, "ft:gpt-4o-mini:org::abc");
}

struct CompatCase {
  const char* text;
  const char* url;
  const char* model;
};

class LlmProviderSpecCompat : public ::testing::TestWithParam<CompatCase> {};

TEST_P(LlmProviderSpecCompat, SplitsUrlAndModel) {
  const CompatCase& c = GetParam();
  auto s = llm::parse_provider_spec(c.text);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->kind, llm::ProviderKind::OpenAICompatible);
  EXPECT_EQ(s->base_url, c.url);
  EXPECT_EQ(s->model, c.model);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LlmProviderSpecCompat,
    ::testing::Values(
        CompatCase{"openai-compatible:http://localhost:8000/v1:meta-llama/Llama-3.1-8B-Instruct",
                   "http://localhost:8000/v1", "meta-llama/Llama-3.1-8B-Instruct"},
        CompatCase{"openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b",  // Ollama tag
                   "http://127.0.0.1:11434/v1", "llama3.1:8b"},
        CompatCase{"openai-compatible:https://api.example.com/v1/:qwen", "https://api.example.com/v1", "qwen"},
        CompatCase{"openai-compatible:http://gpu-node:30000:default", "http://gpu-node:30000", "default"},
        CompatCase{"openai-compatible:http://gpu-node:model-x", "http://gpu-node", "model-x"},
        CompatCase{"openai-compatible:http://[::1]:8080/v1:m", "http://[::1]:8080/v1", "m"}));

TEST(LlmProviderSpec, CompatibleMatchesLastColonRuleWithoutTags) {
  const std::string text = "openai-compatible:http://host:8000/v1:mistral";
  auto s = llm::parse_provider_spec(text);
  ASSERT_TRUE(s.ok());
  const std::string rest = text.substr(text.find(':') + 1);
  EXPECT_EQ(s->base_url, rest.substr(0, rest.rfind(':')));
  EXPECT_EQ(s->model, rest.substr(rest.rfind(':') + 1));
}

TEST(LlmProviderSpec, Replay) {
  auto r = llm::parse_provider_spec("replay:/tmp/dir:with:colons/run.jsonl");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, llm::ProviderKind::Replay);
  EXPECT_EQ(r->path, "/tmp/dir:with:colons/run.jsonl");
}

TEST(LlmProviderSpec, Errors) {
  for (const char* bad : {"gpt-4o", "openai:", "anthropic: ", "nosuch:model", "openai-compatible:gpt-4o",
                          "openai-compatible:http://localhost:8000", "openai-compatible:http://h:8000/v1:",
                          "openai-compatible:ftp://h/v1:m", "replay:"}) {
    auto s = llm::parse_provider_spec(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().kind, llm::LlmErrorKind::InvalidArgument) << bad;
    EXPECT_NE(s.error().describe().find(bad), std::string::npos) << s.error().describe();
    EXPECT_EQ(s.error().describe().find('\n'), std::string::npos);
  }
}

TEST(LlmProviderSpec, ReasoningModels) {
  for (const char* m : {"o1", "o1-mini", "o3", "o3-mini-2025-01-31", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano",
                        "GPT-5", "ft:o4-mini-2025-04-16:org::x", "gpt-5.1"})
    EXPECT_TRUE(llm::is_openai_reasoning_model(m)) << m;
  for (const char* m : {"gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "omni-moderation-latest", "gpt-3.5-turbo"})
    EXPECT_FALSE(llm::is_openai_reasoning_model(m)) << m;
}

// What cudamaster reads from a model, whatever the model writes. Input: one byte of options, the
// rest is the text.
// - parse_code_answer (the Coder's and Debug agent's answer): never throws; ok exactly when no
//   problem was found and code was taken; each problem one line.
// - parse_plan (the Planner's answer): never throws; a structured plan or a problem saying why not;
//   its summary one line.
// - a 2xx or error reply body of the OpenAI, Anthropic and OpenAI-compatible APIs (through a
//   transport that returns the input): a response or a typed error whose describe() is one line,
//   never an exception.
#include <memory>
#include <stdexcept>

#include "cudamaster/agents/agents.hpp"
#include "cudamaster/agents/code_answer.hpp"
#include "cudamaster/llm/provider.hpp"
#include "fuzz_support.hpp"

namespace llm = cudamaster::llm;
namespace agents = cudamaster::agents;

namespace {

class ReplyTransport : public llm::HttpTransport {
 public:
  int status = 200;
  std::string body;
  std::string retry_after;
  llm::Result<llm::HttpResponse> post(const llm::HttpRequest&, const llm::HttpOptions&, const std::string&) override {
    llm::HttpResponse r;
    r.status = status;
    r.body = body;
    if (!retry_after.empty()) r.headers.push_back({"retry-after", retry_after});
    return r;
  }
};

void code_answer(const std::string& text, bool truncated) {
  agents::EntryPoint entry;
  entry.symbol = "spmv_csr";
  entry.signature = "void spmv_csr(int rows, const int* offsets, const int* cols, const float* values, const float* x, float* y)";
  entry.pointer_params = {false, true, true, true, true, true};
  agents::CodeAnswer a;
  try {
    a = agents::parse_code_answer(text, entry, truncated);
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "parse_code_answer");
  }
  FUZZ_REQUIRE(a.ok == (a.problems.empty() && !a.code.empty()), "ok disagrees with the problems found");
  for (const auto& p : a.problems) fuzz::require_one_line(p, "parse_code_answer problem");
  FUZZ_REQUIRE(a.blocks >= 0, "negative block count");
}

void plan(const std::string& text) {
  try {
    const agents::Plan p = agents::parse_plan(text);
    FUZZ_REQUIRE(p.structured || !p.problems.empty(), "an unstructured plan without a problem said");
    FUZZ_REQUIRE(p.raw == text, "the plan lost the answer's text");
    fuzz::require_one_line(p.summary().empty() ? std::string("-") : p.summary(), "Plan::summary");
    (void)p.render();
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "parse_plan");
  }
}

void reply(const std::string& body, std::uint8_t options) {
  static const char* const specs[] = {"openai:gpt-4o", "anthropic:claude-sonnet-4-5", "openai-compatible:http://127.0.0.1:9/v1:m",
                                      "openai:gpt-5"};
  static const int statuses[] = {200, 200, 200, 400, 401, 404, 429, 500, 503, 529, 201, 302};
  auto transport = std::make_shared<ReplyTransport>();
  transport->status = statuses[(options >> 2) % (sizeof statuses / sizeof *statuses)];
  transport->body = body;
  if (options & 0x80) transport->retry_after = body.substr(0, 12);
  auto spec = llm::parse_provider_spec(specs[options & 3]);
  FUZZ_REQUIRE(spec.ok(), "a provider spec of the fuzz target does not parse");
  llm::ProviderOptions o;
  o.transport = transport;
  o.env = [](const std::string& name) -> std::optional<std::string> {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, "_KEY") == 0) return std::string("fuzz-key");
    return std::nullopt;
  };
  o.retry.max_attempts = 1;
  o.retry.sleep = [](std::chrono::milliseconds) {};
  try {
    auto provider = llm::make_provider(*spec, o);
    FUZZ_REQUIRE(provider.ok(), "the provider was not made");
    llm::ChatRequest req;
    req.messages = {{llm::Role::System, "You write CUDA."}, {llm::Role::User, "Write a kernel."}};
    req.params.max_tokens = 256;
    auto r = (*provider)->complete(req);
    if (r.ok()) {
      FUZZ_REQUIRE(transport->status / 100 == 2, "a response from a non-2xx status");
      FUZZ_REQUIRE(r->usage.input_tokens >= 0 && r->usage.output_tokens >= 0, "negative token counts");
    } else {
      fuzz::require_one_line(r.error().describe(), "LlmError::describe");
    }
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "Provider::complete");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text = fuzz::text_of(data + 1, size - 1);
  code_answer(text, data[0] & 1);
  plan(text);
  reply(text, data[0]);
  return 0;
}

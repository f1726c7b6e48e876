// `cudamaster llm-check --llm P:M`: one tiny prompt, so a user can test keys and endpoints
// before a run spends anything. Prints the reply, latency and token usage (or --json).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "cudamaster/llm/llm.hpp"
#include "mskb/util/command_line.hpp"

namespace cudamaster::cli {
namespace {

struct LlmCheckOptions {
  std::string llm;
  std::string record;
  std::string pricing;
  std::string prompt = "Reply with exactly one word: pong";
  double budget_usd = -1;
  int max_tokens = 0;  // 0: 64, or 2048 for reasoning models (their thinking counts)
  double timeout_s = 120;
  int attempts = 3;
  std::size_t max_reply_bytes = llm::HttpOptions::kDefaultMaxReplyBytes;
  std::string json;  // --json: FILE, or "-" for stdout
};

std::string dump(const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); }

[[noreturn]] void fail(const LlmCheckOptions& o, const llm::LlmError& error) {
  if (!o.json.empty()) write_json_output(dump({{"ok", false}, {"llm", o.llm}, {"error", llm::to_json(error)}}), o.json);
  fmt::print(stderr, "cudamaster llm-check: {}\n", error.describe());
  throw CommandExit(1);
}

void run_llm_check(const LlmCheckOptions& o) {
  llm::ClientOptions options;
  options.llm = o.llm;
  if (!o.record.empty()) options.record_path = o.record;
  if (!o.pricing.empty()) options.pricing_path = o.pricing;
  if (o.budget_usd >= 0) options.budget = std::make_shared<llm::Budget>(o.budget_usd);
  options.provider.http.read_timeout =
      std::chrono::milliseconds{static_cast<std::int64_t>(o.timeout_s * 1000.0)};
  options.provider.retry.max_attempts = o.attempts;
  options.provider.http.max_reply_bytes = o.max_reply_bytes;

  auto client = llm::LlmClient::create(options);
  if (!client) fail(o, client.error());

  const auto spec = llm::parse_provider_spec(o.llm);
  const bool reasoning = spec.ok() && spec->kind == llm::ProviderKind::OpenAI &&
                         llm::is_openai_reasoning_model(spec->model);
  llm::ChatRequest request;
  request.messages = {{llm::Role::System, "You are a connectivity check. Answer as briefly as possible."},
                      {llm::Role::User, o.prompt}};
  request.params.max_tokens = o.max_tokens > 0 ? o.max_tokens : (reasoning ? 2048 : 64);
  if (reasoning) request.params.reasoning_effort = "low";
  else request.params.temperature = 0.0;

  auto response = (*client)->complete(request);
  if (!response) fail(o, response.error());
  const llm::ChatResponse& r = *response;

  if (!o.json.empty()) {
    nlohmann::json j = llm::to_json(r, /*include_raw=*/false);
    j["ok"] = true;
    j["llm"] = o.llm;
    j["reply"] = r.text;
    if (!o.record.empty()) j["recorded_to"] = o.record;
    write_json_output(dump(j), o.json);
    if (o.json == "-") return;
  }
  const llm::Usage& u = r.usage;
  fmt::print("llm:      {} -> {}\n", o.llm, r.endpoint.empty() ? (*client)->provider().endpoint() : r.endpoint);
  if (!r.response_model.empty()) fmt::print("model:    {}\n", r.response_model);
  fmt::print("reply:    {}\n", r.text);
  fmt::print("finish:   {}{}\n", llm::to_string(r.finish_reason),
             r.finish_reason_raw.empty() ? "" : fmt::format(" ({})", r.finish_reason_raw));
  fmt::print("latency:  {} ms ({} attempt{}{})\n", r.latency.count(), r.attempts, r.attempts == 1 ? "" : "s",
             r.replayed ? ", replayed" : "");
  fmt::print("tokens:   input {} (cached {}), output {} (reasoning {})\n", u.input_tokens, u.cached_input_tokens,
             u.output_tokens, u.reasoning_reported ? std::to_string(u.reasoning_tokens) : "not reported");
  if (r.cost_usd) fmt::print("cost:     ${:.6f}\n", *r.cost_usd);
  else fmt::print("cost:     unknown (no price for this model; see --pricing)\n");
  if (!o.record.empty()) fmt::print("recorded: {}\n", o.record);
  if (r.text.empty() && r.finish_reason == llm::FinishReason::Length)
    fmt::print(stderr, "hint: empty reply because the token limit was reached; try --max-tokens 4096\n");
}

}  // namespace

void add_llm_check_command(CLI::App& app) {
  auto o = std::make_shared<LlmCheckOptions>();
  CLI::App* cmd = app.add_subcommand("llm-check", "Send one tiny prompt to an LLM endpoint; print reply, latency, tokens");
  cmd->add_option("--llm", o->llm,
                  "PROVIDER:MODEL: openai:MODEL, anthropic:MODEL, openai-compatible:URL:MODEL, replay:FILE")
      ->required()
      ->envname("CUDAMASTER_LLM");
  cmd->add_option("--record", o->record, "Write the exchange to this cassette (JSON lines) for replay:FILE");
  cmd->add_option("--pricing", o->pricing, "Pricing overrides (JSON, same format as data/pricing.json)")->check(mskb::existing_file());
  cmd->add_option("--budget-usd", o->budget_usd, "Refuse to call once this many USD are spent")->check(mskb::non_negative());
  cmd->add_option("--prompt", o->prompt, "The user message to send");
  cmd->add_option("--max-tokens", o->max_tokens, "Token limit (default 64; 2048 for reasoning models)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--timeout", o->timeout_s, "Read timeout in seconds")->check(mskb::positive());
  cmd->add_option("--attempts", o->attempts, "HTTP attempts including retries")->check(CLI::Range(1, 100));
  cmd->add_option("--max-reply-bytes", o->max_reply_bytes, "Largest LLM reply read, in bytes (default 8 MiB; larger ones are refused)")
      ->envname("CUDAMASTER_MAX_REPLY_BYTES")
      ->check(mskb::positive());
  mskb::add_json_option(cmd, o->json, "Write the reply, latency and usage as one JSON object");
  cmd->callback([o] { run_llm_check(*o); });
}

}  // namespace cudamaster::cli

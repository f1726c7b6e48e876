// An exchange reply (`--llm exchange:DIR`: the file an outside answerer writes for a request) read
// by the exchange provider: any bytes give a response or a one-line typed error, never an
// exception; a response has text that is not blank, counts >= 0 and a cost >= 0 or none; a refused
// reply is moved aside (the request waits again, no reply file is left in its place).
// Input: one byte of options (bit 0: the largest reply read is 64 bytes instead of 1 MiB), the rest
// is the reply, with every "@ID@" replaced by the request's id (so inputs reach past the id check).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/provider.hpp"
#include "cudamaster/llm/provider_spec.hpp"
#include "fuzz_support.hpp"

namespace llm = cudamaster::llm;
namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static fuzz::ScratchFile scratch("unused");
  const fs::path dir = scratch.dir() / "exchange";
  std::error_code ec;
  fs::remove_all(dir, ec);
  llm::ProviderOptions o;
  o.http.max_reply_bytes = (data[0] & 1) != 0 ? 64 : std::size_t{1} << 20;
  try {
    auto spec = llm::parse_provider_spec("exchange:" + dir.string() + ":fuzz");
    FUZZ_REQUIRE(spec.ok(), "the exchange spec does not parse");
    auto provider = llm::make_provider(*spec, o);
    FUZZ_REQUIRE(provider.ok(), "make_provider(exchange) failed");
    llm::ChatRequest req;
    req.messages = {{llm::Role::System, "You write CUDA kernels."}, {llm::Role::User, "Make it faster."}};
    req.context.name = "run1-vector_add-fp32-step0001-coder";
    req.context.fields = {{"run", "1"}, {"agent", "coder"}};

    // The first call writes the request and finds no reply.
    auto first = (*provider)->complete(req);
    FUZZ_REQUIRE(!first.ok() && first.error().kind == llm::LlmErrorKind::AwaitingReply, "no reply yet is AwaitingReply");
    const fs::path request_file = dir / (req.context.name + ".request.json");
    std::ifstream in(request_file);
    const nlohmann::json request = nlohmann::json::parse(in, nullptr, false);
    FUZZ_REQUIRE(request.is_object() && request.contains("id") && request["id"].is_string(), "the request file has an id");
    const std::string id = request["id"].get<std::string>();

    const std::string reply = replace_all(fuzz::text_of(data + 1, size - 1), "@ID@", id);
    const fs::path reply_file = dir / (req.context.name + ".reply.json");
    {
      std::ofstream out(reply_file, std::ios::binary);
      out << reply;
    }
    auto r = (*provider)->complete(req);
    if (r.ok()) {
      FUZZ_REQUIRE(r->text.find_first_not_of(" \t\r\n") != std::string::npos, "an accepted reply has text");
      FUZZ_REQUIRE(r->usage.input_tokens >= 0 && r->usage.output_tokens >= 0 && r->usage.cached_input_tokens >= 0 &&
                       r->usage.reasoning_tokens >= 0,
                   "an accepted reply's token counts are >= 0");
      FUZZ_REQUIRE(!r->cost_usd || *r->cost_usd >= 0, "an accepted reply's cost is >= 0");
      FUZZ_REQUIRE(reply.size() <= o.http.max_reply_bytes, "a reply over the limit was accepted");
      fuzz::note("exchange", "accepted");
    } else {
      fuzz::require_one_line(r.error().describe(), "exchange reply");
      FUZZ_REQUIRE(r.error().kind != llm::LlmErrorKind::AwaitingReply, "a written reply was not seen");
      FUZZ_REQUIRE(!fs::exists(reply_file, ec), "a refused reply was left in place: " + r.error().describe());
    }
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "exchange provider");
  }
  return 0;
}

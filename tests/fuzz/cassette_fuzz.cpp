// A replay cassette (`--llm replay:FILE`: a recording others share, e.g. data/demo/*.jsonl): any
// bytes give a provider or a typed error naming the line, never an exception; replaying the
// cassette's own first request (and a request it does not hold) gives a response or a one-line error.
// Input: one byte of options (reorder, match mode), the rest is the cassette.
#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

#include "cudamaster/llm/provider.hpp"
#include "cudamaster/llm/provider_spec.hpp"
#include "cudamaster/llm/serialize.hpp"
#include "fuzz_support.hpp"

namespace llm = cudamaster::llm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static fuzz::ScratchFile file("cassette.jsonl");
  const std::string text = fuzz::text_of(data + 1, size - 1);
  const std::string& path = file.write(data + 1, size - 1);
  llm::ProviderOptions o;
  o.replay_allow_reorder = (data[0] & 1) != 0;
  o.replay_match = static_cast<llm::ReplayMatch>((data[0] >> 1) % 3);
  try {
    auto spec = llm::parse_provider_spec("replay:" + path);
    FUZZ_REQUIRE(spec.ok(), "the replay spec does not parse");
    auto provider = llm::make_provider(*spec, o);
    if (!provider.ok()) {
      fuzz::require_one_line(provider.error().describe(), "make_provider(replay)");
      return 0;
    }
    std::vector<llm::ChatRequest> requests;
    std::istringstream lines(text);
    std::string first;
    std::getline(lines, first);
    const nlohmann::json j = nlohmann::json::parse(first, nullptr, false);
    if (j.is_object() && j.contains("request"))
      if (auto r = llm::chat_request_from_json(j["request"]); r.ok()) requests.push_back(*r);
    llm::ChatRequest other;
    other.messages = {{llm::Role::User, "a request the cassette does not hold"}};
    requests.push_back(other);
    for (const auto& req : requests) {
      auto r = (*provider)->complete(req);
      if (!r.ok()) fuzz::require_one_line(r.error().describe(), "replay complete");
    }
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "replay provider");
  }
  return 0;
}

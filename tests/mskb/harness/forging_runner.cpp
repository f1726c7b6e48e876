// A runner that lies, for mskb_harness_integrity_test: speaks the report protocol like mskb-runner's verifier
// but forges, truncates, repeats or reorders events as FORGE_MODE says, so the parent's checks
// (token, planned sequence) can be seen to reject it. No GPU.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {
int g_fd = 3;
void emit(const json& j) {
  const std::string line = j.dump() + "\n";
  if (::write(g_fd, line.data(), line.size()) < 0) std::exit(9);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  g_fd = std::atoi(argv[2]);
  std::ifstream f(argv[1]);
  const json req = json::parse(f);
  const std::string mode = std::getenv("FORGE_MODE") ? std::getenv("FORGE_MODE") : "honest";
  const std::string token = mode == "no_token" ? "" : mode == "wrong_token" ? "0123456789abcdef" : req.value("token", "");
  std::vector<json> events;
  if (mode == "notes") {  // what a verifier in the sandbox whose CUDA IPC failed sends beside its checks
    events.push_back({{"event", "sandbox"}, {"level", "landlock-7+seccomp"}});
    events.push_back({{"event", "note"}, {"key", "ipc"}, {"text", "GPU comparisons and device inputs went through the host from here on: x"}});
  }
  for (const json& c : req["checks"])
    for (const json& seed : c["seeds"]) {
      events.push_back({{"event", "check"}, {"shape", c["shape"]}, {"shape_str", "s"}, {"sweep", c["sweep"]}, {"seed", seed},
                        {"disposition", "passed"}, {"gap_us", 1.0}, {"call_us", 10.0}});
      for (const json& t : req["timings"])
        if (t["shape"] == c["shape"] && t["sweep"] == c["sweep"] && seed == c["seeds"].back())
          events.push_back({{"event", "timing"}, {"shape", c["shape"]}, {"shape_str", "s"}, {"sweep", c["sweep"]}, {"seed", seed},
                            {"time_us", {{"median", 100.0}, {"min", 99.0}, {"max", 101.0}, {"n", 20}, {"noise", 0.001}}},
                            {"after_timing", "passed"}});
    }
  if (mode == "zero_checks") events.clear();
  if (mode == "truncate") events.resize(events.size() / 2);
  if (mode == "repeat") events.insert(events.begin() + 1, events[0]);
  if (mode == "reorder") std::swap(events[0], events[1]);
  if (mode == "extra") events.push_back(events.back());
  for (json e : events) {
    if (!token.empty()) e["token"] = token;
    emit(e);
  }
  if (mode == "forged_line") emit({{"event", "check"}, {"disposition", "passed"}});  // a line without the token
  json done = {{"event", "done"}};
  if (!token.empty()) done["token"] = token;
  emit(done);
  return 0;
}

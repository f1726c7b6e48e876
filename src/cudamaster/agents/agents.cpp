#include "cudamaster/agents/agents.hpp"
#include "cudamaster/agents/source_text.hpp"

#include <algorithm>
#include <iterator>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/text.hpp"

namespace cudamaster::agents {

using nlohmann::json;

// Names in enum order (agents.hpp declares the enums; the static_asserts keep the tables in step).
namespace {
constexpr const char* kAgentNames[] = {"planner", "coder", "compiler", "debug"};
static_assert(std::size(kAgentNames) == static_cast<std::size_t>(Agent::debug) + 1);
constexpr const char* kProblemNames[] = {"unusable answer", "compile error", "integrity screen", "harness"};
static_assert(std::size(kProblemNames) == static_cast<std::size_t>(ProblemKind::harness) + 1);
template <class E, std::size_t N>
const char* name_of(E e, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}
}  // namespace

const char* to_string(Agent a) { return name_of(a, kAgentNames); }
const char* to_string(ProblemKind k) { return name_of(k, kProblemNames); }

std::optional<Agent> agent_of(const llm::ChatRequest& request) {
  // The system prompts (prompts/<agent>.system.md) open with "You are the <Agent>".
  for (const llm::Message& m : request.messages) {
    if (m.role != llm::Role::System) continue;
    const std::string head = m.content.substr(0, 64);
    if (head.find("You are the Planner") != std::string::npos) return Agent::planner;
    if (head.find("You are the Coder") != std::string::npos) return Agent::coder;
    if (head.find("You are the Compiler") != std::string::npos) return Agent::compiler;
    if (head.find("You are the Debug") != std::string::npos) return Agent::debug;
  }
  return std::nullopt;
}

namespace {

std::string trimmed(const std::string& s) { return mskb::trim(s); }

llm::ChatRequest make_request(PromptLibrary& prompts, Agent agent, const PromptVars& vars, const AgentSettings& s) {
  llm::ChatRequest r;
  const std::string name = to_string(agent);
  r.messages.push_back({llm::Role::System, trimmed(prompts.render(name + ".system", {}))});
  r.messages.push_back({llm::Role::User, trimmed(prompts.render(name + ".user", vars))});
  r.params.max_tokens = s.max_tokens;
  r.params.temperature = s.temperature;
  r.params.reasoning_effort = s.reasoning_effort;
  return r;
}

// JSON objects in ```json blocks (last first), then the outermost {...} of the text.
std::optional<json> find_json_object(const std::string& text) {
  std::vector<std::string> candidates;
  std::size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    std::string lang = trimmed(text.substr(pos + 3, eol - pos - 3));
    const std::size_t end = text.find("```", eol);
    const std::string body = text.substr(eol + 1, end == std::string::npos ? std::string::npos : end - eol - 1);
    if (lang.empty() || lang == "json" || lang == "JSON") candidates.push_back(body);
    if (end == std::string::npos) break;
    pos = end + 3;
  }
  std::reverse(candidates.begin(), candidates.end());
  const std::size_t first = text.find('{'), last = text.rfind('}');
  if (first != std::string::npos && last != std::string::npos && last > first) candidates.push_back(text.substr(first, last - first + 1));
  for (const std::string& c : candidates) {
    json j = json::parse(c, nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
  }
  return std::nullopt;
}

std::string str_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

// 2, 2.0, "2x", "~1.8x" -> number.
std::optional<double> number_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    const std::size_t d = s.find_first_of("0123456789");
    if (d == std::string::npos) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + d, &end);
    if (end != s.c_str() + d) return v;
  }
  return std::nullopt;
}

}  // namespace

// ---- Planner

std::string Plan::summary() const {
  if (!structured) {
    return collapse_whitespace(raw.substr(0, raw.find('\n')), 120);
  }
  std::string out;
  for (std::size_t i = 0; i < strategies.size(); ++i) out += (i ? "; " : "") + strategies[i].name;
  if (out.empty()) out = bottleneck;
  if (expected_speedup) out += fmt::format(" (expected {:.2g}x)", *expected_speedup);
  return collapse_whitespace(out);  // the names are the model's: a newline in one must not break the line
}

std::string Plan::render() const {
  if (!structured) return trimmed(raw);
  std::string out;
  if (!bottleneck.empty()) out += "Bottleneck: " + bottleneck + "\n";
  if (!strategies.empty()) {
    out += "Strategies, in the order to apply them:\n";
    for (std::size_t i = 0; i < strategies.size(); ++i) {
      const Strategy& s = strategies[i];
      out += fmt::format("{}. {}", i + 1, s.name);
      if (!s.change.empty()) out += ": " + s.change;
      if (!s.expected_gain.empty()) out += " (expected: " + s.expected_gain + ")";
      out += "\n";
    }
  }
  if (expected_speedup) out += fmt::format("Expected speedup over the current best: {:.2g}x\n", *expected_speedup);
  if (!risks.empty()) out += "Risks: " + risks + "\n";
  if (!rationale.empty()) out += "Rationale: " + rationale + "\n";
  return trimmed(out);
}

llm::ChatRequest planner_request(PromptLibrary& prompts, const PlannerInput& in, const AgentSettings& s) {
  PromptVars v = task_vars(prompts, in.task);
  v["round"] = std::to_string(in.round);
  v["rounds"] = std::to_string(in.rounds);
  v["best_label"] = in.best_label;
  v["best_summary"] = in.best_summary;
  v["best_code"] = trimmed(in.best_code);
  v["performance_table"] = render_performance_table(in.performance);
  v["profile"] = trimmed(in.profile);
  v["profile_absent"] = in.profile_absent.empty() ? "No profile is available." : in.profile_absent;
  v["history"] = render_history(in.history);
  return make_request(prompts, Agent::planner, v, s);
}

Plan parse_plan(const std::string& answer) {
  Plan p;
  p.raw = answer;
  const std::optional<json> j = find_json_object(answer);
  if (!j) {
    p.problems.push_back("no JSON plan object in the answer; the Coder gets the answer's text as the plan");
    if (trimmed(answer).empty()) p.problems.push_back("the answer is empty");
    return p;
  }
  p.structured = true;
  p.bottleneck = str_field(*j, "bottleneck");
  p.risks = str_field(*j, "risks");
  p.rationale = str_field(*j, "rationale");
  p.expected_speedup = number_field(*j, "expected_speedup");
  if (j->contains("expected_speedup") && !p.expected_speedup)
    p.problems.push_back("expected_speedup is not a number: " + (*j)["expected_speedup"].dump());
  auto it = j->find("strategies");
  if (it != j->end() && it->is_array()) {
    for (const json& s : *it) {
      Strategy st;
      if (s.is_string()) {
        st.name = s.get<std::string>();
      } else if (s.is_object()) {
        st.name = str_field(s, "name");
        st.change = str_field(s, "change");
        if (st.change.empty()) st.change = str_field(s, "description");
        st.expected_gain = str_field(s, "expected_gain");
      }
      if (!st.name.empty() || !st.change.empty()) p.strategies.push_back(st);
    }
  }
  if (p.strategies.empty()) p.problems.push_back("the plan lists no strategies");
  return p;
}

// ---- Coder

llm::ChatRequest coder_request(PromptLibrary& prompts, const CoderInput& in, const AgentSettings& s) {
  PromptVars v = task_vars(prompts, in.task);
  v["round"] = std::to_string(in.round);
  v["rounds"] = std::to_string(in.rounds);
  v["plan"] = in.plan ? in.plan->render() : "";
  v["best_label"] = in.best_label;
  v["best_summary"] = in.best_summary;
  v["best_code"] = trimmed(in.best_code);
  v["performance_table"] = render_performance_table(in.performance);
  v["profile"] = trimmed(in.profile);
  v["history"] = render_history(in.history);
  return make_request(prompts, Agent::coder, v, s);
}

CodeAnswer parse_coder_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated) {
  return parse_code_answer(answer, entry, finish_truncated);
}

// ---- Compiler

std::string describe(const BuildRecipe& r) {
  std::string flags;
  for (std::size_t i = 0; i < r.flags.size(); ++i) flags += (i ? " " : "") + r.flags[i];
  return fmt::format("arch {}, flags [{}], lineinfo {}", r.arch, flags, r.lineinfo ? "on" : "off");
}

llm::ChatRequest compiler_request(PromptLibrary& prompts, const CompilerInput& in, const AgentSettings& s) {
  PromptVars v = task_vars(prompts, in.task);
  v["arch"] = in.recipe.arch;
  std::string flags;
  for (std::size_t i = 0; i < in.recipe.flags.size(); ++i) flags += (i ? ", " : "") + in.recipe.flags[i];
  v["flags"] = flags;
  v["lineinfo"] = in.recipe.lineinfo ? "on" : "off";
  std::string archs;
  for (std::size_t i = 0; i < in.allowed_archs.size(); ++i) archs += (i ? ", " : "") + in.allowed_archs[i];
  v["allowed_archs"] = archs;
  v["allowed_flags"] = in.allowed_flags;
  v["log"] = trimmed(in.log);
  v["code"] = trimmed(in.code);
  return make_request(prompts, Agent::compiler, v, s);
}

CompilerAdvice parse_compiler_answer(const std::string& answer, const BuildRecipe& current,
                                     const std::vector<std::string>& allowed_archs) {
  CompilerAdvice a;
  a.recipe = current;
  const std::optional<json> j = find_json_object(answer);
  if (!j) {
    a.problems.push_back("no JSON recipe object in the answer");
    return a;
  }
  a.reason = str_field(*j, "reason");
  if (auto it = j->find("code_problem"); it != j->end() && it->is_boolean()) a.code_problem = it->get<bool>();
  if (auto it = j->find("arch"); it != j->end()) {
    std::string arch = it->is_string() ? it->get<std::string>() : it->dump();
    for (const char* prefix : {"sm_", "compute_"})
      if (arch.rfind(prefix, 0) == 0) arch = arch.substr(std::string(prefix).size());
    if (std::find(allowed_archs.begin(), allowed_archs.end(), arch) != allowed_archs.end())
      a.recipe.arch = arch;
    else
      a.problems.push_back("arch '" + arch + "' is not allowed; kept " + current.arch);
  }
  if (auto it = j->find("flags"); it != j->end()) {
    if (!it->is_array()) {
      a.problems.push_back("flags is not a list");
    } else {
      a.recipe.flags.clear();
      for (const json& f : *it) {
        if (!f.is_string()) continue;
        const std::string flag = f.get<std::string>();
        if (flag == "-O3") continue;  // part of the harness's recipe already
        try {
          mskb::check_flag(flag);
          a.recipe.flags.push_back(flag);
        } catch (const std::invalid_argument& e) {
          a.problems.push_back(std::string(e.what()) + "; dropped");
        }
      }
    }
  }
  if (auto it = j->find("lineinfo"); it != j->end() && it->is_boolean()) a.recipe.lineinfo = it->get<bool>();
  a.ok = true;
  return a;
}

// ---- Debug

llm::ChatRequest debug_request(PromptLibrary& prompts, const DebugInput& in, const AgentSettings& s) {
  PromptVars v = task_vars(prompts, in.task);
  v["plan"] = in.plan ? in.plan->render() : "";
  v["problem_kind"] = to_string(in.kind);
  v["problem"] = trimmed(in.problem);
  v["code"] = trimmed(in.code);
  v["attempt"] = std::to_string(in.attempt);
  v["attempts"] = std::to_string(in.attempts);
  std::string earlier;
  for (const std::string& e : in.earlier) earlier += "- " + e + "\n";
  v["earlier"] = trimmed(earlier);
  return make_request(prompts, Agent::debug, v, s);
}

CodeAnswer parse_debug_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated) {
  return parse_code_answer(answer, entry, finish_truncated);
}

}  // namespace cudamaster::agents

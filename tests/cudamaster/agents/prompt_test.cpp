// Prompt templates: the template engine, the task brief (no held-out shapes), and every agent's
// rendered request against golden files (golden/ beside this file; CM_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cudamaster/agents/task_brief.hpp"
#include "mskb/core/registry.hpp"
#include "support/agent_doubles.hpp"

using namespace cmtest;

namespace {

std::string golden_path(const std::string& name) { return std::string(CM_AGENTS_GOLDEN) + "/" + name + ".txt"; }

std::string render_request(const llm::ChatRequest& r) {
  std::string out;
  for (const auto& m : r.messages) out += "===== " + std::string(llm::to_string(m.role)) + " =====\n" + m.content + "\n";
  out += "===== params =====\n" + llm::to_json(r)["params"].dump() + "\n";
  return out;
}

void expect_golden(const std::string& name, const llm::ChatRequest& r) {
  const std::string got = render_request(r);
  const char* update = std::getenv("CM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file(golden_path(name), got);
    return;
  }
  EXPECT_EQ(got.find("extern \"C\" extern"), std::string::npos) << "the entry point's linkage is written twice in '" << name << "'";
  const std::string want = read_file(golden_path(name));
  EXPECT_EQ(got, want) << "prompt '" << name << "' differs from " << golden_path(name)
                       << " (if the change is intended: CM_UPDATE_GOLDEN=1 ./cudamaster_agents_test)";
}

// The brief of the real task (as cudamaster builds it from the registry), with the GPU fixed:
// the goldens show what an agent reads for spmv_csr fp32 (CM_UPDATE_GOLDEN=1 after a spec edit).
agents::TaskBrief brief() { return agents::make_task_brief(mskb::get_task("spmv_csr"), mskb::Precision::fp32, false, "NVIDIA H200"); }

const char* kCode = "#include <cuda_runtime.h>\nextern \"C\" void spmv_csr(int rows, const float* values, const int* col_indices,\n"
                    "    const int* row_offsets, const float* x, float* y) { cudaDeviceSynchronize(); }\n";

std::vector<agents::PerfRow> perf() {
  agents::PerfRow a{"rows=1024,cols=2048", 6.5, 6.5, 5.2, 0.4};
  agents::PerfRow b{"rows=2048,cols=2048", 9.0, 9.0, std::nullopt, 0.0};
  return {a, b};
}

std::vector<agents::RoundHistory> history() {
  return {{1, "block per row (expected 3x)", "rejected: correct but P 0.21 does not beat the best 1.00 by more than the noise margin",
           {"planner: block per row (expected 3x)", "coder: compile_error: c2.cu:14: identifier \"__shfl_down\" is undefined",
            "debug 1: wrong_result at rows=1024,cols=2048 (paper, seed 1): 1000 of 1024 elements outside tolerance",
            "debug 2: correct, P 0.210 <= 1.020 required (best 1.000 + 2.0% noise margin)"}}};
}

}  // namespace

TEST(PromptTemplate, VariablesSectionsAndStandaloneLines) {
  const auto t = agents::PromptTemplate::parse("Hello {{name}}!\n{{#extra}}\n  extra: {{extra}}\n{{/extra}}\n{{^extra}}\nno extra\n{{/extra}}\nend\n", "t");
  EXPECT_EQ(t.render({{"name", "GPU"}, {"extra", "x"}}), "Hello GPU!\n  extra: x\nend\n");
  EXPECT_EQ(t.render({{"name", "GPU"}, {"extra", ""}}), "Hello GPU!\nno extra\nend\n");
  EXPECT_EQ(t.variables(), (std::vector<std::string>{"extra", "name"}));
  // Inline sections keep their surroundings.
  EXPECT_EQ(agents::PromptTemplate::parse("a{{#x}}[{{x}}]{{/x}}b", "t").render({{"x", "1"}}), "a[1]b");
  // Values are not templates.
  EXPECT_EQ(agents::PromptTemplate::parse("{{v}}", "t").render({{"v", "{{not a tag}}"}}), "{{not a tag}}");
}

TEST(PromptTemplate, ErrorsNameTheProblem) {
  try {
    (void)agents::PromptTemplate::parse("x {{name}}", "t").render({});
    FAIL();
  } catch (const agents::PromptError& e) {
    EXPECT_STREQ(e.what(), "prompt 't': no value for {{name}}");
  }
  EXPECT_THROW(agents::PromptTemplate::parse("{{#a}}\nx\n", "t"), agents::PromptError);
  EXPECT_THROW(agents::PromptTemplate::parse("{{#a}}x{{/b}}", "t"), agents::PromptError);
  EXPECT_THROW(agents::PromptTemplate::parse("{{bad name}}", "t"), agents::PromptError);
  EXPECT_THROW(agents::PromptTemplate::parse("{{open", "t"), agents::PromptError);
  try {
    (void)agents::PromptTemplate::parse("line1\nline2 {{/x}}", "t");
    FAIL();
  } catch (const agents::PromptError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(PromptLibrary, LoadsEveryShippedTemplate) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  for (const char* n : {"rules", "planner.system", "planner.user", "coder.system", "coder.user", "debug.system", "debug.user",
                        "compiler.system", "compiler.user"})
    EXPECT_NO_THROW((void)lib.get(n)) << n;
  // System prompts are static: replay matches them, so they must not depend on the run.
  for (const char* n : {"planner.system", "coder.system", "debug.system", "compiler.system"})
    EXPECT_TRUE(lib.get(n).variables().empty()) << n;
  EXPECT_EQ(lib.fingerprint().size(), 16u);
  EXPECT_THROW((void)lib.get("no_such_prompt"), agents::PromptError);
}

TEST(TaskBrief, NeverShowsHeldOutShapes) {
  const auto& spec = mskb::get_task("spmv_csr");
  const auto b = agents::make_task_brief(spec, mskb::Precision::fp32, false, "NVIDIA H200");
  EXPECT_EQ(b.entry.symbol, "spmv_csr");
  EXPECT_EQ(b.entry.pointer_params, (std::vector<bool>{false, true, true, true, true, true}));
  EXPECT_NE(b.paper_sweep.find("rows=1024,cols=2048"), std::string::npos);
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::PlannerInput in;
  in.task = b;
  in.best_code = kCode;
  const std::string prompt = render_request(agents::planner_request(lib, in, {}));
  for (const mskb::Shape& s : spec.heldout) EXPECT_EQ(prompt.find(s.str()), std::string::npos) << s.str();
  const auto bf = agents::make_task_brief(spec, mskb::Precision::bf16, true, "");
  EXPECT_EQ(bf.entry.symbol, "spmv_csr_bf16");
  EXPECT_EQ(bf.gpu, "NVIDIA GPU");
}

TEST(Golden, Planner) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::PlannerInput in;
  in.task = brief();
  in.round = 2;
  in.rounds = 5;
  in.best_label = "the naive baseline";
  in.best_summary = "This is the naive baseline itself: P = 1.00 by definition. The vendor contender reaches P = 1.25.";
  in.best_code = kCode;
  in.performance = perf();
  in.profile = "Bottleneck: memory-latency (confidence 0.82)\n- long scoreboard stalls: 71%";
  in.history = history();
  expect_golden("planner", agents::planner_request(lib, in, {4096, std::nullopt, std::nullopt}));
}

TEST(Golden, PlannerWithoutProfileOrHistory) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::PlannerInput in;
  in.task = brief();
  in.task.vendor = "";
  in.best_label = "the naive baseline";
  in.best_summary = "This is the naive baseline itself: P = 1.00 by definition.";
  in.best_code = kCode;
  in.performance = perf();
  in.profile_absent = "Profiling is off in this run (--profile none): reason from the timings and the code.";
  in.task.allow_libraries = true;
  expect_golden("planner_minimal", agents::planner_request(lib, in, {4096, 0.2, std::nullopt}));
}

TEST(Golden, Coder) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::CoderInput in;
  in.task = brief();
  in.round = 2;
  in.rounds = 5;
  in.plan = agents::parse_plan(plan_answer("warp per row", 2.5));
  in.best_label = "the naive baseline";
  in.best_code = kCode;
  expect_golden("coder", agents::coder_request(lib, in, {16384, std::nullopt, std::nullopt}));
}

TEST(Golden, CoderWithoutPlanner) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::CoderInput in;
  in.task = brief();
  in.best_label = "the naive baseline";
  in.best_summary = "This is the naive baseline itself: P = 1.00 by definition.";
  in.best_code = kCode;
  in.performance = perf();
  in.profile = "Bottleneck: memory-latency (confidence 0.82)";
  in.history = history();
  expect_golden("coder_no_planner", agents::coder_request(lib, in, {16384, std::nullopt, std::nullopt}));
}

TEST(Golden, Debug) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::DebugInput in;
  in.task = brief();
  in.plan = agents::parse_plan(plan_answer("block per row", 3.0));
  in.kind = agents::ProblemKind::compile_error;
  in.problem = "The build failed. Compiler errors:\nc2.cu:14: error: identifier \"__shfl_down\" is undefined";
  in.code = kCode;
  in.attempt = 2;
  in.attempts = 3;
  in.earlier = {"attempt 1: compile_error: c2.cu:14: identifier \"__shfl_down\" is undefined"};
  expect_golden("debug", agents::debug_request(lib, in, {16384, std::nullopt, std::nullopt}));
}

TEST(Golden, Compiler) {
  agents::PromptLibrary lib(agents::default_prompts_dir());
  agents::CompilerInput in;
  in.task = brief();
  in.recipe = {"90", {"-lineinfo"}, false};
  in.log = "ptxas fatal   : Instruction 'wgmma.mma_async' requires .target 'sm_90a'";
  in.code = kCode;
  in.allowed_archs = {"90", "90a"};
  in.allowed_flags = "-O3, -use_fast_math";
  expect_golden("compiler", agents::compiler_request(lib, in, {2048, std::nullopt, std::nullopt}));
}

TEST(PerformanceTable, FormatsRatios) {
  const std::string t = agents::render_performance_table(perf());
  EXPECT_NE(t.find("| rows=1024,cols=2048 | 6.50 | 1.00x | 0.80x | 6.2% |"), std::string::npos) << t;
  EXPECT_NE(t.find("| rows=2048,cols=2048 | 9.00 | 1.00x | n/a | n/a |"), std::string::npos) << t;
  EXPECT_EQ(agents::render_performance_table({}), "(no timings)");
}

// Output parsers: the Coder/Debug code parser (prose, several blocks, truncation, wrong names,
// wrong signatures), the Planner's plan and the Compiler's recipe.
#include <gtest/gtest.h>

#include "cudamaster/agents/source_text.hpp"
#include "support/agent_doubles.hpp"

using namespace cmtest;

namespace {

agents::EntryPoint spmv_entry() {
  const auto& spec = mskb::get_task("spmv_csr");
  return agents::make_task_brief(spec, mskb::Precision::fp32, false, "").entry;
}

const std::string kKernel = spmv_kernel("");

bool mentions(const agents::CodeAnswer& a, const std::string& what) {
  for (const auto& p : a.problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(CodeAnswer, ProseAroundOneBlock) {
  const auto a = agents::parse_code_answer("Sure! Here it is:\n\n```cuda\n" + kKernel + "```\n\nThis should be 2x faster.", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  EXPECT_EQ(a.code, kKernel);
  EXPECT_EQ(a.blocks, 1);
  EXPECT_FALSE(a.truncated);
}

TEST(CodeAnswer, UntaggedAndTildeFences) {
  auto a = agents::parse_code_answer("```\n" + kKernel + "```", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  a = agents::parse_code_answer("~~~cpp\n" + kKernel + "~~~\n", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
}

TEST(CodeAnswer, SeveralBlocksPicksTheOneDefiningTheEntry) {
  const std::string answer = "First a helper:\n```cuda\n__device__ float sq(float v) { return v * v; }\n```\nThen the file:\n```cuda\n" +
                             kKernel + "```\nAnd a test:\n```bash\nnvcc -O3 x.cu\n```\n";
  const auto a = agents::parse_code_answer(answer, spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  EXPECT_EQ(a.code, kKernel);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes.front().find("2 code blocks"), std::string::npos) << a.notes.front();
}

TEST(CodeAnswer, LastOfSeveralDefinitionsWins) {
  const std::string v2 = spmv_kernel("// version 2\n");
  const auto a = agents::parse_code_answer("```cuda\n" + kKernel + "```\nOops, fixed:\n```cuda\n" + v2 + "```", spmv_entry());
  EXPECT_TRUE(a.ok);
  EXPECT_EQ(a.code, v2);
}

TEST(CodeAnswer, SplitFileIsJoined) {
  const std::string kernel_part = "#include <cuda_runtime.h>\n__global__ void k(float* y) { y[0] = 1.0f; }\n";
  const std::string host_part =
      "extern \"C\" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets,\n"
      "                           const float* x, float* y) {\n  k<<<1, 1>>>(y);\n  cudaDeviceSynchronize();\n}\n";
  const auto a = agents::parse_code_answer("Kernel:\n```cuda\n" + kernel_part + "```\nWrapper:\n```cuda\n" + host_part + "```\n", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  EXPECT_EQ(a.code, kernel_part + host_part);
  EXPECT_NE(a.notes.front().find("joined 2"), std::string::npos);
}

TEST(CodeAnswer, NoFenceButCode) {
  const auto a = agents::parse_code_answer("Here you go.\n" + kKernel, spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  EXPECT_NE(a.notes.front().find("no code fence"), std::string::npos);
}

TEST(CodeAnswer, NoCodeAtAll) {
  auto a = agents::parse_code_answer("I think you should use a warp per row.", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "no code in the answer"));
  a = agents::parse_code_answer("```json\n{\"a\": 1}\n```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "no CUDA code block")) << a.describe();
  EXPECT_TRUE(mentions(a, "tagged json"));
}

TEST(CodeAnswer, TruncatedAnswerSaysWhere) {
  const std::string cut = kKernel.substr(0, kKernel.find("cudaDeviceSynchronize"));
  const auto a = agents::parse_code_answer("```cuda\n" + cut, spmv_entry(), /*finish_truncated=*/true);
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(a.truncated);
  EXPECT_TRUE(mentions(a, "cut off")) << a.describe();
  EXPECT_TRUE(mentions(a, "token limit"));
  EXPECT_TRUE(mentions(a, "never closed"));
  EXPECT_TRUE(mentions(a, "1 '{' never closed")) << a.describe();
}

TEST(CodeAnswer, MissingClosingFenceOfACompleteFileIsOnlyANote) {
  const auto a = agents::parse_code_answer("```cuda\n" + kKernel, spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  EXPECT_NE(a.notes.back().find("closing ``` is missing"), std::string::npos);
}

TEST(CodeAnswer, UnclosedBlockComment) {
  const auto a = agents::parse_code_answer("```cuda\n" + kKernel + "/* more to come\n```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "comment or raw string is never closed")) << a.describe();
}

TEST(CodeAnswer, WrongEntryName) {
  std::string wrong = kKernel;
  wrong.replace(wrong.find("void spmv_csr("), 14, "void spmv_csr_fp32(");
  const auto a = agents::parse_code_answer("```cuda\n" + wrong + "```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "wrong entry-point name")) << a.describe();
  EXPECT_TRUE(mentions(a, "`spmv_csr_fp32`"));
  EXPECT_TRUE(mentions(a, "extern \"C\" void spmv_csr(int rows"));
}

TEST(CodeAnswer, MissingExternC) {
  std::string plain = kKernel;
  plain.replace(plain.find("extern \"C\" "), 11, "");
  auto a = agents::parse_code_answer("```cuda\n" + plain + "```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "is not extern \"C\"")) << a.describe();
  // An earlier extern "C" declaration gives the definition C linkage.
  a = agents::parse_code_answer("```cuda\nextern \"C\" void spmv_csr(int, const float*, const int*, const int*, const float*, float*);\n" +
                                    plain + "```",
                                spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
  // So does an extern "C" { } block.
  a = agents::parse_code_answer("```cuda\n#include <cuda_runtime.h>\nextern \"C\" {\nvoid spmv_csr(int rows, const float* v, const int* c, "
                                "const int* o, const float* x, float* y) { cudaDeviceSynchronize(); }\n}\n```",
                                spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
}

TEST(CodeAnswer, WrongSignature) {
  std::string five = kKernel;
  five.replace(five.rfind("const float* x, float* y) {"), 27, "float* y) {");
  auto a = agents::parse_code_answer("```cuda\n" + five + "```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "takes 5 parameters, the harness passes 6")) << a.describe();
  std::string scalar = kKernel;
  scalar.replace(scalar.rfind("const float* x,"), 15, "float x,");
  a = agents::parse_code_answer("```cuda\n" + scalar + "```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "parameter 5 of `spmv_csr` is `float x` but must be a device pointer")) << a.describe();
}

TEST(CodeAnswer, DeclaredButNotDefinedAndProgramsAreRejected) {
  auto a = agents::parse_code_answer(
      "```cuda\nextern \"C\" void spmv_csr(int rows, const float* v, const int* c, const int* o, const float* x, float* y);\n```",
      spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "declares `spmv_csr` but never defines it")) << a.describe();
  a = agents::parse_code_answer("```cuda\n" + kKernel + "int main() { return 0; }\n```", spmv_entry());
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(mentions(a, "defines main()"));
}

TEST(CodeAnswer, BracesInStringsAndCommentsDoNotCount) {
  const std::string tricky = "// } stray brace in a comment {\n/* { */\n" + kKernel + "static const char* s = \"{{{\"; const char c = '}';\n";
  const auto a = agents::parse_code_answer("```cuda\n" + tricky + "```", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
}

TEST(CodeAnswer, KernelsAndLaunchBoundsAreNotHostFunctions) {
  const std::string src =
      "template <int N> __global__ void __launch_bounds__(256) spmv_csr(int n) {}\n"  // a kernel named like the entry
      "namespace { constexpr int kWarps = 8; }\n" +
      kKernel;
  const auto fns = agents::host_functions(src);
  int entries = 0;
  for (const auto& f : fns) entries += f.name == "spmv_csr";
  EXPECT_EQ(entries, 1);
  const auto a = agents::parse_code_answer("```cuda\n" + src + "```", spmv_entry());
  EXPECT_TRUE(a.ok) << a.describe();
}

TEST(SourceText, PreprocessorLinesAreSkippedWithTheirContinuations) {
  const std::string s = "int a;\n  #define X(a) \\\n  (a)\nint b; x # y\n";
  std::size_t i = s.find('#');
  int line = 2;
  ASSERT_TRUE(agents::skip_preprocessor_line(s, i, line));
  EXPECT_EQ(i, s.find("\nint b"));  // the newline that ends the directive, after its continuation
  EXPECT_EQ(line, 4);
  std::size_t j = s.find("# y");  // not at the start of a line
  const std::size_t before = j;
  EXPECT_FALSE(agents::skip_preprocessor_line(s, j, line));
  EXPECT_EQ(j, before);
  EXPECT_EQ(line, 4);
  const auto fns = agents::host_functions("#define F(x) \\\n  void g(int x)\nextern \"C\" void f(int n) {}\n");
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].name, "f");
  EXPECT_EQ(fns[0].line, 3);
}

TEST(Plan, StructuredJson) {
  const auto p = agents::parse_plan(plan_answer("warp per row", 2.5));
  EXPECT_TRUE(p.structured);
  EXPECT_TRUE(p.problems.empty());
  ASSERT_EQ(p.strategies.size(), 1u);
  EXPECT_EQ(p.strategies[0].name, "warp per row");
  EXPECT_DOUBLE_EQ(*p.expected_speedup, 2.5);
  EXPECT_EQ(p.summary(), "warp per row (expected 2.5x)");
  EXPECT_NE(p.render().find("1. warp per row: do it (expected: 2x)"), std::string::npos) << p.render();
}

// Found by tests/fuzz (llm_answer): a strategy named with a newline made a summary of two lines
// (the run's log line and the report's plan cell).
TEST(Plan, SummaryIsOneLineWhateverTheModelWrites) {
  auto p = agents::parse_plan(R"({"strategies": ["warp per\nrow", "\tvector\r\n  loads "], "expected_speedup": 2})");
  EXPECT_EQ(p.summary(), "warp per row; vector loads (expected 2x)");
  p = agents::parse_plan(R"({"bottleneck": "memory-\nlatency"})");
  EXPECT_EQ(p.summary(), "memory- latency");
  p = agents::parse_plan("  Use\tshuffles\r\nThen more.");
  EXPECT_EQ(p.summary(), "Use shuffles");
}

TEST(Plan, LenientAboutShapesAndFallsBackToText) {
  auto p = agents::parse_plan(R"(Plan: {"strategies": ["tile", {"description": "unroll"}], "expected_speedup": "~1.8x"})");
  EXPECT_TRUE(p.structured);
  ASSERT_EQ(p.strategies.size(), 2u);
  EXPECT_EQ(p.strategies[1].change, "unroll");
  EXPECT_DOUBLE_EQ(*p.expected_speedup, 1.8);
  p = agents::parse_plan("Use a warp per row and shuffles.\nThat is all.");
  EXPECT_FALSE(p.structured);
  EXPECT_EQ(p.render(), "Use a warp per row and shuffles.\nThat is all.");
  EXPECT_EQ(p.summary(), "Use a warp per row and shuffles.");
  ASSERT_FALSE(p.problems.empty());
  p = agents::parse_plan("```json\n{\"bottleneck\": \"x\"}\n```");
  EXPECT_TRUE(p.structured);
  EXPECT_EQ(p.problems.front(), "the plan lists no strategies");
}

TEST(Compiler, RecipeFromTheWhitelist) {
  const agents::BuildRecipe current{"90", {}, false};
  const std::vector<std::string> archs = {"90", "90a"};
  auto a = agents::parse_compiler_answer(
      "```json\n{\"arch\": \"sm_90a\", \"flags\": [\"-O3\", \"--use_fast_math\", \"-Xcompiler=-march=native\"], \"lineinfo\": true, "
      "\"reason\": \"wgmma needs sm_90a\"}\n```",
      current, archs);
  EXPECT_TRUE(a.ok);
  EXPECT_EQ(a.recipe.arch, "90a");
  EXPECT_EQ(a.recipe.flags, std::vector<std::string>{"--use_fast_math"});
  EXPECT_TRUE(a.recipe.lineinfo);
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_NE(a.problems[0].find("not on the whitelist"), std::string::npos) << a.problems[0];
  a = agents::parse_compiler_answer(R"({"arch": "100a", "code_problem": true})", current, archs);
  EXPECT_TRUE(a.ok);
  EXPECT_TRUE(a.code_problem);
  EXPECT_EQ(a.recipe.arch, "90");
  EXPECT_NE(a.problems[0].find("'100a' is not allowed"), std::string::npos);
  a = agents::parse_compiler_answer("Use sm_90a.", current, archs);
  EXPECT_FALSE(a.ok);
}

TEST(Agents, AgentOfRequest) {
  agents::PromptLibrary prompts(agents::default_prompts_dir());
  const auto& spec = mskb::get_task("spmv_csr");
  agents::DebugInput d;
  d.task = agents::make_task_brief(spec, mskb::Precision::fp32, false, "H200");
  const auto r = agents::debug_request(prompts, d, {});
  EXPECT_EQ(agents::agent_of(r), agents::Agent::debug);
  llm::ChatRequest other;
  other.messages = {{llm::Role::System, "You are a helpful assistant."}};
  EXPECT_FALSE(agents::agent_of(other).has_value());
}

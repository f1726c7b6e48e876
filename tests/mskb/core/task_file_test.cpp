// Task files (mskb/core/task_file.hpp): a good file becomes the TaskSpec it describes, bad ones
// fail with one golden line naming the file, the line and the key; generators are deterministic;
// the compiled reference is called through the C ABI; vector_add re-expressed as a task file draws
// the same inputs and computes the same reference, tolerance, cost and complexity as the built-in.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "mskb/core/instance.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/text.hpp"
#include "support/typed_task_files.hpp"

namespace fs = std::filesystem;

namespace mskb {
namespace {

constexpr const char* kGood = R"TOML(# a test task
name = "bias_rows"
semantics = "y[i*N + j] = alpha * x[i*N + j] + b[j] + idx[i]"
dims = ["M", "N"]
reference = "ref.cpp"
seeds = 4

[[params]]
name = "x"
type = "real"
role = "in"
length = "M*N"
init = { dist = "normal", mean = 0, std = 2 }

[[params]]
name = "b"
type = "fp32"
role = "in"
length = "N"

[[params]]
name = "idx"
type = "int32"
role = "in"
length = "M"
init = { dist = "int_uniform", lo = 0, hi = "N-1" }

[[params]]
name = "y"
type = "real"
role = "out"
length = "M*N"

[[params]]
name = "alpha"
type = "real"
init = { dist = "uniform", lo = 0.5, hi = 1.5 }

[[params]]
name = "M"
type = "int"
value = "M"

[sweeps]
paper = [{ M = 4, N = 8 }, { M = 16, N = 32 }]
heldout = [{ M = 3, N = 5 }]
large = [{ M = 64, N = "2**6" }]

[tolerance]
atol = "1e-6 * sqrt(N)"
rtol = 1e-5

[cost]
flops = "2*M*N"
)TOML";

constexpr const char* kGoodRef = R"CPP(#include "mskb_reference.h"
extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  const double* b = mskb_ref_data(a, "b");
  const double* idx = mskb_ref_data(a, "idx");
  double* y = mskb_ref_data(a, "y");
  const double alpha = mskb_ref_scalar(a, "alpha");
  const int64_t m = mskb_ref_dim_value(a, "M"), n = mskb_ref_dim_value(a, "N");
  if (!x || !b || !idx || !y) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = alpha * x[i * n + j] + b[j] + idx[i];
}
)CPP";

class TaskFileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::path(::testing::TempDir()) / ("mskb_task_file_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "cache");
    ::setenv("MSKB_CACHE_DIR", (root_ / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void SetUp() override {
    if (!task_files_supported()) GTEST_SKIP() << "built without toml++";
  }

  // A fresh folder holding task.toml = `toml` and ref.cpp = `ref`; returns the task file's path.
  std::string write_task(const std::string& toml, const std::string& ref = kGoodRef) {
    const fs::path dir = root_ / ("t" + std::to_string(counter_++));
    fs::create_directories(dir);
    write(dir / "task.toml", toml);
    write(dir / "ref.cpp", ref);
    return (dir / "task.toml").string();
  }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text;
  }
  // The one-line error of loading `toml` (with the good ref.cpp), "" when it loads.
  std::string error_of(const std::string& toml, std::string* path_out = nullptr) {
    const std::string path = write_task(toml);
    if (path_out) *path_out = path;
    try {
      load_task_file(path);
    } catch (const TaskFileError& e) {
      return e.what();
    }
    return "";
  }
  static std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  }
  // 1-based line of the first occurrence of `needle` in `text`.
  static int line_of(const std::string& text, const std::string& needle) {
    const auto at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  }

  static fs::path root_;
  int counter_ = 0;
};
fs::path TaskFileTest::root_;

TEST_F(TaskFileTest, GoodFileBecomesTheSpecItDescribes) {
  const TaskFile tf = load_task_file(write_task(kGood));
  const TaskSpec& s = tf.spec;
  EXPECT_EQ(s.name, "bias_rows");
  EXPECT_EQ(s.category, "user");
  EXPECT_EQ(s.seeds, 4);
  EXPECT_EQ(s.folder, fs::path(tf.absolute_path).parent_path().string());
  ASSERT_EQ(s.params.size(), 6u);
  EXPECT_EQ(s.signature(Precision::fp32),
            "extern \"C\" void bias_rows(const float* x, const float* b, const int* idx, float* y, float alpha, int M)");
  EXPECT_EQ(s.signature(Precision::bf16),
            "extern \"C\" void bias_rows_bf16(const __nv_bfloat16* x, const float* b, const int* idx, __nv_bfloat16* y, "
            "__nv_bfloat16 alpha, int M)");
  EXPECT_EQ(s.params[3].role, Role::out);
  EXPECT_EQ(s.paper, (std::vector<Shape>{{{"M", 4}, {"N", 8}}, {{"M", 16}, {"N", 32}}}));
  EXPECT_EQ(s.heldout, (std::vector<Shape>{{{"M", 3}, {"N", 5}}}));
  EXPECT_EQ(s.large, (std::vector<Shape>{{{"M", 64}, {"N", 64}}}));
  EXPECT_TRUE(validate(s).empty());
  EXPECT_EQ(tf.precisions, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
  EXPECT_TRUE(tf.baseline.empty());

  const Shape sh{{"M", 16}, {"N", 32}};
  const Tolerance t = s.tolerance(sh, Precision::bf16);
  EXPECT_DOUBLE_EQ(t.atol, 1e-6 * std::sqrt(32.0));
  EXPECT_DOUBLE_EQ(t.rtol, 1e-5);
  // Default bytes: every buffer once at its element size (x, y real; b fp32; idx int32).
  const Cost c32 = s.cost(sh, Precision::fp32), c16 = s.cost(sh, Precision::bf16);
  EXPECT_DOUBLE_EQ(c32.bytes, 512 * 4 + 32 * 4 + 16 * 4 + 512 * 4);
  EXPECT_DOUBLE_EQ(c16.bytes, 512 * 2 + 32 * 4 + 16 * 4 + 512 * 2);
  EXPECT_DOUBLE_EQ(c32.flops, 2 * 512);
  EXPECT_FALSE(c32.tensor);
  EXPECT_EQ(s.complexity(sh), static_cast<uint64_t>(c32.bytes));  // default: the fp32 bytes
}

TEST_F(TaskFileTest, GeneratorsFollowTheFileAndAreDeterministic) {
  const std::string path = write_task(kGood);
  const TaskFile a = load_task_file(path), b = load_task_file(path);
  const Shape sh{{"M", 16}, {"N", 32}};
  const Args x1 = make_inputs(a.spec, sh, Precision::fp32, 1);
  const Args x2 = make_inputs(b.spec, sh, Precision::fp32, 1);  // same file, shape, seed
  const Args x3 = make_inputs(a.spec, sh, Precision::fp32, 2);
  ASSERT_EQ(x1.size(), 6u);
  for (std::size_t i = 0; i < x1.size(); ++i) {
    EXPECT_EQ(x1[i].data, x2[i].data) << i;
    EXPECT_EQ(x1[i].value, x2[i].value) << i;
  }
  EXPECT_NE(x1[0].data, x3[0].data);
  EXPECT_EQ(x1[0].data.size(), 512u);
  EXPECT_EQ(x1[3].data, std::vector<double>(512, 0.0));  // the output: sized, zero
  // normal(0, 2): some values beyond [-1, 1]; mean near 0.
  double sum = 0, beyond = 0;
  for (double v : x1[0].data) sum += v, beyond += std::fabs(v) > 1.0;
  EXPECT_NEAR(sum / 512, 0.0, 0.5);
  EXPECT_GT(beyond, 100);
  // b: the default U(-1, 1); idx: int_uniform(0, N-1), integers.
  for (double v : x1[1].data) EXPECT_TRUE(v >= -1.0 && v < 1.0) << v;
  std::set<double> seen;
  for (double v : x1[2].data) {
    EXPECT_TRUE(v >= 0 && v <= 31 && v == std::floor(v)) << v;
    seen.insert(v);
  }
  EXPECT_GT(seen.size(), 4u);
  EXPECT_TRUE(x1[4].value >= 0.5 && x1[4].value < 1.5) << x1[4].value;
  EXPECT_EQ(x1[5].value, 16.0);
}

TEST_F(TaskFileTest, ReferenceIsCompiledAndCalledThroughTheCAbi) {
  const TaskFile tf = load_task_file(write_task(kGood));
  const std::string so = compile_reference(tf);
  EXPECT_TRUE(fs::is_regular_file(so)) << so;
  EXPECT_EQ(so.rfind((root_ / "cache" / "references").string(), 0), 0u) << so;
  EXPECT_EQ(compile_reference(load_task_file(tf.path)), so);  // cached by content
  const Shape sh{{"M", 3}, {"N", 5}};
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Args in = make_inputs(tf.spec, sh, p, 7);
    const Args want = make_expected(tf.spec, sh, p, in);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        const std::size_t k = static_cast<std::size_t>(i * 5 + j);
        EXPECT_DOUBLE_EQ(want[3].data[k], in[4].value * in[0].data[k] + in[1].data[static_cast<std::size_t>(j)] +
                                              in[2].data[static_cast<std::size_t>(i)]);
      }
    EXPECT_EQ(want[0].data, in[0].data);  // inputs untouched
  }
}

TEST_F(TaskFileTest, ReferenceProblemsAreOneLine) {
  std::string path = write_task(kGood, R"(#include "mskb_reference.h"
extern "C" void mskb_reference(const mskb_ref_args* a) { (void)mskb_ref_data(a, "nope"); }
)");
  const TaskFile bad_name = load_task_file(path);
  const Shape sh{{"M", 3}, {"N", 5}};
  const Args in = make_inputs(bad_name.spec, sh, Precision::fp32, 1);
  try {
    make_expected(bad_name.spec, sh, Precision::fp32, in);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ":5: reference: at shape M=3,N=5: mskb_reference: no parameter named 'nope'");
  }
  path = write_task(kGood, "this is not C++\n");
  try {
    compile_reference(load_task_file(path));
    FAIL();
  } catch (const TaskFileError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path + ":5: reference: ref.cpp does not compile: ", 0), 0u) << m;
    EXPECT_NE(m.find("error"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  path = write_task(kGood, "extern \"C\" void other() {}\n");
  try {
    compile_reference(load_task_file(path));
    FAIL();
  } catch (const TaskFileError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":5: reference: ref.cpp does not export extern \"C\" void mskb_reference(const mskb_ref_args*)");
  }
}

TEST_F(TaskFileTest, BadFilesFailWithOneGoldenLine) {
  struct Case {
    std::string from, to, needle, message;  // message after "PATH:LINE: "
  };
  const std::vector<Case> cases = {
      {"length = \"M*N\"\ninit = { dist = \"normal\"", "lenght = \"M*N\"\ninit = { dist = \"normal\"", "lenght",
       "params[0].lenght: unknown key (did you mean 'length'?)"},
      {"length = \"M*N\"\ninit", "length = \"M*(N+1\"\ninit", "M*(N+1", "params[0].length: expected ')' at column 7 in 'M*(N+1'"},
      {"length = \"M*N\"\ninit", "length = \"M*K\"\ninit", "M*K",
       "params[0].length: unknown variable 'K' at column 3 in 'M*K' (variables: M, N)"},
      {"reference = \"ref.cpp\"", "reference = \"nope.cpp\"", "nope.cpp", ""},  // message checked below
      {"dims = [\"M\", \"N\"]", "dims = \"M\"", "dims", "dims: expected an array of strings, got a string"},
      {"{ M = 16, N = 32 }", "{ M = 16 }", "{ M = 16 }", "sweeps.paper[1]: missing shape variable 'N' (dims: M, N)"},
      {"{ M = 3, N = 5 }", "{ M = 3, N = 5, K = 2 }", "K = 2", "sweeps.heldout[0].K: unknown key (keys here: M, N)"},
      {"type = \"fp32\"", "type = \"fp64\"", "fp64", "params[1].type: type 'fp64' is not supported yet"},
      {"type = \"fp32\"", "type = \"half\"", "half", "params[1].type: unknown buffer type 'half' (fp32, fp16, bf16, real, int32, int64)"},
      {"type = \"int32\"", "type = \"long\"", "long", "params[2].type: unknown buffer type 'long' (fp32, fp16, bf16, real, int32, int64)"},
      {"type = \"int32\"\nrole = \"in\"\nlength = \"M\"\ninit = { dist = \"int_uniform\"",
       "type = \"int64\"\nrole = \"in\"\nlength = \"M\"\ninit = { dist = \"uniform\"", "dist = \"uniform\", lo = 0",
       "params[2].init.dist: an int64 parameter takes int_uniform or constant, not uniform"},
      {"name = \"alpha\"\ntype = \"real\"", "name = \"alpha\"\ntype = \"float16\"", "float16",
       "params[4].type: unknown scalar type 'float16' (int, int64, float, real; a buffer needs a role)"},
      {"name = \"alpha\"\ntype = \"real\"", "name = \"alpha\"\ntype = \"fp16\"", "\"fp16\"",
       "params[4].type: an fp16 scalar is not supported yet (fp16 is for buffers; pass a float)"},
      {"role = \"out\"", "role = \"output\"", "output", "params[3].role: unknown role 'output' (in, out, inout, accumulate)"},
      {"seeds = 4", "seeds = \"4\"", "seeds", "seeds: expected an integer, got a string"},
      {"seeds = 4", "seedz = 4", "seedz", "seedz: unknown key (did you mean 'seeds'?)"},
      {"std = 2 }", "std = 2, lo = 1 }", "std = 2, lo", "params[0].init.lo: unknown key (keys here: dist, mean, std)"},
      {"dist = \"normal\"", "dist = \"gauss\"", "gauss", "params[0].init.dist: unknown distribution 'gauss' (uniform, normal, int_uniform, constant)"},
      {"dist = \"int_uniform\"", "dist = \"uniform\"", "dist = \"uniform\", lo = 0",
       "params[2].init.dist: an int32 parameter takes int_uniform or constant, not uniform"},
      {"rtol = 1e-5", "rtol = \"1e-5 *\"", "1e-5 *", "tolerance.rtol: expected a number, a variable or '(' at column 7 in '1e-5 *'"},
      {"flops = \"2*M*N\"", "flops = \"2*M*N*nnz\"", "nnz",
       "cost.flops: unknown variable 'nnz' at column 7 in '2*M*N*nnz' (variables: M, N, real_bytes)"},
      {"value = \"M\"", "value = \"M\"\nrole = \"in\"\nlength = 3", "type = \"int\"", "params[5].type: unknown buffer type 'int' (fp32, fp16, bf16, real, int32, int64)"},
      {"name = \"alpha\"\ntype = \"real\"\ninit = { dist = \"uniform\", lo = 0.5, hi = 1.5 }", "name = \"alpha\"\ntype = \"real\"",
       "[[params]]\nname = \"alpha\"", "params[4].value: missing (a scalar needs value = <expression> or init = {dist = ...})"},
      {"name = \"b\"", "name = \"x\"", "name = \"x\"\ntype = \"fp32\"", "params[1].name: 'x' is already a parameter"},
      {"semantics = ", "# semantics = ", "# a test task", "semantics: missing (what the entry point computes)"},
  };
  for (const Case& c : cases) {
    const std::string toml = replaced(kGood, c.from, c.to);
    std::string path;
    const std::string got = error_of(toml, &path);
    if (c.message.empty()) {
      EXPECT_EQ(got, path + ":" + std::to_string(line_of(toml, c.needle)) + ": reference: file not found: nope.cpp (looked for " +
                         (fs::path(path).parent_path() / "nope.cpp").string() + ")");
      continue;
    }
    EXPECT_EQ(got, path + ":" + std::to_string(line_of(toml, c.needle)) + ": " + c.message) << c.to;
    EXPECT_EQ(got.find('\n'), std::string::npos);
  }
}

// Found by tests/fuzz (task_file): toml++ 3.3 classifies some characters beyond ASCII with a lookup
// that has undefined behaviour for 3,019 code points (U+00A7, U+00E9, Greek, Cyrillic, U+FCFF among
// them). Those reach toml++ as Private Use Area stand-ins and come back as written; a character
// beyond ASCII outside a string or a comment, a byte that is not UTF-8 and a stand-in in the file
// are refused with their line and column.
TEST_F(TaskFileTest, TextBeyondAsciiIsReadBackAsWrittenOrRefusedWithLineAndColumn) {
  const std::string comments = replaced(kGood, "# a test task", "# a test task: \u00e9t\u00e9 \u00a7 \u2200 (comments take any UTF-8)");
  const std::string text = "\u00a7 \u00b5s \u2264 \u3042 \u3000 \ufcff \u0416 \\\"\u00e9\\\" ";  // as TOML writes it
  const std::string read = "\u00a7 \u00b5s \u2264 \u3042 \u3000 \ufcff \u0416 \"\u00e9\" ";    // as the task holds it
  const TaskFile a = load_task_file(write_task(replaced(comments, "semantics = \"", "semantics = \"" + text)));
  EXPECT_EQ(a.spec.semantics, read + "y[i*N + j] = alpha * x[i*N + j] + b[j] + idx[i]");
  // After a multi-line string's line-ending backslash toml++ looks at the next line's first character.
  const TaskFile b = load_task_file(write_task(replaced(kGood, "semantics = \"", "semantics = \"\"\"\\\n  \\\n\u00a7x\u00e9\"\"\" # \u00a7 ")));
  EXPECT_EQ(b.spec.semantics, "\u00a7x\u00e9");

  auto refusal = [&](const std::string& toml) {  // the error after "PATH"
    std::string path;
    const std::string e = error_of(toml, &path);
    return e.rfind(path, 0) == 0 ? e.substr(path.size()) : "(not naming the file) " + e;
  };
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "seeds\u00a7 = 4")),
            ":6:6: character U+00A7 outside a string or a comment (keys and values are ASCII; quote text that is not)");
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "seeds = 4 \ufcff")),
            ":6:11: character U+FCFF outside a string or a comment (keys and values are ASCII; quote text that is not)");
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "seeds = 4 # \xff")), ":6:13: byte 0xFF is not UTF-8 (a task file is UTF-8 text)");
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "s = 'a\xc3'")), ":6:7: byte 0xC3 is not UTF-8 (a task file is UTF-8 text)");
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "seeds = 4 # \ue000")), ":6:13: character U+E000 (private use) is not read in a task file");
  // After a backslash in a string: the escaped byte is checked too (it once skipped the check and hung the shielding).
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "s = \"\\\xff\"")), ":6:7: byte 0xFF is not UTF-8 (a task file is UTF-8 text)");
  // A message that quotes the file quotes what the user wrote, on one line.
  EXPECT_EQ(refusal(replaced(kGood, "seeds = 4", "\"s\u00e9eds\\n\" = 4")).rfind(":6: s\u00e9eds\\x0a: unknown key (keys here: name, ", 0), 0u);
}

TEST_F(TaskFileTest, ShapeProblemsNameTheSweepEntry) {
  std::string path;
  std::string toml = replaced(kGood, "length = \"M\"", "length = \"M - 3\"");
  {
    const std::string got_ = error_of(toml, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(toml, "M - 3")) +
                                       ": params[2].length: 'M - 3' is 0; a buffer needs at least one element at shape M=3,N=5 "
                                       "(sweeps.heldout[0], line " + std::to_string(line_of(toml, "heldout")) + ")");
  }
  toml = replaced(kGood, "length = \"M\"", "length = \"M / 2\"");
  {
    const std::string got_ = error_of(toml, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(toml, "M / 2")) +
                                       ": params[2].length: 'M / 2' is 1.5, not an integer at shape M=3,N=5 (sweeps.heldout[0], line " +
                                       std::to_string(line_of(toml, "heldout")) + ")");
  }
  toml = replaced(kGood, "{ M = 3, N = 5 }", "{ M = 4, N = 8 }");
  {
    const std::string got_ = error_of(toml, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(toml, "heldout")) +
                                       ": sweeps.heldout[0]: shape M=4,N=8 is also in sweeps.paper (held-out shapes must differ)");
  }
  toml = replaced(kGood, "name = \"bias_rows\"", "name = \"bias rows\"");
  {
    const std::string got_ = error_of(toml, &path);
    EXPECT_EQ(got_, path + ":2: name: 'bias rows' is not a C identifier (it is the entry point's name)");
  }
  toml = replaced(kGood, "[cost]", "[cost\n");
  const std::string got = error_of(toml, &path);
  EXPECT_EQ(got.rfind(path + ":" + std::to_string(line_of(toml, "[cost")) + ":", 0), 0u) << got;
  EXPECT_NE(got.find("TOML syntax error"), std::string::npos) << got;
  EXPECT_EQ(got.find('\n'), std::string::npos) << got;
  try {
    load_task_file((root_ / "missing.toml").string());
    FAIL();
  } catch (const TaskFileError& e) {
    EXPECT_EQ(std::string(e.what()), "task file not found: " + (root_ / "missing.toml").string());
  }
}

TEST_F(TaskFileTest, PrecisionsToleranceAndBaseline) {
  std::string toml = replaced(kGood, "seeds = 4", "seeds = 4\nprecisions = [\"fp32\"]\nbaseline = \"base.cu\"");
  toml = replaced(toml, "atol = \"1e-6 * sqrt(N)\"\nrtol = 1e-5", "fp32 = { atol = 0.5, rtol = \"1/1000\" }");
  std::string path = write_task(toml);
  write(fs::path(path).parent_path() / "base.cu", "// baseline\n");
  const TaskFile tf = load_task_file(path);
  EXPECT_EQ(tf.precisions, (std::vector<Precision>{Precision::fp32}));
  ASSERT_EQ(tf.baseline.count(Precision::fp32), 1u);
  EXPECT_EQ(tf.baseline.at(Precision::fp32), (fs::path(path).parent_path() / "base.cu").string());
  EXPECT_DOUBLE_EQ(tf.spec.tolerance({{"M", 4}, {"N", 8}}, Precision::fp32).rtol, 0.001);
  // A bf16 tolerance for a task that has no bf16 entry point, and a bf16 buffer in an fp32 task.
  std::string bad = replaced(toml, "fp32 = { atol = 0.5", "bf16 = { atol = 0.5 }\nfp32 = { atol = 0.5");
  const std::string got = error_of(bad, &path);
  EXPECT_EQ(got, path + ":" + std::to_string(line_of(bad, "bf16 = {")) + ": tolerance.bf16: the task does not define bf16 (precisions)");
  bad = replaced(kGood, "type = \"fp32\"", "type = \"bf16\"");
  {
    const std::string got_ = error_of(bad, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(bad, "\"bf16\"")) +
                                      ": params[1].type: a bf16 buffer exists only in the _bf16 entry point: set precisions = [\"bf16\"], "
                                      "or use real (float in fp32, bf16 in bf16)");
  }
}

constexpr const char* kSparse = R"TOML(name = "spmv_user"
semantics = "y = A*x for A in CSR"
dims = ["rows", "cols", "skew"]
reference = "ref.cpp"

[sparse]
format = "csr"
rows = "rows"
cols = "cols"
density = 0.05
skewed = "skew"
row_ptr = "row_ptr"
col_idx = "col_idx"
values = "vals"

[[params]]
name = "rows"
type = "int"
value = "rows"

[[params]]
name = "vals"
type = "real"
role = "in"

[[params]]
name = "col_idx"
type = "int32"
role = "in"

[[params]]
name = "row_ptr"
type = "int32"
role = "in"

[[params]]
name = "x"
type = "real"
role = "in"
length = "cols"

[[params]]
name = "y"
type = "real"
role = "out"
length = "rows"

[sweeps]
paper = [{ rows = 64, cols = 100, skew = 0 }]
heldout = [{ rows = 200, cols = 40, skew = 1 }]
large = [{ rows = 1000, cols = 2000, skew = 0 }]

[tolerance]
atol = "1e-5 * sqrt(row_nnz)"
rtol = 1e-5

[cost]
flops = "2 * nnz"
)TOML";

constexpr const char* kSparseRef = R"CPP(#include "mskb_reference.h"
extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* v = mskb_ref_data(a, "vals");
  const double* c = mskb_ref_data(a, "col_idx");
  const double* r = mskb_ref_data(a, "row_ptr");
  const double* x = mskb_ref_data(a, "x");
  double* y = mskb_ref_data(a, "y");
  const int64_t rows = (int64_t)mskb_ref_scalar(a, "rows");
  for (int64_t i = 0; i < rows; ++i) {
    double s = 0;
    for (int64_t p = (int64_t)r[i]; p < (int64_t)r[i + 1]; ++p) s += v[p] * x[(int64_t)c[p]];
    y[i] = s;
  }
}
)CPP";

TEST_F(TaskFileTest, SparseCsrFillsThreeParameters) {
  const TaskFile tf = load_task_file(write_task(kSparse, kSparseRef));
  for (const Shape& sh : {tf.spec.paper[0], tf.spec.heldout[0]}) {
    const int64_t rows = sh["rows"], cols = sh["cols"];
    const int64_t per_row = std::max<int64_t>(1, std::llround(0.05 * static_cast<double>(cols)));
    const Args in = make_inputs(tf.spec, sh, Precision::fp32, 1);
    const mskb::HostData&vals = in[1].data, &col = in[2].data, &ptr = in[3].data;
    ASSERT_EQ(ptr.size(), static_cast<std::size_t>(rows + 1));
    EXPECT_EQ(ptr.front(), 0.0);
    EXPECT_EQ(ptr.back(), static_cast<double>(rows * per_row));  // both generators: rows * per_row entries
    EXPECT_EQ(col.size(), vals.size());
    EXPECT_EQ(static_cast<double>(col.size()), ptr.back());
    bool uneven = false;
    for (int64_t i = 0; i < rows; ++i) {
      const auto lo = static_cast<std::size_t>(ptr[static_cast<std::size_t>(i)]), hi = static_cast<std::size_t>(ptr[static_cast<std::size_t>(i) + 1]);
      ASSERT_LE(lo, hi);
      if (sh["skew"] == 0) {
        EXPECT_EQ(static_cast<int64_t>(hi - lo), per_row);
      }
      uneven = uneven || static_cast<int64_t>(hi - lo) != per_row;
      for (std::size_t p = lo; p < hi; ++p) {
        EXPECT_TRUE(col[p] >= 0 && col[p] < static_cast<double>(cols));
        if (p > lo) {
          EXPECT_LT(col[p - 1], col[p]);  // sorted, duplicate-free
        }
        EXPECT_GE(std::fabs(vals[p]), 0.25);
      }
    }
    EXPECT_EQ(uneven, sh["skew"] != 0);
    const Args want = make_expected(tf.spec, sh, Precision::fp32, in);
    for (int64_t i = 0; i < rows; ++i) {
      double s = 0;
      for (auto p = static_cast<std::size_t>(ptr[static_cast<std::size_t>(i)]); p < static_cast<std::size_t>(ptr[static_cast<std::size_t>(i) + 1]); ++p)
        s += vals[p] * in[4].data[static_cast<std::size_t>(col[p])];
      EXPECT_DOUBLE_EQ(want[5].data[static_cast<std::size_t>(i)], s);
    }
    EXPECT_DOUBLE_EQ(tf.spec.cost(sh, Precision::fp32).flops, 2.0 * static_cast<double>(rows * per_row));
    EXPECT_DOUBLE_EQ(tf.spec.tolerance(sh, Precision::fp32).atol, 1e-5 * std::sqrt(static_cast<double>(per_row)));
  }
  std::string path;
  const std::string bad = replaced(kSparse, "name = \"col_idx\"\ntype = \"int32\"", "name = \"col_idx\"\ntype = \"fp32\"");
  {
    const std::string got_ = error_of(bad, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(bad, "\"fp32\"")) +
                                      ": params[2].type: 'col_idx' holds CSR indices: type = \"int32\"");
  }
  const std::string unknown = replaced(kSparse, "values = \"vals\"", "values = \"value\"");
  {
    const std::string got_ = error_of(unknown, &path);
    EXPECT_EQ(got_, path + ":" + std::to_string(line_of(unknown, "values = \"value\"")) + ": sparse: 'value' is not a parameter");
  }
}

// vector_add re-expressed as a task file (tests/mskb/core/data/vector_add.toml) against the built-in.
TEST_F(TaskFileTest, VectorAddTaskFileMatchesTheBuiltIn) {
  const TaskFile tf = load_task_file(source_root() + "/tests/mskb/core/data/vector_add.toml");
  const TaskSpec& mine = tf.spec;
  const TaskSpec& builtin = get_task("vector_add");
  EXPECT_EQ(mine.signature(Precision::fp32), builtin.signature(Precision::fp32));
  EXPECT_EQ(mine.signature(Precision::bf16), builtin.signature(Precision::bf16));
  EXPECT_EQ(mine.semantics, builtin.semantics);
  EXPECT_EQ(mine.paper, builtin.paper);
  EXPECT_EQ(mine.heldout, builtin.heldout);
  EXPECT_EQ(mine.large, builtin.large);
  for (const Shape& sh : {builtin.paper[0], builtin.paper[2], builtin.heldout[0], builtin.heldout[2]})
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      for (uint64_t seed : {1, 2, 3}) {
        // The same distribution (the built-in draws it with the counter generator, a task file with
        // chunked streams: other values), the same reference on the same inputs.
        const Args a = make_inputs(mine, sh, p, seed), b = make_inputs(builtin, sh, p, seed);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
          EXPECT_EQ(a[i].data.size(), b[i].data.size()) << sh.str() << " param " << i;
          EXPECT_EQ(a[i].value, b[i].value);
          for (double v : a[i].data) {
            EXPECT_GE(v, -1.0);
            EXPECT_LE(v, 1.0);
          }
        }
        if (a[0].data.size() > 100) {
          EXPECT_NE(a[0].data, a[1].data) << sh.str();
        }
        const Args ea = make_expected(mine, sh, p, a), eb = make_expected(builtin, sh, p, a);
        EXPECT_EQ(ea[2].data, eb[2].data) << sh.str();
      }
      EXPECT_DOUBLE_EQ(mine.tolerance(sh, p).atol, builtin.tolerance(sh, p).atol);
      EXPECT_DOUBLE_EQ(mine.tolerance(sh, p).rtol, builtin.tolerance(sh, p).rtol);
      EXPECT_DOUBLE_EQ(mine.cost(sh, p).bytes, builtin.cost(sh, p).bytes);
      EXPECT_DOUBLE_EQ(mine.cost(sh, p).flops, builtin.cost(sh, p).flops);
      EXPECT_EQ(mine.complexity(sh), builtin.complexity(sh));
    }
  // Its name is a built-in task's: it cannot be registered.
  try {
    register_task_file(tf.path);
    FAIL();
  } catch (const TaskFileError& e) {
    EXPECT_EQ(std::string(e.what()), tf.path + ": name 'vector_add' is a built-in task (choose another name)");
  }
}

TEST_F(TaskFileTest, RegisteredTasksAreFoundByName) {
  const std::string path = write_task(replaced(kGood, "bias_rows", "registered_rows"));
  EXPECT_EQ(find_task("registered_rows"), nullptr);
  const TaskFile& tf = register_task_file(path);
  EXPECT_EQ(&register_task_file(path), &tf);  // read once
  EXPECT_EQ(find_task("registered_rows"), &tf.spec);
  EXPECT_EQ(&get_task("registered_rows"), &tf.spec);
  EXPECT_EQ(registered_task_file("registered_rows"), &tf);
  EXPECT_EQ(&resolve_task("registered_rows", path), &tf.spec);
  EXPECT_EQ(&resolve_task("vector_add", ""), &get_task("vector_add"));
  for (const auto& t : all_tasks()) EXPECT_NE(t.name, "registered_rows");  // all_tasks stays the built-in ones
  try {
    resolve_task("other", path);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), path + " defines task 'registered_rows', not 'other'");
  }
  const std::string twin = write_task(replaced(kGood, "bias_rows", "registered_rows"));
  try {
    register_task_file(twin);
    FAIL();
  } catch (const TaskFileError& e) {
    EXPECT_EQ(std::string(e.what()), twin + ": name 'registered_rows' is already the task of " + path);
  }
}

// reference_kernel (a CUDA kernel as the reference) and reference_precision: what the file says is
// kept, every misuse is one golden line, and the host reference refuses to run.
TEST_F(TaskFileTest, ReferenceKernelKeysAreReadAndValidated) {
  const std::string kernel_toml = replaced(kGood, "reference = \"ref.cpp\"", "reference_kernel = \"orig.cu\"\nreference_precision = \"fp32\"");
  auto with_orig = [&](const std::string& toml, const std::string& orig_name = "orig.cu") {
    const std::string path = write_task(toml);
    write(fs::path(path).parent_path() / orig_name, "// a kernel\n");
    return path;
  };
  const std::string path = with_orig(kernel_toml);
  const TaskFile tf = load_task_file(path);
  EXPECT_EQ(tf.reference_kernel, (fs::path(path).parent_path() / "orig.cu").string());
  EXPECT_EQ(tf.reference_precision, "fp32");
  EXPECT_EQ(tf.reference_kernel_where, path + ":" + std::to_string(line_of(kernel_toml, "reference_kernel")) + ": reference_kernel");
  EXPECT_TRUE(tf.reference_source.empty());
  EXPECT_EQ(tf.reference_state, nullptr);
  EXPECT_EQ(compile_reference(tf), "");  // nothing for the host compiler: the harness builds the kernel
  EXPECT_TRUE(validate(tf.spec).empty());
  const Shape sh{{"M", 3}, {"N", 5}};
  const Args in = make_inputs(tf.spec, sh, Precision::fp32, 1);  // inputs are drawn as with any reference
  try {
    make_expected(tf.spec, sh, Precision::fp32, in);
    FAIL() << "a reference kernel has no host reference";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), tf.reference_kernel_where +
                                         ": the reference of task bias_rows is a CUDA kernel (orig.cu): it runs on the GPU, in mskb-runner; "
                                         "there is no host reference");
  }
  // The FP64 reference keeps no kernel fields.
  const TaskFile plain = load_task_file(write_task(kGood));
  EXPECT_TRUE(plain.reference_kernel.empty());
  EXPECT_TRUE(plain.reference_precision.empty());

  struct Case {
    std::string toml, needle, message;  // message after "PATH:LINE: "
    std::string orig = "orig.cu";
  };
  const std::vector<Case> cases = {
      {replaced(kGood, "reference = \"ref.cpp\"", "reference = \"ref.cpp\"\nreference_kernel = \"orig.cu\"\nreference_precision = \"fp32\""),
       "reference_kernel", "reference_kernel: give reference (an FP64 C/C++ reference) or reference_kernel (a CUDA kernel), not both"},
      {replaced(kernel_toml, "reference_precision = \"fp32\"", "reference_precision = \"fp8\""), "fp8",
       "reference_precision: unknown precision 'fp8' (fp64, fp32, tf32, bf16, fp16)"},
      {replaced(kernel_toml, "reference_precision = \"fp32\"", "reference_precision = 32"), "reference_precision = 32",
       "reference_precision: expected a string, got an integer"},
      {replaced(kernel_toml, "\nreference_precision = \"fp32\"", ""), "reference_kernel",
       "reference_precision: missing (what reference_kernel computes in: fp64, fp32, tf32, bf16, fp16)"},
      {replaced(kGood, "reference = \"ref.cpp\"", "reference = \"ref.cpp\"\nreference_precision = \"fp32\""), "reference_precision",
       "reference_precision: only with reference_kernel (reference = \"...\" computes in FP64)"},
      {replaced(kernel_toml, "seeds = 4", "seeds = 4\nreference_flags = [\"-fopenmp\"]"), "reference_flags",
       "reference_flags: host-compiler flags are for reference = \"ref.cpp\"; reference_kernel is built like a kernel"},
      {replaced(kernel_toml, "orig.cu", "orig.cpp"), "reference_kernel", "reference_kernel: orig.cpp is not a CUDA source (.cu)", "orig.cpp"},
  };
  for (const Case& c : cases) {
    const std::string p = with_orig(c.toml, c.orig);
    std::string got;
    try {
      load_task_file(p);
    } catch (const TaskFileError& e) {
      got = e.what();
    }
    EXPECT_EQ(got, p + ":" + std::to_string(line_of(c.toml, c.needle)) + ": " + c.message) << c.toml;
    EXPECT_EQ(got.find('\n'), std::string::npos);
  }
  // A reference kernel that is not there, and a file with neither reference.
  std::string missing_path;
  const std::string missing = replaced(kernel_toml, "orig.cu", "orig2.cu");
  const std::string missing_error = error_of(missing, &missing_path);  // sets missing_path first
  EXPECT_EQ(missing_error, missing_path + ":" + std::to_string(line_of(missing, "orig2.cu")) +
                                                  ": reference_kernel: file not found: orig2.cu (looked for " +
                                                  (fs::path(missing_path).parent_path() / "orig2.cu").string() + ")");
  std::string none_path;
  const std::string none = replaced(kGood, "reference = \"ref.cpp\"\n", "");
  const std::string none_error = error_of(none, &none_path);
  EXPECT_EQ(none_error, none_path + ":1: reference: missing (the FP64 reference source, e.g. \"ref.cpp\" "
                                                    "(include/mskb/core/abi/mskb_reference.h), or reference_kernel = \"orig.cu\" (a CUDA kernel))");
}

// examples/histogram: int32 counts (role accumulate) of a real input; its FP64 reference counts
// every value exactly, the counts add up to N, and bf16 values rounded up to 1.0 land in the last bin.
TEST_F(TaskFileTest, HistogramExampleValidatesAndItsReferenceCounts) {
  const TaskFile tf = load_task_file(source_root() + "/examples/histogram/task.toml");
  const TaskSpec& s = tf.spec;
  EXPECT_EQ(s.name, "histogram");
  EXPECT_TRUE(validate(s).empty());
  EXPECT_EQ(s.signature(Precision::fp32), "extern \"C\" void histogram(const float* values, int* counts, int N, int B)");
  EXPECT_EQ(s.signature(Precision::bf16), "extern \"C\" void histogram_bf16(const __nv_bfloat16* values, int* counts, int N, int B)");
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[1].elem, Elem::i32);
  EXPECT_EQ(s.params[1].role, Role::accumulate);
  EXPECT_EQ(tf.baseline.at(Precision::fp32), source_root() + "/examples/histogram/baseline.cu");
  EXPECT_TRUE(tf.reference_kernel.empty());
  EXPECT_TRUE(fs::is_regular_file(compile_reference(tf)));
  for (Precision p : {Precision::fp32, Precision::bf16})
    for (const Shape& sh : {Shape{{"N", 1000}, {"B", 16}}, Shape{{"N", 1}, {"B", 1}}, s.heldout[1]}) {
      const Args in = make_inputs(s, sh, p, 2);
      const Args want = make_expected(s, sh, p, in);
      const auto bins = static_cast<std::size_t>(sh["B"]);
      std::vector<double> counts(bins, 0.0);
      for (double v : in[0].data) {
        ASSERT_TRUE(v >= 0.0 && v <= 1.0) << v;
        counts[std::min(bins - 1, static_cast<std::size_t>(std::floor(v * static_cast<double>(bins))))] += 1;
      }
      EXPECT_EQ(want[1].data, counts) << sh.str() << " " << to_string(p);
      double total = 0;
      for (double c : want[1].data) total += c;
      EXPECT_EQ(total, static_cast<double>(sh["N"])) << sh.str();
      EXPECT_EQ(want[0].data, in[0].data);  // the input untouched
    }
  // A hand-made instance: bins of 1/4, with 1.0 (a bf16 rounding of 0.999) in the last.
  const Shape sh{{"N", 6}, {"B", 4}};
  Args a = make_inputs(s, sh, Precision::bf16, 1);
  a[0].data = {0.0, 0.2499, 0.25, 0.5, 0.99, 1.0};
  const Args want = make_expected(s, sh, Precision::bf16, a);
  EXPECT_EQ(want[1].data, (std::vector<double>{2, 1, 1, 2}));
  // Every bin count it is ever run with is a power of two (v * B exact in FP32), random shapes too.
  std::vector<Shape> shapes = s.paper;
  shapes.insert(shapes.end(), s.heldout.begin(), s.heldout.end());
  shapes.insert(shapes.end(), s.large.begin(), s.large.end());
  for (uint64_t seed = 1; seed <= 40; ++seed)
    for (const Shape& r : random_shapes(s, seed, 2)) shapes.push_back(r);
  for (const Shape& r : shapes) {
    const int64_t b = r["B"];
    EXPECT_TRUE(b >= 1 && (b & (b - 1)) == 0) << r.str();
    EXPECT_GE(r["N"], 1) << r.str();
  }
}

// examples/conv1d: its reference is a CUDA kernel computing in FP32 (built by the harness:
// mskb_harness_reference_kernel_test); the file validates and every shape it is run with has K <= N.
TEST_F(TaskFileTest, Conv1dExampleNamesItsReferenceKernel) {
  const std::string dir = source_root() + "/examples/conv1d";
  const TaskFile tf = load_task_file(dir + "/task.toml");
  const TaskSpec& s = tf.spec;
  EXPECT_EQ(s.name, "conv1d");
  EXPECT_TRUE(validate(s).empty());
  EXPECT_EQ(tf.reference_kernel, dir + "/orig.cu");
  EXPECT_EQ(tf.reference_precision, "fp32");
  EXPECT_EQ(tf.precisions, (std::vector<Precision>{Precision::fp32}));
  EXPECT_EQ(tf.baseline.at(Precision::fp32), dir + "/baseline.cu");
  EXPECT_EQ(compile_reference(tf), "");
  EXPECT_EQ(s.signature(Precision::fp32), "extern \"C\" void conv1d(const float* x, const float* w, float* y, int N, int K)");
  // The tolerance allows for two FP32 sums: twice the built-in conv_1d's one-sum budget.
  const Shape sh{{"N", 4096}, {"K", 256}};
  EXPECT_DOUBLE_EQ(s.tolerance(sh, Precision::fp32).atol, 2 * std::ldexp(1.0, -24) * (16 * std::sqrt(256.0) + 256));
  EXPECT_DOUBLE_EQ(s.cost(sh, Precision::fp32).flops, 2.0 * 256 * (4096 - 256 + 1));
  const Args in = make_inputs(s, sh, Precision::fp32, 1);
  EXPECT_EQ(in[2].data.size(), 4096u - 256 + 1);
  EXPECT_THROW(make_expected(s, sh, Precision::fp32, in), std::runtime_error);
  std::vector<Shape> shapes = s.heldout;
  for (uint64_t seed = 1; seed <= 40; ++seed)
    for (const Shape& r : random_shapes(s, seed, 2)) shapes.push_back(r);
  for (const Shape& r : shapes) EXPECT_LE(r["K"], r["N"]) << r.str();
}

// fp16 buffers (docs/task-files.md, type fp16): __half in both entry points, inputs rounded to the
// nearest half (subnormal halves included) the same in both precisions, the reference sees the
// exact doubles the kernel's bytes hold, and outputs compare from their device bytes with the
// tolerance: a correct kernel's bytes pass, a wrong or unwritten half fails.

TEST_F(TaskFileTest, Fp16InputsAndOutputs) {
  const TaskFile tf = load_task_file(write_task(mskb_test::kHalfScaleToml, mskb_test::kHalfScaleRef));
  const TaskSpec& s = tf.spec;
  EXPECT_TRUE(validate(s).empty());
  ASSERT_EQ(s.params.size(), 5u);
  EXPECT_EQ(s.params[0].elem, Elem::f16);
  EXPECT_EQ(s.params[3].elem, Elem::f16);
  EXPECT_EQ(s.signature(Precision::fp32), "extern \"C\" void half_scale(const __half* x, const __half* w, float* y, __half* h, int N)");
  EXPECT_EQ(s.signature(Precision::bf16), "extern \"C\" void half_scale_bf16(const __half* x, const __half* w, float* y, __half* h, int N)");
  const Shape sh{{"N", 1000}};
  // Default bytes: every buffer at its element size, fp16 two bytes in both precisions.
  EXPECT_DOUBLE_EQ(s.cost(sh, Precision::fp32).bytes, 1000.0 * (2 + 2 + 4 + 2));
  EXPECT_DOUBLE_EQ(s.cost(sh, Precision::bf16).bytes, 1000.0 * (2 + 2 + 4 + 2));
  const Args in32 = make_inputs(s, sh, Precision::fp32, 3), in16 = make_inputs(s, sh, Precision::bf16, 3);
  EXPECT_EQ(in32[0].data, in16[0].data);  // fp16 whatever the precision
  EXPECT_EQ(in32[1].data, in16[1].data);
  std::size_t subnormal = 0, inexact_in_bf16 = 0;
  for (const auto* v : {&in32[0].data, &in32[1].data})
    for (double x : *v) {
      ASSERT_EQ(fp16_to_double(fp16_bits(x)), x) << "not a half: " << x;
      subnormal += x != 0 && std::fabs(x) < 0x1p-14;
      inexact_in_bf16 += round_to(Precision::bf16, x) != x;  // halves hold bits bf16 has not
    }
  EXPECT_GT(subnormal, 100u);  // normal(0, 1e-5): most of w is below the smallest normal half
  EXPECT_GT(inexact_in_bf16, 500u);
  for (double x : in32[0].data) EXPECT_TRUE(x >= -3 && x <= 3) << x;

  for (Precision p : {Precision::fp32, Precision::bf16}) {
    SCOPED_TRACE(to_string(p));
    const Args in = make_inputs(s, sh, p, 3);
    // The kernel's bytes hold exactly the doubles the reference gets.
    const std::vector<std::size_t> elements = {1000, 1000, 1000, 1000, 0};
    const InstanceLayout l = instance_layout(s, p, elements, 0);
    std::vector<unsigned char> region(l.input_bytes);
    encode_inputs(s, p, in, l, region.data());
    for (std::size_t k = 0; k < 1000; ++k) {
      ASSERT_EQ(decode_elem(region.data() + l.params[0].in_offset + 2 * k, Elem::f16, p), in[0].data[k]);
      ASSERT_EQ(decode_elem(region.data() + l.params[1].in_offset + 2 * k, Elem::f16, p), in[1].data[k]);
    }
    const Args want = make_expected(s, sh, p, in);
    for (std::size_t k = 0; k < 1000; ++k) {
      ASSERT_EQ(want[2].data[k], 3 * in[0].data[k] + in[1].data[k]);
      ASSERT_EQ(want[3].data[k], in[0].data[k] / 2);
    }
    // A correct kernel's bytes: y rounded to float, h to half.
    std::vector<unsigned char> y(4000), h(2000);
    for (std::size_t k = 0; k < 1000; ++k) {
      encode_elem(want[2].data[k], Elem::f32, p, y.data() + 4 * k);
      encode_elem(want[3].data[k], Elem::f16, p, h.data() + 2 * k);
    }
    const Tolerance tol = s.tolerance(sh, p);
    CompareResult good;
    compare_encoded("y", y.data(), y.size(), Elem::f32, p, 0xFF, want[2].data, tol, false, good);
    compare_encoded("h", h.data(), h.size(), Elem::f16, p, 0xFF, want[3].data, tol, false, good);
    EXPECT_TRUE(good.ok) << good.max_rel_err;
    EXPECT_EQ(good.checked, 2000u);
    // h[5] negated, h[9] never written (0xFFFF): one wrong, one unwritten.
    encode_elem(-want[3].data[5] + (want[3].data[5] == 0 ? 1.0 : 0.0), Elem::f16, p, h.data() + 10);
    h[18] = h[19] = 0xFF;
    CompareResult bad;
    compare_encoded("h", h.data(), h.size(), Elem::f16, p, 0xFF, want[3].data, tol, false, bad);
    EXPECT_FALSE(bad.ok);
    EXPECT_EQ(bad.mismatches, 2u);
    EXPECT_EQ(bad.unwritten, 1u);
    EXPECT_EQ(bad.first_bad, (std::vector<std::size_t>{5, 9}));
  }
}

// int64 buffers and scalars: long long in the entry point, int_uniform draws beyond 2^31 (and
// negative) reach the reference exactly, outputs compare exactly from their eight bytes.

TEST_F(TaskFileTest, Int64BuffersAndScalars) {
  const TaskFile tf = load_task_file(write_task(mskb_test::kOffsets64Toml, mskb_test::kOffsets64Ref));
  const TaskSpec& s = tf.spec;
  EXPECT_TRUE(validate(s).empty());
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[0].elem, Elem::i64);
  EXPECT_EQ(s.params[1].elem, Elem::i64);
  EXPECT_FALSE(s.params[2].is_buffer);
  EXPECT_EQ(s.params[2].scalar, ScalarType::i64);
  EXPECT_EQ(s.signature(Precision::fp32), "extern \"C\" void offsets64(const long long* idx, long long* out, long long base, int N)");
  const Shape sh{{"N", 1000}};
  EXPECT_DOUBLE_EQ(s.cost(sh, Precision::fp32).bytes, 16000.0);
  const Args in = make_inputs(s, sh, Precision::fp32, 5);
  EXPECT_EQ(in[2].value, 8589934592.0 + 1000);
  std::size_t beyond_int32 = 0, negative = 0;
  for (double v : in[0].data) {
    ASSERT_EQ(v, std::floor(v));
    ASSERT_LE(std::fabs(v), 1099511627776.0);
    beyond_int32 += std::fabs(v) > 2147483648.0;
    negative += v < 0;
  }
  EXPECT_GT(beyond_int32, 900u);
  EXPECT_GT(negative, 300u);
  const InstanceLayout l = instance_layout(s, Precision::fp32, {1000, 1000, 0, 0}, 0);
  std::vector<unsigned char> region(l.input_bytes);
  encode_inputs(s, Precision::fp32, in, l, region.data());
  std::vector<int64_t> device(1000);
  std::memcpy(device.data(), region.data() + l.params[0].in_offset, 8000);
  for (std::size_t k = 0; k < 1000; ++k) ASSERT_EQ(static_cast<double>(device[k]), in[0].data[k]);
  const Args want = make_expected(s, sh, Precision::fp32, in);
  std::vector<unsigned char> out(8000);
  for (std::size_t k = 0; k < 1000; ++k) {
    const int64_t right = 3 * device[k] + (int64_t{1} << 33) + 1000;
    ASSERT_EQ(want[1].data[k], static_cast<double>(right));
    std::memcpy(out.data() + 8 * k, &right, 8);
  }
  const Tolerance tol = s.tolerance(sh, Precision::fp32);
  CompareResult good;
  compare_encoded("out", out.data(), out.size(), Elem::i64, Precision::fp32, 0xFF, want[1].data, tol, elem_is_integer(Elem::i64), good);
  EXPECT_TRUE(good.ok);
  // Off by one at one element; the tolerance does not matter for integers.
  int64_t v;
  std::memcpy(&v, out.data() + 8 * 17, 8);
  ++v;
  std::memcpy(out.data() + 8 * 17, &v, 8);
  CompareResult off;
  compare_encoded("out", out.data(), out.size(), Elem::i64, Precision::fp32, 0xFF, want[1].data, {1e9, 1.0}, true, off);
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(off.first_bad, std::vector<std::size_t>{17});
  std::memset(out.data() + 8 * 999, 0xFF, 8);
  CompareResult unwritten;
  compare_encoded("out", out.data(), out.size(), Elem::i64, Precision::fp32, 0xFF, want[1].data, tol, true, unwritten);
  EXPECT_EQ(unwritten.unwritten, 1u);
  EXPECT_EQ(unwritten.mismatches, 2u);
}

// Integer values must fit their type at every shape: int32 within [-2^31, 2^31), int64 within
// +-2^53 (what the FP64 reference holds exactly).
TEST_F(TaskFileTest, IntegerRangesAreCheckedAtEveryShape) {
  std::string path, got;
  std::string toml = replaced(mskb_test::kOffsets64Toml, "hi = \"2**40\"", "hi = \"2**60\"");
  got = error_of(toml, &path);
  EXPECT_EQ(got,
            path + ":" + std::to_string(line_of(toml, "2**60")) +
                ": params[0].init.hi: '2**60' is 1152921504606846976, beyond 2^53 in magnitude (int64 values reach the FP64 reference "
                "exactly only up to 2^53) at shape N=1000 (sweeps.paper[0], line " + std::to_string(line_of(toml, "paper")) + ")");
  toml = replaced(mskb_test::kOffsets64Toml, "value = \"2**33 + N\"", "value = \"2**53 + N\"");
  got = error_of(toml, &path);
  EXPECT_EQ(got,
            path + ":" + std::to_string(line_of(toml, "2**53 + N")) +
                ": params[2].value: '2**53 + N' is 9007199254741992, beyond 2^53 in magnitude (int64 values reach the FP64 reference "
                "exactly only up to 2^53) at shape N=1000 (sweeps.paper[0], line " + std::to_string(line_of(toml, "paper")) + ")");
  toml = replaced(mskb_test::kOffsets64Toml, "value = \"N\"", "value = \"N * 2**22\"");
  got = error_of(toml, &path);
  EXPECT_EQ(got, path + ":" + std::to_string(line_of(toml, "N * 2**22")) +
                                       ": params[3].value: 'N * 2**22' is 4194304000, outside int32 (use int64) at shape N=1000 "
                                       "(sweeps.paper[0], line " + std::to_string(line_of(toml, "paper")) + ")");
  // The same value as an int64 scalar is fine; so are the extremes of each range.
  EXPECT_EQ(error_of(replaced(replaced(mskb_test::kOffsets64Toml, "value = \"N\"", "value = \"N * 2**22\""), "name = \"N\"\ntype = \"int\"",
                              "name = \"N\"\ntype = \"int64\"")),
            "");
  EXPECT_EQ(error_of(replaced(mskb_test::kOffsets64Toml, "lo = \"-(2**40)\", hi = \"2**40\"", "lo = \"-(2**53)\", hi = \"2**53\"")), "");
  toml = replaced(kGood, "lo = 0, hi = \"N-1\"", "lo = \"-(2**31)\", hi = \"2**31\"");
  got = error_of(toml, &path);
  EXPECT_EQ(got, path + ":" + std::to_string(line_of(toml, "2**31\" }")) +
                                       ": params[2].init.hi: '2**31' is 2147483648, outside int32 (use int64) at shape M=4,N=8 "
                                       "(sweeps.paper[0], line " + std::to_string(line_of(toml, "paper")) + ")");
  EXPECT_EQ(error_of(replaced(kGood, "lo = 0, hi = \"N-1\"", "lo = \"-(2**31)\", hi = \"2**31 - 1\"")), "");
}

// examples/row_argmax: an fp16 input, an fp32 and an int64 output. Its reference keeps the first
// maximum of each row; halves tie often enough that the rule matters at the paper shapes.
TEST_F(TaskFileTest, RowArgmaxExampleValidatesAndKeepsTheFirstMaximum) {
  const std::string dir = source_root() + "/examples/row_argmax";
  const TaskFile tf = load_task_file(dir + "/task.toml");
  const TaskSpec& s = tf.spec;
  EXPECT_EQ(s.name, "row_argmax");
  EXPECT_TRUE(validate(s).empty());
  EXPECT_EQ(tf.precisions, (std::vector<Precision>{Precision::fp32}));
  EXPECT_EQ(s.signature(Precision::fp32), "extern \"C\" void row_argmax(const __half* x, float* vmax, long long* idx, int M, int N)");
  EXPECT_EQ(tf.baseline.at(Precision::fp32), dir + "/baseline.cu");
  EXPECT_TRUE(fs::is_regular_file(compile_reference(tf)));
  // A hand-made instance: a tie in the first row (index 1, not 2), the maximum first in the second.
  const Shape small{{"M", 2}, {"N", 4}};
  Args a = make_inputs(s, small, Precision::fp32, 1);
  a[0].data = {1, 3, 3, -2, -1, -1, -5, -1};
  const Args hand = make_expected(s, small, Precision::fp32, a);
  EXPECT_EQ(hand[1].data, (std::vector<double>{3, -1}));
  EXPECT_EQ(hand[2].data, (std::vector<double>{1, 0}));
  for (const Shape& sh : {s.paper[0], s.heldout[0], s.heldout[1], s.heldout[3]}) {
    const Args in = make_inputs(s, sh, Precision::fp32, 1);
    const Args want = make_expected(s, sh, Precision::fp32, in);
    const auto m = static_cast<std::size_t>(sh["M"]), n = static_cast<std::size_t>(sh["N"]);
    std::size_t tied_rows = 0;
    for (std::size_t r = 0; r < m; ++r) {
      const double* row = in[0].data.data() + r * n;
      const double best = *std::max_element(row, row + n);
      const auto first = static_cast<std::size_t>(std::find(row, row + n, best) - row);
      ASSERT_EQ(want[1].data[r], best) << sh.str() << " row " << r;
      ASSERT_EQ(want[2].data[r], static_cast<double>(first)) << sh.str() << " row " << r;
      tied_rows += std::count(row, row + n, best) > 1;
    }
    for (double x : in[0].data) ASSERT_EQ(fp16_to_double(fp16_bits(x)), x);
    if (sh == s.paper[0]) {
      EXPECT_GT(tied_rows, 0u) << "no row with two equal maxima at " << sh.str();
    }
  }
}

}  // namespace
}  // namespace mskb

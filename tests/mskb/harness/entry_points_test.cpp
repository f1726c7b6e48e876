// Whether a built kernel exports its entry point, told without a GPU: the dynamic symbol table read
// in process (exported_functions) from a library the host compiler builds here, the missing_entry
// messages, and the corpus's no_entry.cu built with nvcc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/core/registry.hpp"
#include "mskb/harness/binary_policy.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/entry_points.hpp"
#include "mskb/util/process.hpp"

#include "support/scratch_dir.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

// The test's scratch folder (tests/support/scratch_dir.hpp).
struct TempDir : mskb_test::ScratchDir {
  TempDir() : ScratchDir("entry-points") {}
};

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(ExportedFunctions, ReadsTheDynamicSymbolTable) {
  TempDir t;
  const fs::path src = t.p / "lib.cpp";
  std::ofstream(src) << "extern \"C\" int exported_c(int x) { return x + 1; }\n"
                        "int exported_cpp(const float* a, int n) { return n + static_cast<int>(a[0]); }\n"
                        "extern \"C\" __attribute__((weak)) int exported_weak() { return 2; }\n"
                        "extern \"C\" __attribute__((visibility(\"hidden\"))) int hidden_fn() { return 3; }\n"
                        "static int static_fn() { return 4; }\n"
                        "extern \"C\" int uses_static() { return static_fn(); }\n"
                        "extern \"C\" int a_variable = 5;\n"
                        "extern \"C\" int puts(const char*);\n"
                        "extern \"C\" int calls_puts() { return puts(\"x\"); }\n";
  const fs::path so = t.p / "lib.so";
  std::string out;
  ASSERT_EQ(run_command({MSKB_TEST_CXX, "-shared", "-fPIC", "-O1", "-o", so.string(), src.string()}, out, 120), 0) << out;
  const std::vector<std::string> f = exported_functions(so.string());
  EXPECT_TRUE(has(f, "exported_c"));
  EXPECT_TRUE(has(f, "_Z12exported_cppPKfi"));
  EXPECT_TRUE(has(f, "exported_weak"));
  EXPECT_TRUE(has(f, "uses_static"));
  EXPECT_TRUE(has(f, "calls_puts"));
  EXPECT_FALSE(has(f, "hidden_fn")) << "hidden: dlsym cannot find it";
  EXPECT_FALSE(has(f, "_ZL9static_fnv"));
  EXPECT_FALSE(has(f, "static_fn"));
  EXPECT_FALSE(has(f, "a_variable")) << "not a function";
  EXPECT_FALSE(has(f, "puts")) << "imported, not defined";
  EXPECT_EQ(exported_symbols(so.string()), f);

  // Not a shared object: a one-line error naming the file (exported_symbols: empty).
  const fs::path text = t.p / "not_elf.so";
  std::ofstream(text) << "hello";
  try {
    (void)exported_functions(text.string());
    ADD_FAILURE() << "a text file was read as a library";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not_elf.so: not an ELF file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(exported_symbols(text.string()).empty());
  EXPECT_THROW((void)exported_functions((t.p / "missing.so").string()), std::runtime_error);
}

TEST(MissingEntry, Messages) {
  const std::vector<EntryPoint> entries = task_entry_points(get_task("vector_add"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].symbol, "vector_add");
  EXPECT_EQ(entries[1].symbol, "vector_add_bf16");
  EXPECT_EQ(missing_entry("k.cu", {"vector_add"}, entries, "task vector_add"), "");
  EXPECT_EQ(missing_entry("k.cu", {"helper", "vector_add_bf16"}, entries, "task vector_add"), "") << "one precision is enough";

  const std::string typo = missing_entry("/x/no_entry.cu", {"vectoradd"}, entries, "task vector_add");
  EXPECT_EQ(typo.rfind("missing_entry: no_entry.cu exports no entry point of task vector_add: " + entries[0].signature + " or its vector_add_bf16", 0),
            0u)
      << typo;
  EXPECT_NE(typo.find("(it exports: vectoradd; did you mean vector_add?)"), std::string::npos) << typo;

  // Without extern "C": the mangled name is there, with the parameters it was compiled with.
  const std::string cpp = missing_entry("k.cu", {"_Z10vector_addPKfS0_Pfi"}, entries, "task vector_add");
  EXPECT_NE(cpp.find("exports vector_add as a C++ function, vector_add(float const*, float const*, float*, int)"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("declare it " + entries[0].signature), std::string::npos) << cpp;

  EXPECT_NE(missing_entry("k.cu", {}, entries, "task vector_add").find("(it exports no function)"), std::string::npos);
  // The toolchain's own names are left out of what it exports.
  const std::string own = missing_entry("k.cu", {"_init", "_fini", "my_add"}, entries, "task vector_add");
  EXPECT_NE(own.find("(it exports: my_add)"), std::string::npos) << own;

  // Any task's: the nearest name is suggested, the list of every task is not spelled out.
  std::vector<EntryPoint> any;
  for (const TaskSpec& t : all_tasks())
    for (const EntryPoint& e : task_entry_points(t)) any.push_back(e);
  const std::string anywhere = missing_entry("k.cu", {"softmx"}, any, "any task (mskb list)");
  EXPECT_NE(anywhere.find("exports no entry point of any task (mskb list) (an extern \"C\" function named after the task"), std::string::npos)
      << anywhere;
  EXPECT_NE(anywhere.find("did you mean softmax?"), std::string::npos) << anywhere;
  EXPECT_EQ(missing_entry("k.cu", {"whatever"}, {}, "no task"), "") << "nothing expected, nothing missing";
}

// tests/mskb/gpu/kernels/no_entry.cu compiles (exporting `vectoradd`); the symbol table says so
// without loading it.
TEST(MissingEntry, NoEntryKernelBuiltWithNvcc) {
  TempDir t;
  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  o.binary_policy = true;
  const std::string kernel = std::string(MSKB_TEST_SOURCE_DIR) + "/tests/mskb/gpu/kernels/no_entry.cu";
  const CompileResult r = compile_kernel(kernel, o);
  ASSERT_TRUE(r.ok) << r.error << r.log;
  const std::vector<std::string> f = exported_functions(r.so_path);
  EXPECT_TRUE(has(f, "vectoradd"));
  const std::string m = missing_entry(kernel, f, task_entry_points(get_task("vector_add")), "task vector_add");
  EXPECT_EQ(m.rfind("missing_entry: no_entry.cu exports no entry point of task vector_add", 0), 0u) << m;
  EXPECT_NE(m.find("did you mean vector_add?"), std::string::npos) << m;
}

// mskb/util/text.hpp: reading files, trimming, splitting and joining lists.
#include "mskb/util/text.hpp"
#include "mskb/util/command_line.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace mskb {
namespace {

using Items = std::vector<std::string>;

TEST(Text, ReadTextReturnsTheBytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("mskb_text_test_" + std::to_string(::getpid()) + ".bin")).string();
  const std::string bytes("a\0b\r\nlast", 9);
  {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  }
  EXPECT_EQ(read_text(path), bytes);
  std::remove(path.c_str());
}

TEST(Text, ReadTextOfAMissingFileIsAOneLineError) {
  try {
    read_text("/nonexistent/mskb/file.txt");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read /nonexistent/mskb/file.txt");
  }
}

TEST(Text, Trim) {
  EXPECT_EQ(trim("  a b\t\r\n"), "a b");
  EXPECT_EQ(trim(" \t\n "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\tx\n", " \t"), "x\n");
  EXPECT_EQ(trim("--x--", "-"), "x");
}

TEST(Text, SplitReadsLikeGetline) {
  EXPECT_EQ(split("", ','), Items{});
  EXPECT_EQ(split("a", ','), Items{"a"});
  EXPECT_EQ(split("a,b", ','), (Items{"a", "b"}));
  EXPECT_EQ(split("a,", ','), Items{"a"});
  EXPECT_EQ(split(",a,,b", ','), (Items{"", "a", "", "b"}));
  EXPECT_EQ(split(",a,,b,", ',', true), (Items{"a", "b"}));
  EXPECT_EQ(split(",,", ',', true), Items{});
}

TEST(Text, JoinAndStartsWith) {
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"a", "", "b"}, ", "), "a, , b");
  EXPECT_TRUE(starts_with("gpu:1", "gpu"));
  EXPECT_TRUE(starts_with("x", ""));
  EXPECT_FALSE(starts_with("gp", "gpu"));
  EXPECT_FALSE(starts_with("xgpu", "gpu"));
}

}  // namespace
// Names read from an untrusted object (a kernel's symbols) go into one-line messages and report
// cells: nothing of them may break the line or smuggle an escape sequence (found by tests/fuzz).
TEST(Text, PrintableEscapesWhatIsNotPrintableAsciiAndCuts) {
  EXPECT_EQ(printable("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  EXPECT_EQ(printable(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable("caf\xc3\xa9 \\ |"), "caf\\xc3\\xa9 \\x5c |");  // a backslash is escaped too: the text reads back unambiguously
  EXPECT_EQ(printable(std::string(300, 'a')), std::string(200, 'a') + "...");
  EXPECT_EQ(printable("abcdef", 3), "abc...");
  EXPECT_EQ(printable(""), "");
}

TEST(Text, OneLineEscapesControlCharactersOnly) {
  EXPECT_EQ(one_line("saw 'i\n' at line 7"), "saw 'i\\x0a' at line 7");
  EXPECT_EQ(one_line("tab\there \x1b[0m \x7f"), "tab\\x09here \\x1b[0m \\x7f");
  EXPECT_EQ(one_line("\u00e9t\u00e9 \\ ok"), "\u00e9t\u00e9 \\ ok");  // UTF-8 and backslashes stay
}

// Words for a log line or report cell (a model's plan, a compiler's message, a progress item):
// every run of blanks and control characters one space, cut at a character boundary.
TEST(Text, CollapseWhitespacePutsWordsOnOneLineAndCutsWholeCharacters) {
  EXPECT_EQ(collapse_whitespace("  tile the\n\n  loads\t(\x1b[1mK\x1b[0m)\r\n"), "tile the loads ( [1mK [0m)");
  EXPECT_EQ(collapse_whitespace("\n\t \x7f"), "");
  EXPECT_EQ(collapse_whitespace("\u00e9t\u00e9  ok"), "\u00e9t\u00e9 ok");
  EXPECT_EQ(collapse_whitespace("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(collapse_whitespace("abcdefghijk", 10), "abcdefg...");
  EXPECT_EQ(collapse_whitespace("abcdef ghijk", 10), "abcdef...");  // no blank before the dots
  // "\u00e9" is two bytes: a cut at byte 7 would split the third one, so it goes whole.
  EXPECT_EQ(collapse_whitespace("ab\u00e9\u00e9\u00e9\u00e9\u00e9", 10), "ab\u00e9\u00e9...");
  EXPECT_EQ(collapse_whitespace("abcdef", 2), "...");
  for (std::size_t max = 0; max < 16; ++max) EXPECT_LE(collapse_whitespace("x\u00e9 y\u00e9\u00e9 z w v u", max).size(), std::max<std::size_t>(max, 3));
}

// nlohmann/json's precondition checks throw (include/mskb/util/json_config.hpp, given to every unit
// by CMake): a const object read at a key it lacks is an error, not a read past the map.
TEST(Text, JsonMissingKeyOfAConstObjectThrows) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"results": [{"task": "x"}]})");
  EXPECT_THROW((void)doc["scores"], std::invalid_argument);
  EXPECT_THROW((void)doc["results"][0]["time_us"], std::invalid_argument);
  try {
    (void)doc["results"][0]["time_us"]["median"];
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "malformed JSON document: a field or element it needs is missing");
  }
  EXPECT_EQ(doc["results"][0]["task"], "x");
}

}  // namespace mskb

// Every --arch option (mskb build/run/check, cudamaster optimize) takes the forms a GPU engineer
// writes and refuses the rest as a usage error.
TEST(GpuArchOption, EveryCommonFormAndNothingElse) {
  for (const char* s : {"80", "sm_80", "compute_80", "SM_80", "sm80"}) EXPECT_EQ(mskb::normalize_gpu_arch(s), std::optional<std::string>("80")) << s;
  for (const char* s : {"90a", "sm_90a", "compute_90a"}) EXPECT_EQ(mskb::normalize_gpu_arch(s), std::optional<std::string>("90a")) << s;
  EXPECT_EQ(mskb::normalize_gpu_arch("100f"), std::optional<std::string>("100f"));
  for (const char* s : {"", "sm_", "9", "compute_sm_80", "hopper", "90b", "sm_90 ", "1000"}) EXPECT_FALSE(mskb::normalize_gpu_arch(s)) << s;
  CLI::App app;
  std::string arch;
  app.add_option("--arch", arch)->transform(mskb::gpu_arch_option());
  EXPECT_NO_THROW(app.parse(std::vector<std::string>{"sm_80", "--arch"}));  // CLI11 takes the arguments reversed
  EXPECT_EQ(arch, "80");
  EXPECT_THROW(app.parse(std::vector<std::string>{"sm80x", "--arch"}), CLI::ValidationError);
}

// With the toolkit's list (nvcc --list-gpu-arch), an architecture it does not compile for is a
// usage error before any build, naming what it does; 'a' and 'f' variants go by their base; an
// empty list (the toolkit could not tell) checks nothing.
TEST(GpuArchOption, AnArchitectureTheToolkitLacksIsAUsageError) {
  std::vector<std::string> toolkit = {"75", "80", "90", "100", "120"};
  CLI::App app;
  std::string arch;
  app.add_option("--arch", arch)->transform(mskb::gpu_arch_option([&] { return toolkit; }));
  EXPECT_NO_THROW(app.parse(std::vector<std::string>{"sm_90a", "--arch"}));
  EXPECT_EQ(arch, "90a");
  EXPECT_NO_THROW(app.parse(std::vector<std::string>{"100f", "--arch"}));
  try {
    app.parse(std::vector<std::string>{"sm_70", "--arch"});
    FAIL() << "sm_70 accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("this CUDA toolkit's nvcc does not compile for sm_70 (it does for: 75, 80, 90, 100, 120)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(app.parse(std::vector<std::string>{"95", "--arch"}), CLI::ValidationError);
  toolkit.clear();
  EXPECT_NO_THROW(app.parse(std::vector<std::string>{"70", "--arch"}));
  EXPECT_EQ(arch, "70");
}

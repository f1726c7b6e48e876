// mskb/util/text.hpp: reading files, trimming, splitting and joining lists.
#include "mskb/util/text.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace mskb {
namespace {

using Items = std::vector<std::string>;

TEST(Text, ReadTextReturnsTheBytes) {
  const std::string path = (std::filesystem::temp_directory_path() / "mskb_text_test.bin").string();
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
}  // namespace mskb

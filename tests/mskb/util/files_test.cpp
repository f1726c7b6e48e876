// mskb/util/files.hpp: result files replaced whole (a reader never sees half of one), and paths that
// are not regular files written through in place - a rename over /dev/null (as root) replaced the
// device with a regular file, after which every program's reads of /dev/null returned old output.
#include "mskb/util/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "mskb/util/text.hpp"
#include "support/scratch_dir.hpp"

namespace fs = std::filesystem;
using mskb_test::ScratchDir;

namespace {

TEST(WriteFileAtomic, ReplacesARegularFileWholeAndLeavesNoTemporary) {
  ScratchDir d("files-replace");
  const fs::path p = d.p / "report.json";
  mskb::write_file_atomic(p.string(), "first");
  mskb::write_file_atomic(p.string(), "second");
  EXPECT_EQ(mskb::read_text(p.string()), "second");
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.p)) files += e.is_regular_file();
  EXPECT_EQ(files, 1) << "a temporary file was left beside the result";
}

TEST(WriteFileAtomic, WritesThroughALinkAndKeepsIt) {
  ScratchDir d("files-link");
  const fs::path target = d.p / "run-5.json", link = d.p / "latest.json";
  mskb::write_file_atomic(target.string(), "old");
  fs::create_symlink(target.filename(), link);
  mskb::write_file_atomic(link.string(), "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << "the link was replaced by a file";
  EXPECT_EQ(mskb::read_text(target.string()), "new");
}

TEST(WriteFileAtomic, WritesIntoAFifoAndKeepsIt) {
  ScratchDir d("files-fifo");
  const fs::path fifo = d.p / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = mskb::read_text(fifo.string()); });
  mskb::write_file_atomic(fifo.string(), "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo))) << "the FIFO was replaced by a file";
}

TEST(WriteFileAtomic, DevNullStaysADevice) {
  ASSERT_TRUE(fs::is_character_file("/dev/null"));
  mskb::write_file_atomic("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null")) << "/dev/null was replaced by a regular file";
  EXPECT_EQ(mskb::read_text("/dev/null"), "");
}

TEST(WriteFileAtomic, AFolderIsAnErrorOfOneLine) {
  ScratchDir d("files-folder");
  try {
    mskb::write_file_atomic(d.p.string(), "x");
    ADD_FAILURE() << "wrote over a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(d.p));
}

}  // namespace

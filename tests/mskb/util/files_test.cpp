// mskb/util/files.hpp: result files replaced whole (a reader never sees half of one), and paths that
// are not regular files written through in place - a rename over /dev/null (as root) replaced the
// device with a regular file, after which every program's reads of /dev/null returned old output.
#include "mskb/util/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iterator>
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

ino_t inode(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_ino;
}

TEST(WriteFileAtomic, ReplacesTheFileALinkNamesWholeAndKeepsTheLink) {
  ScratchDir d("files-link");
  fs::create_directory(d.p / "runs");
  const fs::path target = d.p / "runs" / "run-5.json", link = d.p / "latest.json";
  mskb::write_file_atomic(target.string(), "old");
  fs::create_symlink("runs/run-5.json", link);
  const ino_t before = inode(target);
  mskb::write_file_atomic(link.string(), "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << "the link was replaced by a file";
  EXPECT_EQ(mskb::read_text(target.string()), "new");
  // Replaced by rename (a new file), not rewritten in place where a reader could see half of it.
  EXPECT_NE(inode(target), before) << "the file behind the link was rewritten in place";
  EXPECT_EQ(std::distance(fs::directory_iterator(d.p / "runs"), fs::directory_iterator{}), 1) << "a temporary file was left beside the link's file";
}

TEST(WriteFileAtomic, AChainOfLinksAndADanglingLinkStayLinks) {
  ScratchDir d("files-link-chain");
  const fs::path file = d.p / "run-6.json", mid = d.p / "mid.json", top = d.p / "latest.json";
  fs::create_symlink(file.filename(), mid);  // dangling until the write creates run-6.json
  fs::create_symlink(mid.filename(), top);
  mskb::write_file_atomic(top.string(), "six");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(top)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(mid)));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file)));
  EXPECT_EQ(mskb::read_text(file.string()), "six");
}

// /dev/stdout and /proc/self/fd/N are links to open files ("pipe:[N]" for a pipe): written through,
// as `mskb report R --markdown /dev/stdout | less` needs; a link of the user's to one too.
TEST(WriteFileAtomic, AnOpenFileNamedThroughProcIsWrittenThrough) {
  ScratchDir d("files-proc");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string fd_path = "/proc/self/fd/" + std::to_string(fds[1]);
  fs::create_symlink(fd_path, d.p / "out.md");
  mskb::write_file_atomic(fd_path, "through ");
  mskb::write_file_atomic((d.p / "out.md").string(), "the pipe");
  ::close(fds[1]);
  std::string got;
  char buf[64];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(d.p / "out.md")));
}

TEST(WriteFileAtomic, ALinkLoopIsAnErrorOfOneLine) {
  ScratchDir d("files-link-loop");
  fs::create_symlink("b", d.p / "a");
  fs::create_symlink("a", d.p / "b");
  try {
    mskb::write_file_atomic((d.p / "a").string(), "x");
    ADD_FAILURE() << "wrote through a loop of links";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("too many levels of symbolic links"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(d.p / "a")));
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

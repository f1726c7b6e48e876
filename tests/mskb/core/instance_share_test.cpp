// InstanceShare (mskb/core/instance_share.hpp): the instances one verifier of a group prepares,
// copied by the others bit for bit; the others wait while it prepares (across real processes);
// the entry goes with the last consumer; an instance not worth copying, a producer that died, a
// damaged entry or one of another key are prepared again, never used.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "mskb/core/instance_share.hpp"

namespace fs = std::filesystem;
using mskb::Args;
using mskb::InstanceShare;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "mskb-share-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> files(const std::string& suffix) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path))
      if (e.path().string().size() >= suffix.size() && e.path().string().compare(e.path().string().size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(e.path().string());
    return out;
  }
};

// An instance with values no copy could get right by accident (NaN payloads, signed zero,
// denormals), a scalar and an empty buffer, and its encoded input bytes.
Args sample_args(std::size_t n) {
  Args a(4);
  a[0].value = 12345.0;
  a[1].data.resize(n);
  for (std::size_t i = 0; i < n; ++i) a[1].data[i] = std::ldexp(static_cast<double>(i % 977) - 488.5, static_cast<int>(i % 60) - 30);
  a[1].data[0] = -0.0;
  a[1].data[1] = std::nan("0x5a5a");
  a[1].data[2] = 4.9e-324;
  a[2].data.assign(n / 3 + 1, 0.25);
  a[3].data = {};
  return a;
}
std::vector<unsigned char> sample_input(std::size_t n) {
  std::vector<unsigned char> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>((i * 131) >> 3);
  return in;
}

bool same_bits(const Args& a, const Args& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i].value, &b[i].value, sizeof(double)) != 0 || a[i].data.size() != b[i].data.size()) return false;
    if (!a[i].data.empty() && std::memcmp(a[i].data.data(), b[i].data.data(), a[i].data.size() * sizeof(double)) != 0) return false;
  }
  return true;
}

constexpr double kSlowPrep = 30.0;  // seconds a preparation "took": always worth sharing

}  // namespace

TEST(InstanceShare, InactiveWithoutAFolderOrASecondConsumer) {
  TempDir d;
  for (const InstanceShare& s : {InstanceShare(), InstanceShare(d.path, 1), InstanceShare("", 4)}) {
    EXPECT_FALSE(s.active());
    const InstanceShare::Turn t = s.take("k");
    EXPECT_FALSE(t.found());
    EXPECT_FALSE(t.producing());
  }
  EXPECT_TRUE(fs::is_empty(d.path));
  // A folder that is gone (the group's parts ended): every turn prepares alone.
  const InstanceShare gone(d.path + "/removed", 2);
  const InstanceShare::Turn t = gone.take("k");
  EXPECT_FALSE(t.found());
  EXPECT_FALSE(t.producing());
}

TEST(InstanceShare, TheSecondCopiesWhatTheFirstMadeBitForBit) {
  TempDir d;
  const InstanceShare share(d.path, 3);
  const Args made = sample_args(300000);
  const std::vector<unsigned char> input = sample_input(777777);
  {
    InstanceShare::Turn first = share.take("task|fp32|N=1|seed 1");
    ASSERT_FALSE(first.found());
    ASSERT_TRUE(first.producing());
    EXPECT_TRUE(first.publish(made, input.data(), input.size(), "cpu_fp64", kSlowPrep, 1.5));
    EXPECT_FALSE(first.producing());
  }
  ASSERT_EQ(d.files(".entry").size(), 1u);
  for (int consumer = 2; consumer <= 3; ++consumer) {
    SCOPED_TRACE(consumer);
    const InstanceShare::Turn t = share.take("task|fp32|N=1|seed 1");
    ASSERT_TRUE(t.found());
    EXPECT_FALSE(t.producing());
    Args got = sample_args(10);  // a dropped instance's buffers, reused
    t.copy_args(got);
    EXPECT_TRUE(same_bits(got, made));
    ASSERT_EQ(t.input_bytes(), input.size());
    std::vector<unsigned char> in(t.input_bytes());
    t.copy_input(in.data());
    EXPECT_EQ(in, input);
    EXPECT_EQ(t.ref_kind(), "cpu_fp64");
    EXPECT_DOUBLE_EQ(t.generate_s(), kSlowPrep);
    EXPECT_DOUBLE_EQ(t.reference_s(), 1.5);
    // The entry stays for the third consumer, and goes with it (its mapping still readable).
    EXPECT_EQ(d.files(".entry").size(), consumer == 3 ? 0u : 1u);
  }
  // Another key is another instance.
  const InstanceShare::Turn other = share.take("task|fp32|N=1|seed 2");
  EXPECT_FALSE(other.found());
  EXPECT_TRUE(other.producing());
}

TEST(InstanceShare, NotWorthCopyingIsMarkedAndPreparedByEach) {
  TempDir d;
  const InstanceShare share(d.path, 2);
  const Args made = sample_args(1 << 20);  // 8 MB and more: copying it costs more than 1 ms of preparing
  const std::vector<unsigned char> input = sample_input(1 << 20);
  EXPECT_FALSE(InstanceShare::worth_sharing(0.001, 1 << 20));
  EXPECT_FALSE(InstanceShare::worth_sharing(1.5, std::size_t{4} << 30));  // 4 GB: copies of 1.7 s at 5 GB/s
  EXPECT_TRUE(InstanceShare::worth_sharing(5.0, std::size_t{1} << 30));
  InstanceShare::Turn first = share.take("cheap");
  ASSERT_TRUE(first.producing());
  EXPECT_FALSE(first.publish(made, input.data(), input.size(), "cpu_fp64", 0.001, 0.0));
  EXPECT_TRUE(d.files(".entry").empty());
  EXPECT_EQ(d.files(".local").size(), 1u);
  // The next one neither finds it nor holds the lock: it prepares its own beside the others.
  const InstanceShare::Turn second = share.take("cheap");
  EXPECT_FALSE(second.found());
  EXPECT_FALSE(second.producing());
  const InstanceShare::Turn third = share.take("cheap");  // would block if `second` held the lock
  EXPECT_FALSE(third.producing());
}

TEST(InstanceShare, OthersWaitWhileItIsPreparedInAnotherProcess) {
  TempDir d;
  const InstanceShare share(d.path, 2);
  const Args made = sample_args(200000);
  const std::vector<unsigned char> input = sample_input(1000);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstanceShare::Turn t = share.take("slow");
    const char one = 1;
    if (::write(ready[1], &one, 1) != 1) ::_exit(3);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // preparing
    ::_exit(t.producing() && t.publish(made, input.data(), input.size(), "cpu_fp64", kSlowPrep, 0.0) ? 0 : 4);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const auto t0 = std::chrono::steady_clock::now();
  const InstanceShare::Turn t = share.take("slow");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_GE(waited, 0.4) << "did not wait for the one preparing it";
  ASSERT_TRUE(t.found());
  Args got;
  t.copy_args(got);
  EXPECT_TRUE(same_bits(got, made));
  EXPECT_TRUE(d.files(".entry").empty()) << "the last consumer leaves no entry";
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(InstanceShare, AProducerThatDiesLeavesItToTheNext) {
  TempDir d;
  const InstanceShare share(d.path, 3);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstanceShare::Turn t = share.take("dies");
    ::_exit(t.producing() ? 0 : 5);  // killed while preparing: no entry, its lock released
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  InstanceShare::Turn t = share.take("dies");
  EXPECT_FALSE(t.found());
  ASSERT_TRUE(t.producing());
  // The dead one counted as a consumer: one is left, so it is still published for it.
  const Args made = sample_args(1000);
  EXPECT_TRUE(t.publish(made, nullptr, 0, "", kSlowPrep, 0.0));
  const InstanceShare::Turn last = share.take("dies");
  EXPECT_TRUE(last.found());
  EXPECT_TRUE(d.files(".entry").empty());
}

TEST(InstanceShare, ADamagedEntryOrOneOfAnotherKeyIsNeverUsed) {
  TempDir d;
  const InstanceShare share(d.path, 4);
  const Args made = sample_args(5000);
  const std::vector<unsigned char> input = sample_input(64);
  {
    InstanceShare::Turn t = share.take("a");
    ASSERT_TRUE(t.publish(made, input.data(), input.size(), "cpu_fp64", kSlowPrep, 0.0));
  }
  const std::vector<std::string> entries = d.files(".entry");
  ASSERT_EQ(entries.size(), 1u);
  const std::string entry = entries[0];
  const std::string b_entry = entry.substr(0, entry.rfind('/') + 1) + "b-copy";
  fs::copy_file(entry, b_entry);
  // Another key's entry under this key's name: not used, removed, prepared again.
  {
    InstanceShare::Turn b = share.take("b");
    ASSERT_TRUE(b.producing());
    // Learn b's file name from the lock it holds.
  }
  std::string b_base;
  for (const std::string& l : d.files(".lock"))
    if (l.substr(0, l.size() - 5) + ".entry" != entry) b_base = l.substr(0, l.size() - 5);
  ASSERT_FALSE(b_base.empty());
  fs::rename(b_entry, b_base + ".entry");
  {
    const InstanceShare::Turn b = share.take("b");
    EXPECT_FALSE(b.found()) << "an entry recorded for key 'a' was used for 'b'";
    EXPECT_TRUE(b.producing());
    EXPECT_FALSE(fs::exists(b_base + ".entry"));
  }
  // Truncated, then overwritten with garbage: the same.
  for (const bool truncate : {true, false}) {
    SCOPED_TRACE(truncate ? "truncated" : "garbage");
    if (truncate) {
      fs::resize_file(entry, fs::file_size(entry) / 2);
    } else {
      std::ofstream(entry, std::ios::binary | std::ios::trunc) << std::string(100000, '\x5a');
    }
    const InstanceShare::Turn t = share.take("a");
    EXPECT_FALSE(t.found());
    EXPECT_TRUE(t.producing());
    EXPECT_FALSE(fs::exists(entry));
    fs::copy_file(b_base + ".lock", entry);  // something there again for the next round
  }
}

TEST(InstanceShare, OnlyWhatIsKeptIsPublishedEveryCountRecorded) {
  TempDir d;
  const InstanceShare share(d.path, 2);
  const Args made = sample_args(400000);  // [scalar, big, a third of it, empty]
  const std::vector<unsigned char> input = sample_input(4096);
  using Keep = InstanceShare::Keep;
  {
    InstanceShare::Turn t = share.take("kept");
    ASSERT_TRUE(t.producing());
    ASSERT_TRUE(t.publish(made, input.data(), input.size(), "", kSlowPrep, 0.0, {Keep::data, Keep::none, Keep::sized, Keep::data}));
  }
  const std::vector<std::string> entries = d.files(".entry");
  ASSERT_EQ(entries.size(), 1u);
  // Neither the read-only input left out nor the sized output is in the file.
  EXPECT_LT(fs::file_size(entries[0]), 64 * 1024u);
  const InstanceShare::Turn t = share.take("kept");
  ASSERT_TRUE(t.found());
  EXPECT_EQ(t.elements(), (std::vector<std::size_t>{0, made[1].data.size(), made[2].data.size(), 0}));
  Args got(4);
  got[1].data.assign(10, 7.0);                  // storage of a dropped instance
  got[2].data.assign(made[2].data.size(), 3.0);  // the sized output's old elements stay
  t.copy_args(got);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].value, made[0].value);
  EXPECT_TRUE(got[1].data.empty()) << "an input not kept is left empty";
  EXPECT_EQ(got[2].data, std::vector<double>(made[2].data.size(), 3.0));
  EXPECT_TRUE(got[3].data.empty());
  std::vector<unsigned char> in(t.input_bytes());
  t.copy_input(in.data());
  EXPECT_EQ(in, input);
  // One Keep per Arg or none at all.
  InstanceShare::Turn other = share.take("other");
  EXPECT_THROW(other.publish(made, nullptr, 0, "", kSlowPrep, 0.0, {Keep::data}), std::logic_error);
}

// mskb/util/progress.hpp: the live status line (rewritten in place, truncated to the width, ETA
// from the completed items' rate, result lines above it, a clean line at the end) and the plain
// lines (no carriage return, no escape code), with an injected clock and a string sink.
#include "mskb/util/progress.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mskb {
namespace {

// A display writing to a string, its clock a number the test sets.
struct Rig {
  std::string out;
  double t = 0;
  std::unique_ptr<ProgressDisplay> d;
  explicit Rig(ProgressMode mode, int width = 100, std::size_t total = 0) {
    ProgressOptions o;
    o.mode = mode;
    o.width = width;
    o.clock = [this] { return t; };
    o.refresh_s = 0;
    d = std::make_unique<ProgressDisplay>(total, [this](const std::string& b) { out += b; }, o);
  }
  // What was written since the last call.
  std::string take() {
    std::string s;
    s.swap(out);
    return s;
  }
};

const std::string kClear = "\033[K";

TEST(Progress, PlainModeWritesTheResultLinesAloneNeverACarriageReturnOrEscape) {
  Rig r(ProgressMode::plain);
  r.d->phase("run", 3);
  r.d->start(0, "dot_product bf16 baseline: building");
  r.d->start(0, "dot_product bf16 baseline: evaluating");
  r.d->line("skipping 1 (task, precision) group already complete in the previous report");
  r.t = 4.2;
  r.d->finish(0, "[  1/3] dot_product bf16 baseline: passed (4.2 s)");
  r.d->start(1, "dot_product bf16 vendor: building");
  r.d->drop(1);
  r.d->advance(1);
  r.d->redraw();
  r.d->close();
  r.d->line("after the end");
  r.d.reset();
  EXPECT_EQ(r.out,
            "skipping 1 (task, precision) group already complete in the previous report\n"
            "[  1/3] dot_product bf16 baseline: passed (4.2 s)\n"
            "after the end\n");
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_EQ(r.out.find('\033'), std::string::npos);
}

TEST(Progress, LiveModeRewritesOneLineInPlace) {
  Rig r(ProgressMode::live, 120);
  r.d->phase("preparing", 0);  // nothing to count yet: no count
  EXPECT_EQ(r.take(), "\rpreparing  elapsed 00:00  ETA --" + kClear);
  r.d->phase("checks", 10);
  EXPECT_EQ(r.take(), "\r[0/10] checks  elapsed 00:00  ETA --" + kClear);
  r.t = 3;
  r.d->start(7, "dot_product bf16 baseline: building");
  EXPECT_EQ(r.take(), "\r[0/10] checks  dot_product bf16 baseline: building  elapsed 00:03  ETA --" + kClear);
  r.d->start(7, "dot_product bf16 baseline: evaluating");  // the same item: its text replaced
  r.d->start(2, "softmax fp32 vendor: building");          // a second one in flight, after the first
  EXPECT_EQ(r.take(),
            "\r[0/10] checks  dot_product bf16 baseline: evaluating  elapsed 00:03  ETA --" + kClear +
                "\r[0/10] checks  dot_product bf16 baseline: evaluating, softmax fp32 vendor: building  elapsed 00:03  ETA --" + kClear);
  r.t = 65;
  r.d->redraw();  // what the refresh does: the clock moves on without news
  EXPECT_EQ(r.take(),
            "\r[0/10] checks  dot_product bf16 baseline: evaluating, softmax fp32 vendor: building  elapsed 01:05  ETA --" + kClear);
}

TEST(Progress, EtaComesFromTheCompletedItemsRate) {
  Rig r(ProgressMode::live);
  r.d->phase("run", 10);
  EXPECT_NE(r.d->status_line().find("ETA --"), std::string::npos) << "no data yet";
  r.t = 20;
  r.d->finish(0, "");
  r.d->finish(1, "");
  // 2 of 10 in 20 s: 8 left at 10 s each.
  EXPECT_EQ(r.d->status_line(), "[2/10] run  elapsed 00:20  ETA 01:20");
  r.t = 40;  // no news for 20 s: the rate falls, the ETA grows
  EXPECT_EQ(r.d->status_line(), "[2/10] run  elapsed 00:40  ETA 02:40");
  r.d->advance(8);
  EXPECT_EQ(r.d->status_line(), "[10/10] run  elapsed 00:40  ETA 00:00");
  // A new phase counts again, its rate from its own start; the elapsed time goes on.
  r.d->phase("phase 2/2: timing", 4);
  r.t = 70;
  r.d->finish(3, "");
  EXPECT_EQ(r.d->status_line(), "[1/4] phase 2/2: timing  elapsed 01:10  ETA 01:30");
  // An item with nothing to do leaves the total.
  r.d->drop(2);
  EXPECT_EQ(r.d->status_line(), "[1/3] phase 2/2: timing  elapsed 01:10  ETA 01:00");
}

TEST(Progress, ResultLinesArePrintedAboveTheLiveLine) {
  Rig r(ProgressMode::live);
  r.d->phase("run", 2);
  r.d->start(0, "vector_add fp32 baseline: evaluating");
  r.d->start(1, "vector_add fp32 vendor: evaluating");
  r.take();
  r.t = 5;
  r.d->finish(0, "[  1/2] vector_add fp32 baseline: passed (5.0 s)");
  // One write: the live line cleared, the result with its newline, the live line drawn again
  // without the finished item.
  EXPECT_EQ(r.take(), "\r" + kClear + "[  1/2] vector_add fp32 baseline: passed (5.0 s)\n" +
                          "[1/2] run  vector_add fp32 vendor: evaluating  elapsed 00:05  ETA 00:05" + kClear);
  r.d->line("a note");
  EXPECT_EQ(r.take(), "\r" + kClear + "a note\n" + "[1/2] run  vector_add fp32 vendor: evaluating  elapsed 00:05  ETA 00:05" + kClear);
}

TEST(Progress, TheLiveLineIsTruncatedToTheWidthKeepingCountAndEta) {
  Rig r(ProgressMode::live, 60);
  r.d->phase("run", 186);
  r.d->start(0, "high_order_contraction bf16 /home/someone/kernels/a_very_long_kernel_file_name.cu: evaluating");
  const std::string one = r.d->status_line();
  EXPECT_EQ(one.size(), 59u) << one;  // the last column stays free: the terminal never wraps
  EXPECT_EQ(one.rfind("[0/186] run  high_order_contr", 0), 0u) << one;
  EXPECT_NE(one.find("...  elapsed 00:00  ETA --"), std::string::npos) << one;
  // Several in flight: the whole ones that fit, then how many more.
  Rig s(ProgressMode::live, 84);
  s.d->phase("run", 8);
  for (std::size_t i = 0; i < 5; ++i) s.d->start(i, "softmax fp32 item" + std::to_string(i));
  const std::string many = s.d->status_line();
  EXPECT_LE(many.size(), 83u);
  EXPECT_EQ(many, "[0/8] run  softmax fp32 item0, softmax fp32 item1, +3 more  elapsed 00:00  ETA --") << many;
  // Too narrow even for the count and the times: the line cut at the width.
  Rig n(ProgressMode::live, 12);
  n.d->phase("run", 8);
  n.d->start(0, "x");
  EXPECT_EQ(n.d->status_line(), "[0/8] run  ");
  // Newlines and escapes in an item's text do not break the line.
  Rig c(ProgressMode::live);
  c.d->phase("run", 1);
  c.d->start(0, "bad\nname\033[31m");
  EXPECT_EQ(c.d->status_line(), "[0/1] run  bad name [31m  elapsed 00:00  ETA --");
}

TEST(Progress, CloseLeavesACleanLineAndLaterLinesArePlain) {
  Rig r(ProgressMode::live);
  r.d->phase("run", 1);
  r.d->start(0, "x: evaluating");
  r.d->finish(0, "[  1/1] x: passed (1.0 s)");
  r.take();
  r.d->close();
  EXPECT_EQ(r.take(), "\r" + kClear);
  r.d->close();  // idempotent
  r.d->line("the table");
  r.d->start(1, "late");
  r.d->redraw();
  r.d.reset();
  EXPECT_EQ(r.take(), "the table\n") << "nothing drawn after close";
  // Closed before anything was drawn: nothing to clear.
  Rig q(ProgressMode::live);
  q.d->close();
  EXPECT_EQ(q.take(), "");
}

TEST(Progress, WorkersOnManyThreadsEachLineWholeAndEveryItemCounted) {
  std::string out;
  ProgressOptions o;
  o.mode = ProgressMode::live;
  o.refresh_s = 0.001;  // the refresh thread redraws too
  constexpr std::size_t kThreads = 8, kEach = 200;
  {
    ProgressDisplay d(0, [&out](const std::string& b) { out += b; }, o);  // the sink is called under the display's lock
    d.phase("run", kThreads * kEach);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < kThreads; ++t)
      threads.emplace_back([&d, t] {
        for (std::size_t i = 0; i < kEach; ++i) {
          const std::size_t id = t * kEach + i;
          d.start(id, "item " + std::to_string(id) + ": building");
          d.start(id, "item " + std::to_string(id) + ": evaluating");
          d.finish(id, "result " + std::to_string(id) + " passed");
        }
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(d.status_line().rfind("[1600/1600] run  elapsed", 0), 0u) << d.status_line();
  }
  std::set<std::string> results;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    // A line ends in a result: the live line (and its redraws) before it, cleared.
    const std::string result = l.substr(l.rfind('\r') == std::string::npos ? 0 : l.rfind('\r') + 1);
    if (result.find("result ") == std::string::npos) continue;
    ASSERT_EQ(result.rfind(kClear + "result ", 0), 0u) << "a result line not right after the clear: " << l;
    EXPECT_EQ(result.substr(result.size() - 7), " passed") << l;
    EXPECT_TRUE(results.insert(result).second) << "twice: " << l;
  }
  EXPECT_EQ(results.size(), kThreads * kEach);
  EXPECT_EQ(out.substr(out.size() - 4), "\r" + kClear) << "the end is a clean line";
}

TEST(Progress, RefreshRedrawsTheClockWithoutNews) {
  std::atomic<int> writes{0};
  ProgressOptions o;
  o.mode = ProgressMode::live;
  o.refresh_s = 0.01;
  ProgressDisplay d(3, [&writes](const std::string&) { ++writes; }, o);
  for (int i = 0; i < 500 && writes.load() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(writes.load(), 3);
  d.close();
  const int after_close = writes.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(writes.load(), after_close) << "the refresh stops with close";
}

TEST(Progress, FormatDuration) {
  EXPECT_EQ(format_duration(0), "00:00");
  EXPECT_EQ(format_duration(80), "01:20");
  EXPECT_EQ(format_duration(59.6), "01:00");
  EXPECT_EQ(format_duration(3599), "59:59");
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(-5), "00:00");
}

// The mode and width for a file descriptor: MSKB_PROGRESS forces it; otherwise a terminal is live
// (a pseudo-terminal here, its size set to 57 columns) and a pipe is plain.
TEST(Progress, ModeFromTheEnvironmentOrWhetherTheFdIsATerminal) {
  const char* saved = std::getenv("MSKB_PROGRESS");
  const std::string keep = saved != nullptr ? saved : "";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::unsetenv("MSKB_PROGRESS");
  EXPECT_EQ(progress_options_for(pipe_fds[1]).mode, ProgressMode::plain);
  ::setenv("MSKB_PROGRESS", "live", 1);
  EXPECT_EQ(progress_options_for(pipe_fds[1]).mode, ProgressMode::live);
  {
    // Forced live on a pipe: the width is the default.
    ProgressDisplay d(1, pipe_fds[1]);
    EXPECT_EQ(d.mode(), ProgressMode::live);
    d.start(0, std::string(300, 'x'));
    EXPECT_EQ(d.status_line().size(), 99u);
  }
  ::setenv("MSKB_PROGRESS", "plain", 1);
  EXPECT_EQ(progress_options_for(pipe_fds[1]).mode, ProgressMode::plain);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);

  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    if (saved != nullptr) ::setenv("MSKB_PROGRESS", keep.c_str(), 1);
    else ::unsetenv("MSKB_PROGRESS");
    GTEST_SKIP() << "no pseudo-terminal here";
  }
  const int tty = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  winsize ws{};
  ws.ws_col = 57;
  ws.ws_row = 20;
  ASSERT_EQ(::ioctl(tty, TIOCSWINSZ, &ws), 0);
  EXPECT_EQ(progress_options_for(tty).mode, ProgressMode::plain) << "MSKB_PROGRESS=plain wins over the terminal";
  ::unsetenv("MSKB_PROGRESS");
  EXPECT_EQ(progress_options_for(tty).mode, ProgressMode::live);
  {
    ProgressDisplay d(1, tty);
    d.start(0, std::string(300, 'x'));
    EXPECT_EQ(d.status_line().size(), 56u) << "the terminal's width (TIOCGWINSZ)";
    d.close();
  }
  ::close(tty);
  ::close(master);
  if (saved != nullptr) ::setenv("MSKB_PROGRESS", keep.c_str(), 1);
}

// What is in a pipe's read end now (non-blocking).
std::string drain(int fd) {
  std::string got;
  char buf[256];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  return got;
}

// A stream to a pipe is fully buffered by C stdio: a line stays in the process until the buffer
// fills or the stream is flushed. line_buffer (what mskb and cudamaster call first) makes each
// complete line reach the pipe as it is printed, and only complete lines.
TEST(Progress, LineBufferSendsEachLineToAPipeAsItIsPrinted) {
  for (const bool buffered : {false, true}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_EQ(::fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
    std::FILE* out = ::fdopen(fds[1], "w");
    ASSERT_NE(out, nullptr);
    if (buffered) {
      EXPECT_TRUE(line_buffer(out));
    }
    std::fputs("[1/2] ok   a.cu (1.0 s)\n", out);
    const std::string first = drain(fds[0]);
    std::fputs("[2/2] ok", out);
    const std::string partial = drain(fds[0]);
    std::fputs("   b.cu (1.0 s)\n", out);
    const std::string second = drain(fds[0]);
    if (buffered) {
      EXPECT_EQ(first, "[1/2] ok   a.cu (1.0 s)\n");
      EXPECT_EQ(partial, "") << "half a line waits for its end";
      EXPECT_EQ(second, "[2/2] ok   b.cu (1.0 s)\n");
    } else {
      EXPECT_EQ(first + partial + second, "") << "without line_buffer the pipe gets nothing before a flush (the bug this fixes)";
    }
    std::fclose(out);
    EXPECT_EQ(first + partial + second + drain(fds[0]), "[1/2] ok   a.cu (1.0 s)\n[2/2] ok   b.cu (1.0 s)\n");
    ::close(fds[0]);
  }
}

}  // namespace
}  // namespace mskb

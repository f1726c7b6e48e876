// The GPU lane lock (mskb/util/gpu_lock.hpp) across real processes: holders are forked children
// that report on a pipe when they ask, hold and give back the lock (CLOCK_MONOTONIC timestamps,
// comparable across processes) and hold it until the test tells them to let go.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "mskb/util/gpu_lock.hpp"

namespace fs = std::filesystem;
using mskb::GpuLock;

namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// One line of a holder's story; smaller than PIPE_BUF, so writes from several children never mix.
struct Event {
  char what = 0;  // 'W' about to ask, 'A' acquired, 'R' about to release
  char mode = 0;  // 's' shared, 'x' exclusive
  int who = 0;
  int64_t ns = 0;
};

void send(int fd, char what, char mode, int who) {
  const Event e{what, mode, who, now_ns()};
  if (::write(fd, &e, sizeof e) != static_cast<ssize_t>(sizeof e)) ::_exit(3);
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/mskb-gpu-lock-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// Whether the lock file could be taken with `op` (LOCK_SH or LOCK_EX) right now, from a fresh
// open file description (which conflicts with every hold, in this process or another).
bool free_for(const std::string& path, int op) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::flock(fd, op | LOCK_NB) == 0;
  ::close(fd);
  return ok;
}

// The children of one test and the pipe they report on; kills whatever is left at the end.
class Holders {
 public:
  explicit Holders(std::string path) : path_(std::move(path)) {
    if (::pipe2(events_, O_CLOEXEC) != 0) std::abort();
  }
  ~Holders() {
    for (const Child& c : children_)
      if (c.pid > 0) {
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, nullptr, 0);
      }
    for (const Child& c : children_) ::close(c.release_fd);
    if (events_[0] >= 0) ::close(events_[0]);
    if (events_[1] >= 0) ::close(events_[1]);
  }

  // A child that asks for the lock in `mode`, holds it until let_go(who) (or forever), then exits.
  int start(GpuLock::Mode mode) {
    int release[2];
    if (::pipe2(release, O_CLOEXEC) != 0) std::abort();
    const int who = static_cast<int>(children_.size());
    const char m = mode == GpuLock::Mode::exclusive ? 'x' : 's';
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(release[1]);
      try {
        send(events_[1], 'W', m, who);
        GpuLock lock(path_);
        GpuLock::Guard g = lock.acquire(mode);
        send(events_[1], 'A', m, who);
        char c = 0;
        while (::read(release[0], &c, 1) < 0 && errno == EINTR) {
        }
        send(events_[1], 'R', m, who);
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    ::close(release[0]);
    children_.push_back({pid, release[1]});
    return who;
  }

  void let_go(int who) {
    const char c = 'r';
    ASSERT_EQ(::write(children_[static_cast<std::size_t>(who)].release_fd, &c, 1), 1);
  }

  pid_t pid(int who) const { return children_[static_cast<std::size_t>(who)].pid; }

  // Kills a holder (SIGKILL) and reaps it.
  void kill(int who) {
    Child& c = children_[static_cast<std::size_t>(who)];
    ::kill(c.pid, SIGKILL);
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status));
    c.pid = -1;
  }

  // Waits for the holder to exit; its exit code.
  int reap(int who) {
    Child& c = children_[static_cast<std::size_t>(who)];
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    c.pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // The next event within `timeout_ms`, or none.
  std::optional<Event> next(int timeout_ms) {
    pollfd p{events_[0], POLLIN, 0};
    const int64_t deadline = now_ns() + int64_t{timeout_ms} * 1000000;
    for (;;) {
      const int64_t left_ms = (deadline - now_ns()) / 1000000;
      const int r = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left_ms)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      Event e;
      if (::read(events_[0], &e, sizeof e) != static_cast<ssize_t>(sizeof e)) return std::nullopt;
      return e;
    }
  }

  // The next event, which must be `what` of `who` (within two seconds).
  Event expect(char what, int who) {
    const std::optional<Event> e = next(2000);
    EXPECT_TRUE(e.has_value()) << "no event; waited for " << what << " of holder " << who;
    if (!e) return {};
    EXPECT_EQ(e->what, what) << "holder " << e->who;
    EXPECT_EQ(e->who, who) << "event " << e->what;
    return *e;
  }

 private:
  struct Child {
    pid_t pid;
    int release_fd;
  };
  std::string path_;
  int events_[2] = {-1, -1};
  std::vector<Child> children_;
};

constexpr int kQuietMs = 250;  // how long a blocked request is watched for not getting the lock

TEST(GpuLock, CreatesBothFilesPrivateAndNamesThePathInErrors) {
  TempDir d;
  const std::string path = d.file("gpu-0.lock");
  GpuLock lock(path);
  EXPECT_TRUE(lock.enabled());
  for (const std::string& p : {path, GpuLock::turnstile_path(path)}) {
    struct stat st {};
    ASSERT_EQ(::stat(p.c_str(), &st), 0) << p;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << p;
  }
  const std::string missing = d.file("no/such/dir/gpu.lock");
  try {
    GpuLock bad(missing);
    FAIL() << "no error for " << missing;
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(missing), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(GpuLock, EmptyPathNeverBlocksAndTouchesNoFile) {
  TempDir d;
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path);
  GpuLock none("");
  EXPECT_FALSE(none.enabled());
  GpuLock::Exclusive a = none.exclusive();
  GpuLock::Exclusive b = none.exclusive();  // would deadlock on a real lock
  GpuLock::Shared c = none.shared();
  EXPECT_FALSE(a.held());
  EXPECT_FALSE(b.held());
  EXPECT_FALSE(c.held());
  fs::current_path(cwd);
  EXPECT_TRUE(fs::is_empty(d.path));
}

TEST(GpuLock, GuardsReleaseOnDestructionAndMoveWithoutReleasing) {
  TempDir d;
  const std::string path = d.file("gpu.lock");
  GpuLock lock(path);
  {
    GpuLock::Shared s = lock.shared();
    EXPECT_TRUE(s.held());
    EXPECT_EQ(s.mode(), GpuLock::Mode::shared);
    EXPECT_TRUE(free_for(path, LOCK_SH));
    EXPECT_FALSE(free_for(path, LOCK_EX));
    GpuLock::Shared moved = std::move(s);
    EXPECT_FALSE(s.held());  // NOLINT(bugprone-use-after-move): moved-from holds nothing
    EXPECT_FALSE(free_for(path, LOCK_EX)) << "a move must not release";
  }
  EXPECT_TRUE(free_for(path, LOCK_EX)) << "the destructor releases";
  GpuLock::Exclusive x = lock.exclusive();
  EXPECT_FALSE(free_for(path, LOCK_SH));
  GpuLock::Exclusive y;
  y = std::move(x);
  EXPECT_FALSE(free_for(path, LOCK_SH));
  y.release();
  EXPECT_TRUE(free_for(path, LOCK_EX));
  EXPECT_TRUE(free_for(GpuLock::turnstile_path(path), LOCK_EX)) << "the turnstile is free once a hold is taken";
}

TEST(GpuLock, SharedHoldersOverlap) {
  TempDir d;
  Holders h(d.file("gpu.lock"));
  const int a = h.start(GpuLock::Mode::shared);
  h.expect('W', a);
  const Event a_got = h.expect('A', a);
  const int b = h.start(GpuLock::Mode::shared);
  h.expect('W', b);
  const Event b_got = h.expect('A', b);  // while a holds it
  h.let_go(a);
  const Event a_gave = h.expect('R', a);
  h.let_go(b);
  h.expect('R', b);
  EXPECT_LT(a_got.ns, b_got.ns);
  EXPECT_LT(b_got.ns, a_gave.ns) << "both held the lock at once";
  EXPECT_EQ(h.reap(a), 0);
  EXPECT_EQ(h.reap(b), 0);
}

TEST(GpuLock, SharedAndExclusiveExcludeEachOther) {
  TempDir d;
  Holders h(d.file("gpu.lock"));
  // An exclusive request waits for a shared holder.
  const int s = h.start(GpuLock::Mode::shared);
  h.expect('W', s);
  h.expect('A', s);
  const int x = h.start(GpuLock::Mode::exclusive);
  h.expect('W', x);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "exclusive granted while shared is held";
  h.let_go(s);
  const Event s_gave = h.expect('R', s);
  const Event x_got = h.expect('A', x);
  EXPECT_LT(s_gave.ns, x_got.ns);
  // A shared request waits for the exclusive holder, and so does another exclusive one.
  const int s2 = h.start(GpuLock::Mode::shared);
  h.expect('W', s2);
  const int x2 = h.start(GpuLock::Mode::exclusive);
  h.expect('W', x2);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "granted while exclusive is held";
  h.let_go(x);
  const Event x_gave = h.expect('R', x);
  // Next: either waiter, never both at once.
  const std::optional<Event> first = h.next(2000);
  ASSERT_TRUE(first && first->what == 'A');
  EXPECT_LT(x_gave.ns, first->ns);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "the second waiter got the lock beside the first";
  const int first_who = first->who, second_who = first_who == s2 ? x2 : s2;
  h.let_go(first_who);
  const Event first_gave = h.expect('R', first_who);
  const Event second_got = h.expect('A', second_who);
  EXPECT_LT(first_gave.ns, second_got.ns);
  h.let_go(second_who);
  h.expect('R', second_who);
  for (int who : {s, x, s2, x2}) EXPECT_EQ(h.reap(who), 0);
}

// A waiting exclusive request is served before a shared request that came after it, although
// the lock is only held shared meanwhile.
TEST(GpuLock, WaitingExclusiveGoesBeforeLaterShared) {
  TempDir d;
  const std::string path = d.file("gpu.lock");
  Holders h(path);
  const int a = h.start(GpuLock::Mode::shared);
  h.expect('W', a);
  h.expect('A', a);
  const int x = h.start(GpuLock::Mode::exclusive);
  h.expect('W', x);
  // x is waiting once it holds the turnstile (a let go of it when it got the lock).
  bool waiting = false;
  for (int i = 0; i < 200 && !waiting; ++i) {
    waiting = !free_for(GpuLock::turnstile_path(path), LOCK_EX);
    if (!waiting) ::usleep(10000);
  }
  ASSERT_TRUE(waiting) << "the exclusive request never reached the lock";
  const int c = h.start(GpuLock::Mode::shared);
  h.expect('W', c);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "a later shared request joined the shared holder past a waiting exclusive one";
  h.let_go(a);
  h.expect('R', a);
  const Event x_got = h.expect('A', x);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "shared granted while exclusive is held";
  h.let_go(x);
  const Event x_gave = h.expect('R', x);
  const Event c_got = h.expect('A', c);
  EXPECT_LT(x_got.ns, c_got.ns);
  EXPECT_LT(x_gave.ns, c_got.ns);
  h.let_go(c);
  h.expect('R', c);
  for (int who : {a, x, c}) EXPECT_EQ(h.reap(who), 0);
}

TEST(GpuLock, KilledHolderReleasesTheLock) {
  TempDir d;
  Holders h(d.file("gpu.lock"));
  const int x = h.start(GpuLock::Mode::exclusive);
  h.expect('W', x);
  h.expect('A', x);
  const int s = h.start(GpuLock::Mode::shared);
  h.expect('W', s);
  EXPECT_FALSE(h.next(kQuietMs).has_value()) << "granted while exclusive is held";
  h.kill(x);
  h.expect('A', s);
  h.let_go(s);
  h.expect('R', s);
  EXPECT_EQ(h.reap(s), 0);
  // Killed while waiting (holding the turnstile): the next request is not blocked either.
  const int s2 = h.start(GpuLock::Mode::shared);
  h.expect('W', s2);
  h.expect('A', s2);
  const int x2 = h.start(GpuLock::Mode::exclusive);
  h.expect('W', x2);
  EXPECT_FALSE(h.next(kQuietMs).has_value());
  h.kill(x2);
  const int s3 = h.start(GpuLock::Mode::shared);
  h.expect('W', s3);
  h.expect('A', s3);
  h.let_go(s2);
  h.expect('R', s2);
  h.let_go(s3);
  h.expect('R', s3);
  EXPECT_EQ(h.reap(s2), 0);
  EXPECT_EQ(h.reap(s3), 0);
}

// Several processes take the lock over and over, a third of the times exclusive: no exclusive
// hold overlaps any other hold, and every process gets its turns.
TEST(GpuLock, ExclusiveHoldsNeverOverlapUnderContention) {
  TempDir d;
  const std::string path = d.file("gpu.lock");
  int events[2];
  ASSERT_EQ(::pipe2(events, O_CLOEXEC), 0);
  constexpr int kProcs = 6, kRounds = 12;
  std::vector<pid_t> pids;
  for (int who = 0; who < kProcs; ++who) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(events[0]);
      try {
        GpuLock lock(path);
        std::mt19937 rng(static_cast<unsigned>(who) * 7919u + 1u);
        for (int round = 0; round < kRounds; ++round) {
          const bool x = (rng() % 3) == 0 || round == who % kRounds;
          GpuLock::Guard g = lock.acquire(x ? GpuLock::Mode::exclusive : GpuLock::Mode::shared);
          send(events[1], 'A', x ? 'x' : 's', who);
          ::usleep(1000 + static_cast<useconds_t>(rng() % 3000));
          send(events[1], 'R', x ? 'x' : 's', who);
        }
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  ::close(events[1]);
  std::vector<Event> all;
  for (Event e; ::read(events[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e);) all.push_back(e);
  ::close(events[0]);
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  struct Hold {
    int who;
    char mode;
    int64_t from, to;
  };
  std::vector<Hold> holds;
  std::vector<int64_t> opened(kProcs, -1);
  for (const Event& e : all) {
    if (e.what == 'A') opened[static_cast<std::size_t>(e.who)] = e.ns;
    if (e.what == 'R') holds.push_back({e.who, e.mode, opened[static_cast<std::size_t>(e.who)], e.ns});
  }
  ASSERT_EQ(holds.size(), static_cast<std::size_t>(kProcs * kRounds));
  int exclusive = 0;
  for (const Hold& a : holds) {
    if (a.mode != 'x') continue;
    ++exclusive;
    for (const Hold& b : holds) {
      if (&a == &b) continue;
      EXPECT_TRUE(b.to <= a.from || a.to <= b.from)
          << "exclusive hold of " << a.who << " overlaps a " << (b.mode == 'x' ? "exclusive" : "shared") << " hold of " << b.who;
    }
  }
  EXPECT_GE(exclusive, kProcs);
}

}  // namespace

// The hold log: one line per hold from every process, in the documented format, times in order,
// the exclusive holds apart from every other hold; a lock without a log writes none.
TEST(GpuLock, HoldLogHasOneLinePerHoldAndExclusiveHoldsApart) {
  TempDir d;
  const std::string path = d.file("gpu.lock"), log = d.file("holds.log");
  constexpr int kProcs = 4, kRounds = 10;
  std::vector<pid_t> pids;
  for (int who = 0; who < kProcs; ++who) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      try {
        GpuLock lock(path, log);
        for (int round = 0; round < kRounds; ++round) {
          GpuLock::Guard g = lock.acquire((round + who) % 3 == 0 ? GpuLock::Mode::exclusive : GpuLock::Mode::shared);
          if (g.mode() == GpuLock::Mode::exclusive) g.label("timing of " + std::to_string(who) + "\nnext line?");
          ::usleep(500 + static_cast<useconds_t>(who * 300));
        }
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  {
    GpuLock unlogged(path);  // no log: nothing is appended
    GpuLock::Guard g = unlogged.exclusive();
  }
  struct Hold {
    char mode;
    double asked, held, released;
    long pid;
    std::string label;
  };
  std::vector<Hold> holds;
  FILE* f = std::fopen(log.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char line[512];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    Hold h{};
    int used = 0;
    ASSERT_EQ(std::sscanf(line, "%c %lf %lf %lf %ld%n", &h.mode, &h.asked, &h.held, &h.released, &h.pid, &used), 5) << line;
    h.label = line + used;
    holds.push_back(h);
  }
  std::fclose(f);
  ASSERT_EQ(holds.size(), static_cast<std::size_t>(kProcs * kRounds));
  for (const Hold& h : holds) {
    // Exclusive holds carry their label on their own line (the newline made a space); shared ones none.
    const std::string want = h.mode == 'x' ? " timing of " : "\n";
    EXPECT_EQ(h.label.rfind(want, 0), 0u) << h.label;
    if (h.mode == 'x') {
      EXPECT_NE(h.label.find(" next line?\n"), std::string::npos) << h.label;
    }
  }
  int exclusive = 0;
  for (const Hold& h : holds) {
    EXPECT_TRUE(h.mode == 's' || h.mode == 'x') << h.mode;
    EXPECT_LE(h.asked, h.held);
    EXPECT_LT(h.held, h.released);
    EXPECT_NE(std::find(pids.begin(), pids.end(), static_cast<pid_t>(h.pid)), pids.end()) << h.pid;
    if (h.mode != 'x') continue;
    ++exclusive;
    for (const Hold& o : holds) {
      if (&o != &h) {
        EXPECT_TRUE(o.released <= h.held || o.held >= h.released) << "a hold overlaps an exclusive one";
      }
    }
  }
  EXPECT_EQ(exclusive, 14);  // (round + who) % 3 == 0 over 4 x 10
}

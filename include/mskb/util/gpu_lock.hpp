// Owns the cross-process reader/writer lock of one GPU lane: the evaluations that share a GPU
// take it shared around GPU work that is not a timing (uploads, checked calls, GPU references and
// comparisons, context creation) and exclusive around a timing (warm-up, samples and their
// checks), so nothing else of the harness touches the GPU while samples are taken.
// flock(2) on a lock file PATH, with writer preference through a second file, PATH.turnstile:
//   shared:    flock(T, EX); flock(M, SH); flock(T, UN)
//   exclusive: flock(T, EX); flock(M, EX); flock(T, UN)
// A waiting exclusive request holds the turnstile, so shared requests that come after it wait
// behind it instead of starving it. Every hold opens the files anew (flock locks belong to the
// open file description): holds in one process are independent, a hold ends when its guard is
// destroyed or its process dies. A thread that holds the lock must not ask for it exclusive.
// An empty path is no lock at all: every hold returns at once and touches no file.
// A hold log (a second path; empty: none) gets one line per hold when it ends, appended with one
// write(2) (lines from several processes never mix):
//   MODE T_ASKED T_HELD T_RELEASED PID [LABEL]
// MODE `s` or `x`, times in seconds of CLOCK_REALTIME, LABEL what the holder said the hold was for
// (Guard::label): where a suite run's GPU time went (scripts/gpu_lock_timeline.py; MSKB_GPU_LOCK_LOG).
#pragma once

#include <string>

namespace mskb {

class GpuLock {
 public:
  enum class Mode { shared, exclusive };

  // A hold of the lock, released on destruction (or release()); movable, not copyable. A
  // default-constructed guard, or one of the no-op lock, holds nothing.
  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&& other) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard();
    void release() noexcept;
    bool held() const { return fd_ >= 0; }  // false for the no-op lock
    Mode mode() const { return mode_; }
    // What the hold is for, in its hold log line (one line: newlines become spaces; at most 200
    // characters). Nothing without a log: callers that build a label check logged() first.
    void label(const std::string& text);
    bool logged() const { return !log_.empty(); }

   private:
    friend class GpuLock;
    Guard(int fd, Mode mode) : fd_(fd), mode_(mode) {}
    int fd_ = -1;
    Mode mode_ = Mode::shared;
    std::string log_;  // the hold log (empty: none)
    std::string label_;
    double asked_ = 0, held_ = 0;
  };
  using Shared = Guard;
  using Exclusive = Guard;

  // Creates PATH and PATH.turnstile (mode 0600) when they do not exist; an empty path makes the
  // no-op lock. Throws std::runtime_error (one line naming the path) when a file cannot be opened.
  explicit GpuLock(std::string path = "", std::string log_path = "");

  const std::string& path() const { return path_; }
  bool enabled() const { return !path_.empty(); }

  // Block until the lock is held; throw std::runtime_error (one line naming the path) on failure.
  Shared shared() const { return acquire(Mode::shared); }
  Exclusive exclusive() const { return acquire(Mode::exclusive); }
  Guard acquire(Mode mode) const;

  static std::string turnstile_path(const std::string& path) { return path + ".turnstile"; }

 private:
  std::string path_, log_path_;
};

}  // namespace mskb

// Progress of a long run (mskb run / check, cudamaster optimize) on stderr: on a terminal one live
// status line rewritten in place, `[done/total] phase  items in flight  elapsed mm:ss  ETA mm:ss`,
// with finished items' result lines printed above it; elsewhere (logs, CI) the result lines alone,
// plain: no carriage return, no escape code. MSKB_PROGRESS=live|plain forces the mode. No colour.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mskb {

enum class ProgressMode { plain, live };

struct ProgressOptions {
  ProgressMode mode = ProgressMode::plain;
  int width = 100;     // columns of the live line when the terminal's are not known
  int width_fd = -1;   // >= 0: the terminal's columns (TIOCGWINSZ on this fd) at every redraw, else `width`
  std::function<double()> clock;  // seconds on a monotonic clock; default std::chrono::steady_clock
  double refresh_s = 1.0;         // live: redrawn this often (elapsed, ETA) between events; 0: on events only
};

// The options for progress written to `fd`: live when MSKB_PROGRESS=live, plain when
// MSKB_PROGRESS=plain, else live exactly when `fd` is a terminal; the width from TIOCGWINSZ, else 100.
ProgressOptions progress_options_for(int fd);

// Makes `stream` (default stdout) line-buffered wherever it goes: C stdio fully buffers a pipe or
// a file, which held a command's lines until it ended (`mskb build > log`: nothing for minutes,
// then everything). mskb and cudamaster call it first thing, so each line reaches a log as it is
// printed. Call before the first output on `stream`; returns false when setvbuf refused.
bool line_buffer(std::FILE* stream = stdout);

// "mm:ss", "h:mm:ss" from an hour on (seconds rounded; negative counts as 0).
std::string format_duration(double seconds);

// Thread safe: every member may be called from any thread.
class ProgressDisplay {
 public:
  using Sink = std::function<void(const std::string& bytes)>;

  // `total` items in a first phase without a name; `sink` gets every byte written.
  ProgressDisplay(std::size_t total, Sink sink, ProgressOptions options);
  // To a file descriptor (default stderr) with progress_options_for(fd).
  explicit ProgressDisplay(std::size_t total, int fd = 2);
  ~ProgressDisplay();  // close()
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  ProgressMode mode() const { return options_.mode; }

  // A new phase: its name and item count; done, the items in flight and the ETA's rate start again
  // (the elapsed time does not).
  void phase(const std::string& name, std::size_t total);
  // Item `id` is in flight doing `what` (the text replaces the item's previous one).
  void start(std::size_t id, const std::string& what);
  // Item `id` is over: `line`, its result, printed (above the live line), unless empty; `units`
  // more done.
  void finish(std::size_t id, const std::string& line, std::size_t units = 1);
  // Item `id` is over and had nothing to do: not in flight, one item fewer in the total.
  void drop(std::size_t id);
  // `units` more done, the items in flight as they are.
  void advance(std::size_t units);
  // A line that is no item's result, printed like one.
  void line(const std::string& text);
  // Live: the status line taken off the screen, the cursor at the start of a clean line; later
  // lines are printed as in plain mode. Idempotent.
  void close();

  // The live line as it would be drawn now (without "\r" and the clear), at most width - 1 columns
  // (the last is left free so that the terminal never wraps).
  std::string status_line() const;
  // Live: draws the status line again (what the refresh does); plain: nothing.
  void redraw();

 private:
  std::string status_locked() const;
  void redraw_locked();
  void print_locked(const std::string& text);
  int width_locked() const;
  double now() const;
  void refresh_loop();

  ProgressOptions options_;
  Sink sink_;
  mutable std::mutex mutex_;
  std::string phase_;
  std::size_t total_ = 0, done_ = 0;
  double start_s_ = 0, phase_start_s_ = 0;
  std::map<std::size_t, std::pair<std::size_t, std::string>> in_flight_;  // id -> (order, text)
  std::size_t started_ = 0;
  bool shown_ = false, closed_ = false;
  std::condition_variable wake_;
  std::thread refresher_;
};

}  // namespace mskb

// The progress display (progress.hpp): a live status line on a terminal, plain lines elsewhere.
#include "mskb/util/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mskb/util/text.hpp"

namespace mskb {

namespace {

constexpr const char* kClearToEnd = "\033[K";

int terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

void write_all(int fd, const std::string& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // progress is best effort: a closed stderr does not stop the run
    off += static_cast<std::size_t>(n);
  }
}

// Columns of UTF-8 text: one per code point (the continuation bytes 10xxxxxx take none).
std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The first `n` columns of `s`, never cutting a code point.
std::string first_columns(const std::string& s, std::size_t n) {
  std::size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cols == n) break;
      ++cols;
    }
  }
  return s.substr(0, i);
}

// The items in flight in `room` columns: as many whole as fit, then "+N more"; the first one cut
// short with "..." when not even it fits. Empty when there is no room for anything useful.
std::string fit_items(const std::vector<std::string>& items, std::size_t room) {
  const std::size_t n = items.size();
  for (std::size_t k = n; k >= 1; --k) {
    std::string s;
    for (std::size_t i = 0; i < k; ++i) s += (i ? ", " : "") + items[i];
    if (k < n) s += fmt::format(", +{} more", n - k);
    if (columns(s) <= room) return s;
  }
  const std::string more = n > 1 ? fmt::format(" +{} more", n - 1) : "";
  if (room < columns(more) + 3 + 4) return "";  // not even a few columns of the first item
  return first_columns(items.front(), room - columns(more) - 3) + "..." + more;
}

}  // namespace

ProgressOptions progress_options_for(int fd) {
  ProgressOptions o;
  const char* forced = std::getenv("MSKB_PROGRESS");
  const std::string f = forced != nullptr ? forced : "";
  if (f == "live") o.mode = ProgressMode::live;
  else if (f == "plain") o.mode = ProgressMode::plain;
  else o.mode = ::isatty(fd) == 1 ? ProgressMode::live : ProgressMode::plain;
  o.width_fd = fd;
  return o;
}

bool line_buffer(std::FILE* stream) { return std::setvbuf(stream, nullptr, _IOLBF, BUFSIZ) == 0; }

std::string format_duration(double seconds) {
  const long long s = std::isfinite(seconds) && seconds > 0 ? std::llround(seconds) : 0;
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

ProgressDisplay::ProgressDisplay(std::size_t total, Sink sink, ProgressOptions options)
    : options_(std::move(options)), sink_(std::move(sink)), total_(total) {
  start_s_ = phase_start_s_ = now();
  if (options_.mode == ProgressMode::live && options_.refresh_s > 0) refresher_ = std::thread([this] { refresh_loop(); });
}

ProgressDisplay::ProgressDisplay(std::size_t total, int fd)
    : ProgressDisplay(total, [fd](const std::string& bytes) { write_all(fd, bytes); }, progress_options_for(fd)) {}

ProgressDisplay::~ProgressDisplay() { close(); }

double ProgressDisplay::now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int ProgressDisplay::width_locked() const {
  const int cols = options_.width_fd >= 0 ? terminal_columns(options_.width_fd) : 0;
  return cols > 0 ? cols : std::max(1, options_.width);
}

std::string ProgressDisplay::status_locked() const {
  const std::size_t max = static_cast<std::size_t>(std::max(1, width_locked() - 1));
  const double t = now();
  std::string eta = "--";
  if (done_ > 0) {
    const std::size_t left = total_ > done_ ? total_ - done_ : 0;
    eta = format_duration(static_cast<double>(left) * (t - phase_start_s_) / static_cast<double>(done_));
  }
  // No count before there is anything to count (a run preparing its phases): the phase alone.
  std::string head = total_ > 0 || done_ > 0 ? fmt::format("[{}/{}]", done_, total_) : "";
  if (!phase_.empty()) head += (head.empty() ? "" : " ") + collapse_whitespace(phase_);
  const std::string tail = fmt::format("elapsed {}  ETA {}", format_duration(t - start_s_), eta);
  const std::size_t fixed = columns(head) + (head.empty() ? 0 : 2) + columns(tail);
  if (fixed >= max) return first_columns(head.empty() ? tail : head + "  " + tail, max);
  std::vector<std::pair<std::size_t, std::string>> ordered;
  for (const auto& [id, item] : in_flight_) ordered.push_back(item);
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::string> items;
  for (auto& o : ordered) items.push_back(collapse_whitespace(o.second));
  const std::string middle = items.empty() || max - fixed < 2 ? "" : fit_items(items, max - fixed - 2);
  std::string line;
  for (const std::string& part : {head, middle, tail})
    if (!part.empty()) line += (line.empty() ? "" : "  ") + part;
  return line;
}

std::string ProgressDisplay::status_line() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_locked();
}

void ProgressDisplay::redraw_locked() {
  if (options_.mode != ProgressMode::live || closed_) return;
  sink_("\r" + status_locked() + kClearToEnd);
  shown_ = true;
}

void ProgressDisplay::redraw() {
  std::lock_guard<std::mutex> lock(mutex_);
  redraw_locked();
}

// A line above the live one: the status cleared, the line, the status drawn again (one write).
void ProgressDisplay::print_locked(const std::string& text) {
  if (options_.mode != ProgressMode::live || closed_) {
    sink_(text + "\n");
    return;
  }
  sink_(std::string("\r") + kClearToEnd + text + "\n" + status_locked() + kClearToEnd);
  shown_ = true;
}

void ProgressDisplay::phase(const std::string& name, std::size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_ = name;
  total_ = total;
  done_ = 0;
  in_flight_.clear();
  phase_start_s_ = now();
  redraw_locked();
}

void ProgressDisplay::start(std::size_t id, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_flight_.find(id);
  if (it == in_flight_.end()) in_flight_.emplace(id, std::make_pair(++started_, what));
  else it->second.second = what;
  redraw_locked();
}

void ProgressDisplay::finish(std::size_t id, const std::string& text, std::size_t units) {
  std::lock_guard<std::mutex> lock(mutex_);
  in_flight_.erase(id);
  done_ += units;
  if (text.empty()) redraw_locked();
  else print_locked(text);
}

void ProgressDisplay::drop(std::size_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  in_flight_.erase(id);
  if (total_ > done_) --total_;
  redraw_locked();
}

void ProgressDisplay::advance(std::size_t units) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ += units;
  redraw_locked();
}

void ProgressDisplay::line(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  print_locked(text);
}

void ProgressDisplay::close() {
  std::thread refresher;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shown_) sink_(std::string("\r") + kClearToEnd);
    shown_ = false;
    closed_ = true;
    refresher = std::move(refresher_);
  }
  wake_.notify_all();
  if (refresher.joinable()) refresher.join();
}

void ProgressDisplay::refresh_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto every = std::chrono::milliseconds(std::max<long long>(1, std::llround(options_.refresh_s * 1000)));
  while (!closed_) {
    wake_.wait_for(lock, every, [this] { return closed_; });
    if (!closed_) redraw_locked();
  }
}

}  // namespace mskb

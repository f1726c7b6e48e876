#include "shared_instances.hpp"

#include <filesystem>

#include <sys/statvfs.h>
#include <unistd.h>

#include "mskb/harness/launcher.hpp"

namespace fs = std::filesystem;

namespace mskb {

namespace {

std::string make_root() {
  struct statvfs vfs {};
  std::string base;
  constexpr unsigned long long kMinFree = 8ULL << 30;
  if (::statvfs("/dev/shm", &vfs) == 0 && static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize >= kMinFree &&
      ::access("/dev/shm", W_OK) == 0)
    base = "/dev/shm";
  else
    base = launch_work_dir(Launcher{}, "");
  std::string tmpl = base + "/mskb-instances-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return {};
  return tmpl;
}

}  // namespace

void SharedInstances::plan(const std::vector<std::size_t>& timed_items) {
  const int timed = static_cast<int>(timed_items.size());
  if (timed < 2) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (root_.empty()) root_ = make_root();
  if (root_.empty()) return;
  const std::string dir = root_ + "/" + std::to_string(groups_.size());
  std::error_code ec;
  if (!fs::create_directories(dir, ec) && ec) return;
  groups_.push_back({dir, timed, timed});
  for (std::size_t i : timed_items) group_of_[i] = groups_.size() - 1;
}

std::pair<std::string, int> SharedInstances::of(std::size_t item) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto s = group_of_.find(item);
  if (s == group_of_.end()) return {};
  return {groups_[s->second].dir, groups_[s->second].consumers};
}

void SharedInstances::part_done(std::size_t item) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto s = group_of_.find(item);
  if (s == group_of_.end()) return;
  Group& g = groups_[s->second];
  group_of_.erase(s);
  if (--g.remaining == 0) {
    std::error_code ec;
    fs::remove_all(g.dir, ec);
  }
}

void SharedInstances::remove_root() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (root_.empty()) return;
  std::error_code ec;
  fs::remove_all(root_, ec);
  root_.clear();
}

}  // namespace mskb

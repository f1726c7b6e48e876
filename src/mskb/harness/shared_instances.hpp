// The timing parts' shared instances (internal to src/mskb/harness; RunRequest::instance_share_dir):
// one folder per (task, precision) group with two or more contenders to time, made under the run's
// share root, removed when the group's last timing part has ended. The root is on /dev/shm where
// that has room (the entries are memory either way, and there they never reach a disk), else in
// the run's temp folder; it goes with this object (or remove_root()).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mskb {

class SharedInstances {
 public:
  SharedInstances() = default;
  ~SharedInstances() { remove_root(); }
  SharedInstances(const SharedInstances&) = delete;
  SharedInstances& operator=(const SharedInstances&) = delete;

  // A group's items to time: a folder for them when there are two or more.
  void plan(const std::vector<std::size_t>& timed_items);
  // An item's folder and how many timing parts share it ({"", 0}: none).
  std::pair<std::string, int> of(std::size_t item) const;
  // An item's timing part has ended (however): its group's folder goes with the last one.
  void part_done(std::size_t item);
  void remove_root();

 private:
  struct Group {
    std::string dir;
    int consumers = 0, remaining = 0;
  };
  mutable std::mutex mutex_;
  std::string root_;
  std::vector<Group> groups_;
  std::map<std::size_t, std::size_t> group_of_;  // item -> its group
};

}  // namespace mskb

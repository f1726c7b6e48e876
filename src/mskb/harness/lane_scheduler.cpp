// The lanes and the scheduling of work units onto them (mskb/harness/lane_scheduler.hpp).
#include "mskb/harness/lane_scheduler.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "mskb/harness/launcher.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/util/text.hpp"

namespace mskb {

std::vector<std::string> gpu_lanes(const std::vector<int>& requested, int device_count, const char* visible_env) {
  // Ordinals as this process sees them, mapped to what a child's CUDA_VISIBLE_DEVICES must say when
  // the parent already runs under a CUDA_VISIBLE_DEVICES list (e.g. a Slurm allocation).
  std::vector<std::string> visible;
  if (visible_env && *visible_env) visible = split(visible_env, ',', /*skip_empty=*/true);
  const int count = visible.empty() ? std::max(1, device_count) : std::min<int>(std::max(1, device_count), static_cast<int>(visible.size()));
  std::vector<int> ordinals = requested;
  if (ordinals.empty())
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  std::vector<std::string> lanes;
  for (int o : ordinals) {
    if (o < 0 || o >= count)
      throw std::invalid_argument(fmt::format("--gpus: no GPU {} ({} visible)", o, count));
    const std::string id = visible.empty() ? std::to_string(o) : visible[static_cast<std::size_t>(o)];
    if (std::find(lanes.begin(), lanes.end(), id) == lanes.end()) lanes.push_back(id);
  }
  return lanes;
}

int auto_checks_per_gpu(int cpus, double host_memory_gb, std::size_t lanes) {
  const double per_lane = static_cast<double>(std::max<std::size_t>(1, lanes));
  const double by_cpu = std::max(1, cpus) / 2.0 / per_lane, by_memory = host_memory_gb / 12.0 / per_lane;
  return static_cast<int>(std::clamp(std::floor(std::min(by_cpu, by_memory)), 1.0, 8.0));
}

int auto_timing_overlap(bool all_trusted) { return all_trusted ? 3 : 1; }

double host_memory_gb() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) / 1e9 : 16.0;
}

std::string lane_file_name(const std::string& lane) {
  std::string name;
  for (const char c : lane) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return name;
}

void LaneScheduler::make_locks() {
  const std::string dir = launch_work_dir(Launcher{}, "locks");
  for (const std::string& lane : lanes_) locks_[lane] = dir + "/gpu-" + lane_file_name(lane) + ".lock";
}

std::string LaneScheduler::lock_of(const std::string& lane) const {
  const auto l = locks_.find(lane);
  return l == locks_.end() ? std::string() : l->second;
}

int LaneScheduler::cpu_share(int pools_per_lane) const {
  return std::max(1, (available_cpus() - 2) / (pools_per_lane * static_cast<int>(std::max<std::size_t>(1, lanes_.size()))));
}

void LaneScheduler::run(const WorkUnits& units, int per_lane, bool stagger, const LaneWork& work) const {
  per_lane = std::max(1, per_lane);
  std::size_t items = 0;
  for (const auto& u : units)
    for (std::size_t i : u) items = std::max(items, i + 1);
  std::size_t next_unit = 0;
  std::mutex queue_mutex;
  std::vector<std::deque<std::size_t>> queued(lanes_.size());  // items of the units each lane took, not started yet
  std::vector<std::size_t> unit_of(items, 0);
  for (std::size_t u = 0; u < units.size(); ++u)
    for (std::size_t i : units[u]) unit_of[i] = u;
  std::vector<int> running(units.size(), 0);
  const auto start_item = [&](std::deque<std::size_t>& q, std::size_t at) {
    const std::size_t i = q[at];
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(at));
    ++running[unit_of[i]];
    return i;
  };
  auto next_item = [&](std::size_t lane) -> std::optional<std::size_t> {
    std::lock_guard<std::mutex> lock(queue_mutex);
    std::deque<std::size_t>& q = queued[lane];
    if (stagger) {
      for (std::size_t at = 0; at < q.size(); ++at)
        if (running[unit_of[q[at]]] == 0) return start_item(q, at);
      if (next_unit < units.size()) {
        const std::size_t first = q.size();
        q.insert(q.end(), units[next_unit].begin(), units[next_unit].end());
        ++next_unit;
        return start_item(q, first);
      }
      if (q.empty()) return std::nullopt;
      return start_item(q, 0);
    }
    if (q.empty() && next_unit < units.size()) {
      q.assign(units[next_unit].begin(), units[next_unit].end());
      ++next_unit;
    }
    if (q.empty()) return std::nullopt;
    return start_item(q, 0);
  };
  const std::size_t workers = lanes_.size() * static_cast<std::size_t>(per_lane);
  auto worker = [&](std::size_t w) {
    const std::string& lane = lanes_[w % lanes_.size()];
    while (const std::optional<std::size_t> i = next_item(w % lanes_.size())) {
      work(*i, lane);
      std::lock_guard<std::mutex> lock(queue_mutex);
      --running[unit_of[*i]];
    }
  };
  run_pool(workers, static_cast<int>(workers), worker);  // every worker on a thread of its own
}

void LaneScheduler::run_two_stages(const WorkUnits& units, int first_per_lane, int second_per_lane, const LaneWork& first,
                                   const std::function<void(std::size_t unit)>& on_taken, const LaneWork& second) const {
  std::size_t items = 0;
  for (const auto& u : units)
    for (std::size_t i : u) items = std::max(items, i + 1);
  std::vector<std::size_t> unit_of(items), unfinished(units.size());
  std::deque<std::size_t> to_start;
  for (std::size_t u = 0; u < units.size(); ++u) {
    unfinished[u] = units[u].size();
    for (std::size_t i : units[u]) {
      unit_of[i] = u;
      to_start.push_back(i);
    }
  }
  std::vector<bool> taken(units.size(), false);
  std::size_t untaken = units.size();
  // The first unit not taken whose first stages have all ended (units.size(): none); under m.
  const auto next_ready = [&] {
    std::size_t u = 0;
    while (u < units.size() && (taken[u] || unfinished[u] != 0)) ++u;
    return u;
  };
  std::vector<std::deque<std::size_t>> queued(lanes_.size());  // items of the unit each lane took
  // A lane takes a ready unit only while no other lane has fewer units in its second stage (and,
  // between equals, none has taken fewer so far): with several workers per lane (timing overlap)
  // the first to wake would otherwise take every unit onto its own GPU while another GPU idles.
  std::vector<std::size_t> second_left(units.size());
  std::vector<std::pair<std::size_t, std::size_t>> lane_load(lanes_.size());  // (units in progress, units taken)
  for (std::size_t u = 0; u < units.size(); ++u) second_left[u] = units[u].size();
  const auto least_loaded = [&](std::size_t lane) { return lane_load[lane] == *std::min_element(lane_load.begin(), lane_load.end()); };
  std::mutex m;
  std::condition_variable ready;
  auto first_worker = [&](std::size_t w) {
    const std::string& lane = lanes_[w % lanes_.size()];
    while (true) {
      std::size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(m);
        if (to_start.empty()) return;
        i = to_start.front();
        to_start.pop_front();
      }
      first(i, lane);
      std::lock_guard<std::mutex> lock(m);  // a second-stage worker reads what `first` left once it sees this
      if (--unfinished[unit_of[i]] == 0) ready.notify_all();
    }
  };
  auto second_worker = [&](std::size_t w) {
    const std::size_t lane_no = w % lanes_.size();
    const std::string& lane = lanes_[lane_no];
    while (true) {
      std::size_t i = 0;
      {
        std::unique_lock<std::mutex> lock(m);
        ready.wait(lock, [&] {
          return !queued[lane_no].empty() || untaken == 0 || (least_loaded(lane_no) && next_ready() < units.size());
        });
        if (queued[lane_no].empty()) {
          if (untaken == 0) return;  // every unit taken: this lane has nothing left
          const std::size_t u = next_ready();
          taken[u] = true;
          --untaken;
          ++lane_load[lane_no].first;
          ++lane_load[lane_no].second;
          if (on_taken) on_taken(u);
          queued[lane_no].assign(units[u].begin(), units[u].end());
          ready.notify_all();  // the lane's other workers may start on it too
        }
        i = queued[lane_no].front();
        queued[lane_no].pop_front();
      }
      second(i, lane);
      std::lock_guard<std::mutex> lock(m);
      if (--second_left[unit_of[i]] == 0) {
        --lane_load[lane_no].first;
        ready.notify_all();  // this lane may now be the least loaded
      }
    }
  };
  const std::size_t firsts = lanes_.size() * static_cast<std::size_t>(std::max(1, first_per_lane));
  const std::size_t seconds = lanes_.size() * static_cast<std::size_t>(std::max(1, second_per_lane));
  run_pool(firsts + seconds, static_cast<int>(firsts + seconds), [&](std::size_t w) {  // every worker on a thread of its own
    if (w < firsts) first_worker(w);
    else second_worker(w - firsts);
  });
}

}  // namespace mskb

// Owns the run-wide part of a rerun's comparison (rerun.cpp's): a machine's host path (the CPU,
// the driver, the launch path) moves the call times of every entry together, by time scale, while
// the kernels' own time does not move with it. The shift of each time scale is measured on the
// rerun itself (the median log ratio of the shapes in that band), so an entry's time is judged
// against the run's shift, and the shift is judged once, for the whole run. Internal to
// src/mskb/report.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/spread.hpp"
#include "mskb/report/intervals.hpp"

namespace mskb::rerun_detail {

using Shapes = std::map<std::string, ShapeTimes>;

// The geometric mean of new / old over the shapes both have (call or device time), and how many.
std::pair<double, int> geo_ratio(const Shapes& o, const Shapes& n, bool device);

// The whole run's shift: the geometric mean over every shape both runs timed correctly of new / old
// call time, and of device time where both carry one: {"shapes", "call_ratio", "device_shapes",
// "device_ratio"} (null ratios without shapes).
nlohmann::json run_shift(const std::map<EntryKey, Shapes>& old_t, const std::map<EntryKey, Shapes>& new_t);

// The call-time shift of each band of the model (bands by the report's median), from every shape
// both runs timed correctly.
class BandShifts {
 public:
  // A band's shift for an entry is taken from the other entries only (an entry cannot explain its
  // own move away), and only where at least kMinEntries other entries with kMinShapes shapes in
  // that band measured it: a rerun of a few entries is judged without it (the model's common term
  // instead).
  static constexpr int kMinEntries = 8;
  static constexpr int kMinShapes = 20;

  BandShifts(const std::map<EntryKey, Shapes>& old_t, const std::map<EntryKey, Shapes>& new_t, const SpreadModel& m);

  // The geometric mean, over the shapes of `key` both runs timed, of their bands' shifts; nullopt
  // where a band of them has too few other entries.
  std::optional<double> entry_shift(const EntryKey& key, const Shapes& o, const Shapes& n) const;
  // Whether any band has enough entries to be measured.
  bool measured() const;
  // Per band, over every entry: [{"band": "< 15 us" ..., "shapes", "entries", "call_ratio" (null:
  // too few to measure)}].
  nlohmann::json bands() const;

 private:
  std::optional<double> band_shift(std::size_t band, const EntryKey* leave_out) const;
  std::string band_name(std::size_t band) const;

  const SpreadModel& model_;
  std::vector<std::vector<std::pair<EntryKey, double>>> by_band_;  // per band: (entry, ln new / old) of each shape
  std::vector<std::map<EntryKey, int>> entries_;                   // per band: shapes per entry
  std::vector<std::optional<double>> overall_;                     // per band: its shift over every entry
};

}  // namespace mskb::rerun_detail

// The run-wide part of a rerun's comparison (see rerun_shift.hpp).
#include "rerun_shift.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

using json = nlohmann::json;

namespace mskb::rerun_detail {

std::pair<double, int> geo_ratio(const Shapes& o, const Shapes& n, bool device) {
  double acc = 0;
  int k = 0;
  for (const auto& [label, t] : o) {
    const auto it = n.find(label);
    if (it == n.end()) continue;
    const double a = device ? t.device_us : t.call.median_us, b = device ? it->second.device_us : it->second.call.median_us;
    if (!(a > 0) || !(b > 0)) continue;
    acc += std::log(b / a);
    ++k;
  }
  return {k ? std::exp(acc / k) : 1.0, k};
}

json run_shift(const std::map<EntryKey, Shapes>& old_t, const std::map<EntryKey, Shapes>& new_t) {
  double lc = 0, ld = 0;
  int nc = 0, nd = 0;
  for (const auto& [key, shapes] : old_t) {
    const auto other = new_t.find(key);
    if (other == new_t.end()) continue;
    const auto [call, call_shapes] = geo_ratio(shapes, other->second, false);
    const auto [dev, dev_shapes] = geo_ratio(shapes, other->second, true);
    lc += std::log(call) * call_shapes;
    nc += call_shapes;
    ld += std::log(dev) * dev_shapes;
    nd += dev_shapes;
  }
  return {{"shapes", nc}, {"call_ratio", nc > 0 ? json(std::exp(lc / nc)) : json(nullptr)},
          {"device_shapes", nd}, {"device_ratio", nd > 0 ? json(std::exp(ld / nd)) : json(nullptr)}};
}

BandShifts::BandShifts(const std::map<EntryKey, Shapes>& old_t, const std::map<EntryKey, Shapes>& new_t, const SpreadModel& m)
    : model_(m), by_band_(m.bands_us.size() + 1), entries_(m.bands_us.size() + 1) {
  for (const auto& [key, shapes] : old_t) {
    const auto other = new_t.find(key);
    if (other == new_t.end()) continue;
    for (const auto& [label, t] : shapes) {
      const auto it = other->second.find(label);
      if (it == other->second.end() || !(t.call.median_us > 0) || !(it->second.call.median_us > 0)) continue;
      const std::size_t b = m.band(t.call.median_us);
      by_band_[b].push_back({key, std::log(it->second.call.median_us / t.call.median_us)});
      ++entries_[b][key];
    }
  }
  for (std::size_t b = 0; b < by_band_.size(); ++b) overall_.push_back(band_shift(b, nullptr));
}

std::optional<double> BandShifts::band_shift(std::size_t band, const EntryKey* leave_out) const {
  const auto& all = by_band_.at(band);
  const auto& per_entry = entries_.at(band);
  int others = static_cast<int>(per_entry.size());
  if (leave_out != nullptr && per_entry.count(*leave_out)) --others;
  std::vector<double> v;
  v.reserve(all.size());
  for (const auto& [key, x] : all)
    if (leave_out == nullptr || key != *leave_out) v.push_back(x);
  if (others < kMinEntries || static_cast<int>(v.size()) < kMinShapes) return std::nullopt;
  // The median: a few entries that truly moved do not move it.
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double med = v[mid];
  if (v.size() % 2 == 0) med = (med + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  return med;
}

std::optional<double> BandShifts::entry_shift(const EntryKey& key, const Shapes& o, const Shapes& n) const {
  std::map<std::size_t, std::optional<double>> cache;
  double acc = 0;
  int k = 0;
  for (const auto& [label, t] : o) {
    const auto it = n.find(label);
    if (it == n.end() || !(t.call.median_us > 0) || !(it->second.call.median_us > 0)) continue;
    const std::size_t b = model_.band(t.call.median_us);
    auto c = cache.find(b);
    if (c == cache.end()) c = cache.emplace(b, band_shift(b, &key)).first;
    if (!c->second) return std::nullopt;
    acc += *c->second;
    ++k;
  }
  if (k == 0) return std::nullopt;
  return std::exp(acc / k);
}

bool BandShifts::measured() const {
  return std::any_of(overall_.begin(), overall_.end(), [](const std::optional<double>& s) { return s.has_value(); });
}

std::string BandShifts::band_name(std::size_t band) const {
  const auto& e = model_.bands_us;
  if (band == 0) return fmt::format("< {:g} us", e.front());
  if (band >= e.size()) return fmt::format(">= {:g} us", e.back());
  return fmt::format("{:g}-{:g} us", e[band - 1], e[band]);
}

json BandShifts::bands() const {
  json out = json::array();
  for (std::size_t b = 0; b < by_band_.size(); ++b) {
    const auto& s = overall_[b];
    out.push_back({{"band", band_name(b)}, {"shapes", by_band_[b].size()}, {"entries", entries_[b].size()},
                   {"call_ratio", s ? json(std::exp(*s)) : json(nullptr)}});
  }
  return out;
}

}  // namespace mskb::rerun_detail

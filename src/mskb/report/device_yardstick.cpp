// Device time in the reports (see device_yardstick.hpp).
#include "mskb/report/device_yardstick.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>
#include <tuple>

#include <fmt/format.h>

#include "mskb/core/scoring.hpp"
#include "mskb/core/spread.hpp"
#include "mskb/protocol/device_time.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::num_at;
using report::shape_label;
using report::str_at;

namespace {

std::string us_text(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : v >= 10 ? fmt::format("{:.1f}", v) : fmt::format("{:.2f}", v); }

std::optional<double> device_us_of(const json& r) {
  const auto d = num_at(r, "device_us");
  return d && *d > 0 ? d : std::nullopt;
}

}  // namespace

void put_result_device_time(json& r, const TimingStats& t) {
  if (t.device) {
    r["device_us"] = t.device->device_us;
    r["host_share"] = t.device->host_share;
    r["device_samples"] = t.device->samples;
  } else if (!t.device_note.empty()) {
    r["device_note"] = t.device_note;
  }
}

bool is_host_bound(const json& r) {
  const auto h = num_at(r, "host_share");
  return h && *h > kHostBoundShare;
}

namespace {

// The shapes P used (results with a "speedup_vs_baseline") of one contender, each with its
// complexity and the device times of the baseline and the contender at it; nullopt when any of
// them lacks a device time on either side (no P device over fewer shapes).
std::optional<std::vector<ShapeSpeedup>> device_shapes(const json& report, const std::string& task, const std::string& precision,
                                                       const std::string& contender, const std::string& sweep) {
  std::map<std::string, double> base;  // the baseline's device time at each shape of the sweep
  for (const json& r : array_of(report, "results"))
    if (str_at(r, "task") == task && str_at(r, "precision") == precision && str_at(r, "sweep") == sweep &&
        contender_kind(str_at(r, "contender")) == ContenderKind::baseline)
      if (const auto d = device_us_of(r)) base[shape_label(r.value("shape", json()))] = *d;
  std::vector<ShapeSpeedup> shapes;
  for (const json& r : array_of(report, "results")) {
    if (str_at(r, "task") != task || str_at(r, "precision") != precision || str_at(r, "contender") != contender || str_at(r, "sweep") != sweep)
      continue;
    const auto s = num_at(r, "speedup_vs_baseline");
    if (!s || *s <= 0) continue;  // not among the shapes P used
    const auto own = device_us_of(r);
    const auto b = base.find(shape_label(r.value("shape", json())));
    if (!own || b == base.end()) return std::nullopt;
    const auto c = num_at(r, "complexity");
    ShapeSpeedup x;
    x.complexity = c && *c > 0 ? static_cast<uint64_t>(*c) : 0;
    x.baseline.median_us = b->second;
    x.contender.median_us = *own;
    shapes.push_back(x);
  }
  return shapes;
}

}  // namespace

DeviceP device_p(const json& report, const std::string& task, const std::string& precision, const std::string& contender,
                 const std::string& sweep, const SpreadModel& model, SpreadScope scope) {
  const auto shapes = device_shapes(report, task, precision, contender, sweep);
  if (!shapes) return {nullptr, nullptr};
  std::vector<WeightedSample> w;
  for (const ShapeSpeedup& x : *shapes) w.push_back({x.complexity, speedup(x.baseline.median_us, x.contender.median_us)});
  const auto P = complexity_weighted(w);
  if (!P) return {nullptr, nullptr};
  if (contender_kind(contender) == ContenderKind::baseline) return {*P, nullptr};
  const auto iv = p_interval(*shapes, model, scope, TimeKind::device);
  return {*P, iv ? json::array({iv->lo, iv->hi}) : json(nullptr)};
}

json p_device(const json& report, const std::string& task, const std::string& precision, const std::string& contender,
              const std::string& sweep) {
  return device_p(report, task, precision, contender, sweep).p;
}

void add_device_yardstick(json& report) {
  if (!report.is_object() || !report.contains("scores") || !report["scores"].is_array()) return;
  for (json& s : report["scores"]) {
    const std::string task = str_at(s, "task"), precision = str_at(s, "precision"), contender = str_at(s, "contender"),
                      sweep = str_at(s, "sweep");
    const DeviceP d = device_p(report, task, precision, contender, sweep);
    s["p_device"] = d.p;
    s["p_device_interval"] = d.interval;
  }
}

std::string device_cell(const json& r, bool compact) {
  const auto d = device_us_of(r);
  if (!d) return "-";
  const json h = r.contains("host_share") ? r["host_share"] : json();
  if (compact) return us_text(*d) + "/" + report::percent(h) + (is_host_bound(r) ? "H" : "");
  return us_text(*d) + " us, host " + report::percent(h) + (is_host_bound(r) ? " host-bound" : "");
}

json device_time_summary(const json& report) {
  int shapes = 0, measured = 0;
  std::vector<json> bound;
  std::map<std::string, int> notes;
  for (const json& r : array_of(report, "results")) {
    ++shapes;
    if (device_us_of(r)) {
      ++measured;
      if (is_host_bound(r))
        bound.push_back({{"task", str_at(r, "task")},
                         {"precision", str_at(r, "precision")},
                         {"contender", str_at(r, "contender")},
                         {"sweep", str_at(r, "sweep")},
                         {"shape", shape_label(r.value("shape", json()))},
                         {"host_share", r["host_share"]},
                         {"device_us", r["device_us"]},
                         {"time_us", r.value("time_us", json::object()).value("median", json())}});
    } else {
      ++notes[str_at(r, "device_note").empty() ? std::string("a report from before device time was measured") : str_at(r, "device_note")];
    }
  }
  std::stable_sort(bound.begin(), bound.end(), [](const json& a, const json& b) { return a["host_share"].get<double>() > b["host_share"].get<double>(); });
  std::vector<std::pair<std::string, int>> by_count(notes.begin(), notes.end());
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json note_list = json::array();
  for (const auto& [note, n] : by_count) note_list.push_back({{"note", note}, {"shapes", n}});
  return {{"shapes", shapes}, {"measured", measured}, {"host_bound", bound}, {"notes", note_list}};
}

std::vector<std::string> device_time_lines(const json& summary, std::size_t list) {
  std::vector<std::string> out;
  const int shapes = summary.value("shapes", 0), measured = summary.value("measured", 0);
  const json& notes = array_of(summary, "notes");
  if (shapes == 0) return out;
  if (measured == 0) {
    out.push_back("device time: not available (" + (notes.empty() ? std::string("no reason given") : str_at(notes[0], "note")) + ")");
    return out;
  }
  const json& bound = array_of(summary, "host_bound");
  out.push_back(fmt::format("device time (GPU busy time of what the call issued, CUPTI; P device: P on it): {} of {} timed shapes; "
                            "{} host-bound (host share > {:.0f}%: the call time is mostly host work, not GPU work)",
                            measured, shapes, bound.size(), 100 * kHostBoundShare));
  if (!bound.empty()) {
    std::string names;
    for (std::size_t i = 0; i < bound.size() && i < list; ++i) {
      const json& b = bound[i];
      names += fmt::format("{}{} {} {} {} {} (host {}, device {} of {} us)", i ? "; " : "", str_at(b, "task"), str_at(b, "precision"),
                           str_at(b, "contender"), str_at(b, "sweep"), str_at(b, "shape"), report::percent(b["host_share"]),
                           us_text(b["device_us"].get<double>()), report::is_num(b["time_us"]) ? us_text(b["time_us"].get<double>()) : "-");
    }
    if (bound.size() > list) names += fmt::format("; and {} more", bound.size() - list);
    out.push_back("host-bound: " + names);
  }
  for (const json& n : notes) out.push_back(fmt::format("no device time at {} shape(s): {}", n.value("shapes", 0), str_at(n, "note")));
  return out;
}

}  // namespace mskb

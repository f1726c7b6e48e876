// Owns device time in the reports: beside each shape's call time (CUDA events around the entry
// point, host code included: what P is computed from), the GPU's time on what the call issued
// (mskb/protocol/device_time.hpp; per result "device_us", "host_share", "device_samples", or
// "device_note" saying why there is none), the P computed on device time (per score "p_device"),
// the host-bound mark (host share above kHostBoundShare: the call time is mostly host work) and
// the lines and cells the renderers show. Pure functions of `mskb run --json` documents; reports
// from before device time was measured have none of the fields and render "-".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/spread.hpp"

#include "mskb/protocol/events.hpp"

namespace mskb {

// The device-time fields of one result of a report (report_json): "device_us", "host_share",
// "device_samples" when measured, else "device_note" when the timing says why (nothing for a
// timing that predates device time).
void put_result_device_time(nlohmann::json& result, const TimingStats& t);

// Whether a result's host share is above kHostBoundShare.
bool is_host_bound(const nlohmann::json& result);

// P on device time: complexity-weighted over the shapes whose speedup P used (results with a
// "speedup_vs_baseline"), of the baseline's device_us / the contender's device_us at each (the
// same formula as P: mskb::complexity_weighted); null when any of those shapes lacks a device time
// on either side, or there are none.
nlohmann::json p_device(const nlohmann::json& report, const std::string& task, const std::string& precision,
                        const std::string& contender, const std::string& sweep);
// P device (as p_device) and where another lease's would fall: the spread model's interval over
// the same shapes with its device-time bounds (mskb/core/spread.hpp), [lo, hi]; the interval is
// null where P device is, and for the baseline (1 by definition). One pass over the results;
// `mskb rerun` passes its own model and scope.
struct DeviceP {
  nlohmann::json p, interval;
};
DeviceP device_p(const nlohmann::json& report, const std::string& task, const std::string& precision, const std::string& contender,
                 const std::string& sweep, const SpreadModel& model = spread_model(), SpreadScope scope = SpreadScope::between_lease);
// Sets every score's "p_device" and "p_device_interval" (add_yardsticks calls it).
void add_device_yardstick(nlohmann::json& report);

// A result's device cell: "12.3 us, host 45%", with " host-bound" when it is; "-" without a device
// time. compact: "12.3/45%H" (H: host-bound).
std::string device_cell(const nlohmann::json& result, bool compact = false);

// Over a report's results: {"shapes" (timed), "measured", "host_bound": [{"task", "precision",
// "contender", "sweep", "shape", "host_share", "device_us", "time_us"}] (by host share, largest
// first), "notes": [{"note", "shapes"}] (why not measured, most shapes first)}.
nlohmann::json device_time_summary(const nlohmann::json& report);
// Its lines for a report's readers: how many shapes have a device time (or "device time: not
// available (REASON)" when none has), the host-bound shapes (at most `list` named), and why the
// others have none.
std::vector<std::string> device_time_lines(const nlohmann::json& summary, std::size_t list = 5);

}  // namespace mskb

// The CSV renderings (RFC 4180, see csv.hpp): a suite report's results or contenders, and the
// entries of `mskb report`.
#include "mskb/report/csv.hpp"

#include <vector>

#include <fmt/format.h>

#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/yardsticks.hpp"

using json = nlohmann::json;

namespace mskb {

using report::csv_field;
using report::csv_number;
using report::csv_value;
using report::text_of;

namespace {

// The vendor column of a result: why there is no ratio ("none: <reason>", "no vendor"), or the
// cost the ABI forces on the vendor route next to its ratio; "" otherwise.
std::string vendor_note(const json& report, const json& r) {
  const json v = task_vendor(report, report::str_at(r, "task"));
  const json& ratio = r.is_object() && r.contains("ratio_vs_vendor") ? r["ratio_vs_vendor"] : json();
  if (!report::is_num(ratio)) return vendor_cell(v, ratio);
  return v.is_object() && !report::str_at(v, "abi_cost").empty() ? "ABI cost: " + report::str_at(v, "abi_cost") : "";
}

std::string csv_line(const std::vector<json>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_value(fields[i]);
  return line + "\r\n";
}

const json& field(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

}  // namespace

std::string render_results_csv(const json& report) {
  std::string out = "task,precision,contender,sweep,shape,complexity,disposition,median_us,min_us,max_us,n,noise,"
                    "speedup_vs_baseline,ratio_vs_vendor,sol_fraction,launch_bound,vendor,device_us,host_share,device_samples,host_bound,"
                    "device_note\r\n";
  const auto floor = launch_floor_us(field(report, "device"));
  for (const json& r : field(report, "results")) {
    const json& t = field(r, "time_us");
    out += csv_line({field(r, "task"), field(r, "precision"), field(r, "contender"), field(r, "sweep"), field(r, "shape"),
                     field(r, "complexity"), field(r, "disposition"), field(t, "median"), field(t, "min"), field(t, "max"), field(t, "n"),
                     field(t, "noise"), field(r, "speedup_vs_baseline"), field(r, "ratio_vs_vendor"), field(r, "sol_fraction"),
                     json(is_launch_bound(field(t, "median"), floor)), json(vendor_note(report, r)), field(r, "device_us"),
                     field(r, "host_share"), field(r, "device_samples"), json(is_host_bound(r)), field(r, "device_note")});
  }
  return out;
}

std::string render_contenders_csv(const json& report) {
  std::string out = "task,precision,contender,disposition,checks_passed,checks_total,message\r\n";
  for (const json& c : field(report, "contenders"))
    out += csv_line({field(c, "task"), field(c, "precision"), field(c, "contender"), field(c, "disposition"), field(c, "checks_passed"),
                     field(c, "checks_total"), field(c, "message")});
  return out;
}

std::string render_run_csv(const json& data) {
  const json& sweeps = data["summary"]["sweeps"];
  std::string out = "task,precision,category,contender,kind,disposition,checks_passed,checks_total";
  for (const auto& w : sweeps)
    for (const char* f : {"P", "P_lo", "P_hi", "geomean", "vendor_ratio", "median_sol", "best_sol", "p_device", "p_device_lo", "p_device_hi"})
      out += "," + csv_field(std::string(f) + "_" + text_of(w));
  out += ",message\n";
  for (const json& e : data["entries"]) {
    out += fmt::format("{},{},{},{},{},{},{},{}", csv_field(text_of(e["task"])), csv_field(text_of(e["precision"])), csv_field(text_of(e["category"])),
                       csv_field(text_of(e["contender"])), csv_field(text_of(e["kind"])), csv_field(text_of(e["disposition"])), text_of(e["checks_passed"]),
                       text_of(e["checks_total"]));
    for (const auto& w : sweeps) {
      const json x = e["sweeps"].value(w.get<std::string>(), json::object());
      const auto bounds = [](const json& iv) {  // ",lo,hi" of an interval, or two empty cells
        const bool ok = iv.is_array() && iv.size() == 2;
        return "," + csv_number(ok ? iv[0] : json()) + "," + csv_number(ok ? iv[1] : json());
      };
      out += "," + csv_number(x.value("P", json())) + bounds(x.value("P_interval", json()));
      for (const char* f : {"geomean", "vendor_ratio", "median_sol", "best_sol", "p_device"}) out += "," + csv_number(x.value(f, json()));
      out += bounds(x.value("p_device_interval", json()));
    }
    out += "," + csv_field(text_of(e["message"])) + "\n";
  }
  return out;
}

}  // namespace mskb

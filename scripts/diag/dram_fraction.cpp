// The too_fast replay margin's calibration (docs/harness.md section 10): the DRAM-roofline fraction
// (minimum traffic at the measured bandwidth / median) of every correct timed shape in suite reports,
// the highest first, by working set in multiples of the L2. Built against the project's core:
//   g++ -std=c++17 -O1 -Iinclude scripts/diag/dram_fraction.cpp -Wl,--whole-archive build/cpu/src/libmskb_core.a \
//       -Wl,--no-whole-archive build/cpu/src/libmskb_util.a -lpthread -ldl -o dram_fraction
//   ./dram_fraction REPORT.json ...
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <vector>
#include <string>
#include "mskb/core/registry.hpp"
#include "mskb/core/task.hpp"
using json = nlohmann::json;
using namespace mskb;
int main(int argc, char** argv) {
  struct Row { double frac, ws_l2; std::string what; };
  std::vector<Row> rows;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]); json d = json::parse(in);
    const double bw = d["device"]["dram_bandwidth_gbs"].get<double>() * 1e3;  // bytes/us
    const double l2 = d["device"]["l2_bytes"].get<double>();
    for (auto& r : d["results"]) {
      const std::string disp = r["disposition"];
      if (disp != "passed" && disp != "noisy") continue;
      const TaskSpec* t = nullptr;
      try { t = &get_task(r["task"].get<std::string>()); } catch (...) { continue; }
      Shape s; for (auto& [k, v] : r["shape"].items()) s.dims.push_back({k, v.get<int64_t>()});
      Shape ordered = s;
      for (const auto& sw : {t->paper, t->large, t->heldout}) for (const Shape& c : sw) { Shape a=c, b=s; std::sort(a.dims.begin(),a.dims.end()); std::sort(b.dims.begin(),b.dims.end()); if (a==b) ordered=c; }
      const Precision p = r["precision"] == "bf16" ? Precision::bf16 : Precision::fp32;
      const Cost c = t->cost(ordered, p);
      const double med = r["time_us"]["median"].get<double>();
      const double dram_us = c.bytes / bw;
      rows.push_back({dram_us / med, c.bytes / l2, r["task"].get<std::string>() + " " + r["precision"].get<std::string>() + " " + r["contender"].get<std::string>() + " " + r["sweep"].get<std::string>() + " " + r["shape"].dump()});
    }
  }
  for (double m : {1.0, 2.0, 4.0, 8.0}) {
    std::vector<Row> sel; for (auto& x : rows) if (x.ws_l2 >= m) sel.push_back(x);
    std::sort(sel.begin(), sel.end(), [](auto& a, auto& b){ return a.frac > b.frac; });
    std::printf("working set >= %.0fx L2: %zu shapes, highest DRAM-roofline fractions:\n", m, sel.size());
    for (size_t i = 0; i < std::min<size_t>(8, sel.size()); ++i) std::printf("  %.3f  %6.1fx L2  %s\n", sel[i].frac, sel[i].ws_l2, sel[i].what.c_str());
  }
  std::vector<Row> all = rows; std::sort(all.begin(), all.end(), [](auto& a, auto& b){ return a.frac > b.frac; });
  std::printf("any working set: highest:\n");
  for (size_t i = 0; i < std::min<size_t>(8, all.size()); ++i) std::printf("  %.3f  %6.2fx L2  %s\n", all[i].frac, all[i].ws_l2, all[i].what.c_str());
}

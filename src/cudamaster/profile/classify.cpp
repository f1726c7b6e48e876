#include "cudamaster/profile/classify.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace cudamaster::profile {

namespace {

struct UnitDef {
  const char* label;
  UnitKind kind;
  std::vector<const char*> metrics;  // aliases / variants: the unit's value is the largest present
};

// The units of the Speed Of Light breakdown and the Compute / Memory Workload sections.
const std::vector<UnitDef>& unit_defs() {
  static const std::vector<UnitDef> defs = {
      {"SM throughput", UnitKind::compute, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {"issue slots", UnitKind::compute,
       {"sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "sm__issue_active.avg.pct_of_peak_sustained_elapsed"}},
      {"FMA pipe", UnitKind::compute, {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {"FMA-heavy pipe", UnitKind::compute, {"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {"ALU pipe", UnitKind::compute, {"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {"FP64 pipe", UnitKind::compute, {"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {"tensor pipe", UnitKind::compute,
       {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {"XU pipe", UnitKind::compute, {"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"}},
      {"LSU pipe", UnitKind::compute, {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"}},
      {"memory throughput", UnitKind::memory, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {"DRAM", UnitKind::memory,
       {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {"L2", UnitKind::memory, {"lts__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {"L1/shared", UnitKind::memory,
       {"l1tex__throughput.avg.pct_of_peak_sustained_active", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"}},
  };
  return defs;
}

constexpr const char* kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr const char* kStallSuffix = "_per_issue_active.ratio";

double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }
double factor(double margin) { return 0.5 + 0.5 * clamp01(margin); }

const UnitUtilisation* top_of(const std::vector<UnitUtilisation>& units, UnitKind kind) {
  const UnitUtilisation* best = nullptr;
  for (const auto& u : units)
    if (u.kind == kind && (!best || u.pct > best->pct)) best = &u;
  return best;
}

std::string pct(double v) { return fmt::format("{:.1f} %", v); }

}  // namespace

const char* to_string(Bottleneck b) {
  switch (b) {
    case Bottleneck::compute: return "compute";
    case Bottleneck::memory_bandwidth: return "memory-bandwidth";
    case Bottleneck::memory_latency: return "memory-latency";
  }
  return "?";
}

const char* to_string(UnitKind k) { return k == UnitKind::compute ? "compute" : "memory"; }

bool is_memory_stall(const std::string& r) {
  return r == "long_scoreboard" || r == "lg_throttle" || r == "tex_throttle" || r == "drain" || r == "membar" ||
         r == "imc_miss";
}

std::vector<StallReason> stall_reasons(const KernelProfile& k) {
  const std::string prefix = kStallPrefix, suffix = kStallSuffix;
  std::vector<StallReason> out;
  double total = 0;
  for (const auto& m : k.metrics) {
    if (!m.is_number() || m.name.size() <= prefix.size() + suffix.size()) continue;
    if (m.name.compare(0, prefix.size(), prefix) != 0 ||
        m.name.compare(m.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    StallReason s;
    s.reason = m.name.substr(prefix.size(), m.name.size() - prefix.size() - suffix.size());
    if (s.reason == "selected" || s.reason == "not_selected") continue;  // issuing / ready: not stalls
    s.metric = m.name;
    s.per_issue = std::max(0.0, m.value);
    s.memory = is_memory_stall(s.reason);
    total += s.per_issue;
    out.push_back(s);
  }
  for (auto& s : out) s.share = total > 0 ? s.per_issue / total : 0;
  std::stable_sort(out.begin(), out.end(), [](const StallReason& a, const StallReason& b) { return a.per_issue > b.per_issue; });
  if (total <= 0) out.clear();
  return out;
}

std::vector<UnitUtilisation> utilisation_units(const KernelProfile& k) {
  std::vector<UnitUtilisation> units;
  for (const auto& d : unit_defs()) {
    bool found = false;
    UnitUtilisation u;
    u.label = d.label;
    u.kind = d.kind;
    for (const char* name : d.metrics) {
      const auto v = k.number(name);
      if (!v) continue;
      if (!found || *v > u.pct) {
        u.pct = std::max(0.0, *v);
        u.metric = name;
      }
      found = true;
    }
    if (found) units.push_back(u);
  }
  return units;
}

Classification classify(const KernelProfile& k, const ClassifierConfig& cfg) {
  Classification c;
  c.source = "ncu";
  c.units = utilisation_units(k);
  if (c.units.empty())
    throw ProfileError("the profile has no utilisation metrics (collect the SpeedOfLight section: sm__throughput, "
                       "gpu__compute_memory_throughput, ...)");
  std::vector<double> values;
  for (const auto& u : c.units) values.push_back(u.pct);
  const OtsuResult otsu = otsu_threshold(values);
  c.threshold = otsu.threshold;
  c.separability = otsu.separability;
  for (auto& u : c.units) u.high = otsu.high_count > 0 && u.pct > otsu.threshold;

  const UnitUtilisation* tc = top_of(c.units, UnitKind::compute);
  const UnitUtilisation* tm = top_of(c.units, UnitKind::memory);
  c.peak_compute = tc ? tc->pct : 0;
  c.peak_memory = tm ? tm->pct : 0;
  // The side with the busier unit; a profile with units of one kind only is that kind's (with only
  // compute units at 0 % the memory side, absent, was taken: a null dereference found by tests/fuzz).
  const bool memory_limits = tm != nullptr && (tc == nullptr || c.peak_memory >= c.peak_compute);
  const UnitUtilisation* top = memory_limits ? tm : tc;
  const double peak = top->pct, other = memory_limits ? c.peak_compute : c.peak_memory;
  const double side_margin = (peak - other) / cfg.side_full_pp;

  const auto stalls = stall_reasons(k);
  double mem_share = -1;
  if (!stalls.empty()) {
    mem_share = 0;
    for (const auto& s : stalls)
      if (s.memory) mem_share += s.share;
    c.top_stall = stalls.front().reason;
  }
  c.memory_stall_share = mem_share;

  c.evidence.push_back({top->metric, top->label, top->pct, "%", "top unit"});
  for (const auto& u : c.units)
    if (u.high && &u != top) c.evidence.push_back({u.metric, u.label, u.pct, "%", "high unit"});

  double m_side = 0, m_level = 0;
  if (peak >= cfg.busy_pct) {
    c.cls = memory_limits ? Bottleneck::memory_bandwidth : Bottleneck::compute;
    m_side = side_margin;
    m_level = (peak - cfg.busy_pct) / (100.0 - cfg.busy_pct);
    c.reason = fmt::format("{} is the busiest unit at {} of peak (>= {} busy line; top {} unit {}): {}", top->label,
                           pct(peak), pct(cfg.busy_pct), memory_limits ? "compute" : "memory", pct(other),
                           memory_limits ? "the kernel is limited by memory bandwidth"
                                         : "the kernel is limited by compute throughput");
  } else {
    m_level = (cfg.busy_pct - peak) / cfg.busy_pct;
    const bool stalls_on_memory = !stalls.empty() && (stalls.front().memory || mem_share >= 0.5);
    if (stalls_on_memory || memory_limits) {
      c.cls = Bottleneck::memory_latency;
      const double e_stall = stalls.empty() ? 0.0 : mem_share / cfg.stall_share_full;
      const double e_util = memory_limits ? side_margin : 0.0;
      m_side = std::max(clamp01(e_stall), clamp01(e_util));
    } else {
      c.cls = Bottleneck::compute;
      m_side = clamp01(side_margin) * (stalls.empty() ? 1.0 : 1.0 - mem_share);
    }
    std::string stall_text = "no warp-state metrics";
    if (!stalls.empty())
      stall_text = fmt::format("top stall {} ({:.0f} % of stalls), memory stalls {:.0f} %", stalls.front().reason,
                               100 * stalls.front().share, 100 * mem_share);
    c.reason = fmt::format("no unit reaches the {} busy line (top: {} {}); {}: {}", pct(cfg.busy_pct), top->label,
                           pct(peak), stall_text,
                           c.cls == Bottleneck::memory_latency
                               ? "warps wait on memory, so the kernel is memory-latency-bound"
                               : "warps wait on instruction dependencies, so the kernel is compute(latency)-bound");
    if (!stalls.empty()) {
      c.evidence.push_back({stalls.front().metric, "top stall: " + stalls.front().reason, stalls.front().share * 100, "%", "stall"});
      c.evidence.push_back({"", "memory-dependency stalls", mem_share * 100, "%", "stall"});
    }
  }
  c.evidence.push_back({"", "busy line", cfg.busy_pct, "%", "busy line"});
  c.confidence = factor(m_side) * factor(m_level) * factor(otsu.separability);
  return c;
}

Classification classify_sol(const SolInput& in, const ClassifierConfig& cfg) {
  const double peak_tflops = in.tensor ? in.bf16_tflops : in.fp32_tflops;
  if (!(in.measured_us > 0)) throw std::invalid_argument("the speed-of-light model needs a measured time");
  if (!(in.dram_bandwidth_gbs > 0) || !(peak_tflops > 0))
    throw std::invalid_argument("the speed-of-light model needs the device ceilings (run `mskb device`)");
  const double mem_us = in.bytes / (in.dram_bandwidth_gbs * 1e9) * 1e6;
  const double math_us = in.flops / (peak_tflops * 1e12) * 1e6;
  Classification c;
  c.source = "sol_model";
  c.threshold = cfg.busy_pct;
  c.units = {{"DRAM (model)", "bytes / measured DRAM bandwidth", UnitKind::memory, 100 * mem_us / in.measured_us, false},
             {in.tensor ? "BF16 tensor (model)" : "FP32 (model)", "flops / measured peak", UnitKind::compute,
              100 * math_us / in.measured_us, false}};
  c.peak_memory = c.units[0].pct;
  c.peak_compute = c.units[1].pct;
  const bool memory_limits = c.peak_memory >= c.peak_compute;
  const double peak = std::max(c.peak_memory, c.peak_compute);
  const double other = std::min(c.peak_memory, c.peak_compute);
  for (auto& u : c.units) u.high = u.pct >= cfg.busy_pct;
  double m_level = 0;
  if (peak >= cfg.busy_pct) {
    c.cls = memory_limits ? Bottleneck::memory_bandwidth : Bottleneck::compute;
    m_level = (peak - cfg.busy_pct) / (100.0 - cfg.busy_pct);
  } else {
    c.cls = memory_limits ? Bottleneck::memory_latency : Bottleneck::compute;
    m_level = (cfg.busy_pct - peak) / cfg.busy_pct;
  }
  // The model sees only DRAM and one arithmetic peak (no caches, no stalls): never fully sure.
  c.confidence = 0.75 * factor((peak - other) / cfg.side_full_pp) * factor(m_level);
  c.evidence = {{"", "DRAM time (model)", mem_us, "us", "model"},
                {"", in.tensor ? "BF16 tensor time (model)" : "FP32 time (model)", math_us, "us", "model"},
                {"", "measured time", in.measured_us, "us", "model"},
                {"", "busy line", cfg.busy_pct, "%", "busy line"}};
  c.reason = fmt::format(
      "speed-of-light model (no counters): {} would take {:.3g} us at the device ceiling vs {:.3g} us measured "
      "({} of peak, busy line {}): {}",
      memory_limits ? "DRAM traffic" : "arithmetic", std::max(mem_us, math_us), in.measured_us, pct(peak),
      pct(cfg.busy_pct),
      c.cls == Bottleneck::memory_bandwidth ? "memory-bandwidth-bound"
      : c.cls == Bottleneck::memory_latency ? "memory is the limiter but far from its ceiling: memory-latency-bound"
                                            : "compute-bound");
  return c;
}

}  // namespace cudamaster::profile

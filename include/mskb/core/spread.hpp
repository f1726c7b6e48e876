// Owns the spread model: how far the same kernel's median time moves from one measurement to the
// next (between two processes on one machine, and between two leases: machines), by time scale,
// as measured on the H200 (data/spread_model.json, compiled in; scripts/spread_model.py refits
// it), and the intervals built from it: P's (a complexity-weighted mean of per-shape speedups),
// an entry's geometric-mean time, and cudamaster's acceptance margin. The math is docs/harness.md
// section 5 ("Spread model and intervals"):
//   per shape, one side (baseline or contender) of median t and noise n (relative standard error):
//     e(t, n) = sqrt(B(t)^2 + 2 z^2 n^2)        B(t): the band's bound, z: the model's quantile's
//   over shapes with weights w_i (sum 1), shapes of one process correlated by rho:
//     C(w, e) = sqrt(rho (sum w_i e_i)^2 + (1 - rho) sum (w_i e_i)^2)
//   P = sum c_i s_i / sum c_i, s_i = b_i / t_i, u_i = c_i s_i / sum c_j s_j:
//     h_P = sqrt(C(u, e_b)^2 + C(u, e_t)^2),  P in [P e^-h_P, P e^h_P]
//   the geometric mean of n shapes' times: h_T = sqrt(C(1/n, e_t)^2 + common^2)
// Pure functions; the model is parsed once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

enum class SpreadScope { between_process, between_lease };
std::string to_string(SpreadScope s);  // "between_process" | "between_lease"

enum class TimeKind { call, device };

struct SpreadTable {
  std::vector<double> call;    // per band: the bound on |ln(t_b / t_a)| of one shape
  std::vector<double> device;  // empty: not measured (the call bounds stand in)
  double common = 0;           // the run-wide shift (all shapes together)
  double rho = 1;              // the correlation of one process's shapes
  bool provisional = false;
  std::string source;          // where the numbers came from
};

struct SpreadModel {
  int version = 0;
  double quantile = 0.9;
  std::vector<double> bands_us;  // upper edges of every band but the last, increasing
  bool provisional = false;
  std::string gpu;  // the GPU model it was measured on (a device name, "NVIDIA H200"); empty: not recorded
  SpreadTable process, lease;

  const SpreadTable& table(SpreadScope s) const { return s == SpreadScope::between_process ? process : lease; }
  // The band of a median time (0 .. bands_us.size()).
  std::size_t band(double median_us) const;
  // The bound B of one shape of this median time.
  double bound(SpreadScope s, double median_us, TimeKind kind = TimeKind::call) const;
  // z with P(|Z| <= z) = quantile, Z standard normal.
  double z() const;
  // Whether it was measured on this GPU model (a device name as reports record it); true when
  // either is unknown ("" or "?"). The bounds are one GPU model's: elsewhere they are a guide.
  bool measured_on(const std::string& gpu_name) const;
  // "spread model v3 (90% intervals, between leases; provisional)"; with this_gpu another GPU
  // model than its own: "...; measured on NVIDIA H200, not on NVIDIA A100-SXM4-80GB)".
  std::string label(SpreadScope s, const std::string& this_gpu = "") const;
  // {"version", "quantile", "scope", "provisional", "measured_on"}, and "other_gpu": this_gpu
  // when the model was not measured on it.
  nlohmann::json summary(SpreadScope s, const std::string& this_gpu = "") const;
};

// A model from its JSON (data/spread_model.json's layout: format 1). Throws std::invalid_argument
// (one line) on anything else. A scope missing from the file takes the other's table.
SpreadModel parse_spread_model(const nlohmann::json& j);
// The model compiled in from data/spread_model.json.
const SpreadModel& spread_model();

// The half-width bound C of sum w_i x_i, each |x_i| <= e_i, correlated by rho (formula above).
double combine_bounds(const std::vector<double>& weights, const std::vector<double>& bounds, double rho);

// One side of one shape: its median time and noise (relative standard error of its samples).
struct TimedSide {
  double median_us = 0;
  double noise = 0;
};
// e(t, n) above.
double side_bound(const SpreadModel& m, SpreadScope s, const TimedSide& t, TimeKind kind = TimeKind::call);

struct ShapeSpeedup {
  uint64_t complexity = 0;
  TimedSide baseline, contender;
};

struct Interval {
  double value = 0;
  double lo = 0, hi = 0;
  double half_log = 0;  // h: [value e^-h, value e^h]
  bool contains(double x) const { return x >= lo * (1 - 1e-12) && x <= hi * (1 + 1e-12); }
};

// P's interval over these shapes (P = sum c_i s_i / sum c_i). nullopt without a usable shape
// (no complexity, no positive time). kind device: the times are device times (P device) and the
// model's device bounds apply.
std::optional<Interval> p_interval(const std::vector<ShapeSpeedup>& shapes, const SpreadModel& m, SpreadScope s,
                                   TimeKind kind = TimeKind::call);
// The half-width h_T of the geometric mean of these shapes' times (one contender, one sweep);
// without_common: the run-wide shift left out (the comparison took it out, mskb rerun).
double time_half_log(const std::vector<TimedSide>& shapes, const SpreadModel& m, SpreadScope s, TimeKind kind = TimeKind::call,
                     bool without_common = false);

// z with P(|Z| <= z) = q, Z standard normal (q in (0, 1)).
double z_two_sided(double q);
// How many half-widths of a q-interval make the simultaneous bound of `checks` such intervals at
// family-wise significance alpha (Sidak: each check at 1 - (1 - alpha)^(1/checks); the deviations,
// in units of their own interval, taken as normal): beyond it, chance does not explain a deviation
// even among that many checks. 1 for checks <= 0.
double simultaneous_factor(double q, int checks, double alpha);

// The smallest k with P(X <= k) >= 1 - alpha, X ~ Binomial(n, p): how many of n checks of
// coverage 1 - p may fall outside by chance at significance alpha.
int binomial_upper(int n, double p, double alpha);

}  // namespace mskb

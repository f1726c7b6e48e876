// The spread model and its intervals (see spread.hpp; docs/harness.md section 5).
#include "mskb/core/spread.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace mskb {

extern const char* const kSpreadModelJson;  // generated from data/spread_model.json (cmake/spread_model.cpp.in)

using json = nlohmann::json;

std::string to_string(SpreadScope s) { return s == SpreadScope::between_process ? "between_process" : "between_lease"; }

std::size_t SpreadModel::band(double median_us) const {
  std::size_t i = 0;
  while (i < bands_us.size() && median_us >= bands_us[i]) ++i;
  return i;
}

double SpreadModel::bound(SpreadScope s, double median_us, TimeKind kind) const {
  const SpreadTable& t = table(s);
  const std::vector<double>& v = kind == TimeKind::device && !t.device.empty() ? t.device : t.call;
  return v.at(band(median_us));
}

double SpreadModel::z() const { return z_two_sided(quantile); }

double z_two_sided(double q) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    // P(|Z| > mid) = erfc(mid / sqrt 2): compared on the tail, exact where q is within 1e-12 of 1.
    (std::erfc(mid / std::sqrt(2.0)) > 1 - q ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double simultaneous_factor(double q, int checks, double alpha) {
  if (checks <= 0) return 1.0;
  const double per_check = -std::expm1(std::log1p(-alpha) / checks);  // 1 - (1 - alpha)^(1/checks)
  return std::max(1.0, z_two_sided(1 - per_check) / z_two_sided(q));
}

bool SpreadModel::measured_on(const std::string& gpu_name) const {
  return gpu.empty() || gpu_name.empty() || gpu_name == "?" || gpu_name == gpu;
}

std::string SpreadModel::label(SpreadScope s, const std::string& this_gpu) const {
  return fmt::format("spread model v{} ({:g}% intervals, {}{}{})", version, 100 * quantile,
                     s == SpreadScope::between_process ? "between processes" : "between leases",
                     table(s).provisional ? "; provisional" : "",
                     measured_on(this_gpu) ? std::string() : "; measured on " + gpu + ", not on " + this_gpu);
}

json SpreadModel::summary(SpreadScope s, const std::string& this_gpu) const {
  json j = {{"version", version}, {"quantile", quantile}, {"scope", to_string(s)}, {"provisional", table(s).provisional},
            {"measured_on", gpu.empty() ? json(nullptr) : json(gpu)}};
  if (!measured_on(this_gpu)) j["other_gpu"] = this_gpu;
  return j;
}

namespace {

std::vector<double> bounds_of(const json& v, std::size_t n, const std::string& what) {
  std::vector<double> out;
  if (v.is_null()) return out;
  if (!v.is_array() || v.size() != n) throw std::invalid_argument(fmt::format("spread model: {} must be {} bounds, one per band", what, n));
  for (const json& x : v) {
    if (!x.is_number() || x.get<double>() < 0 || !std::isfinite(x.get<double>()))
      throw std::invalid_argument("spread model: " + what + " has a bound that is not a number >= 0");
    out.push_back(x.get<double>());
  }
  return out;
}

SpreadTable table_of(const json& j, std::size_t n, const std::string& name) {
  if (!j.is_object()) throw std::invalid_argument("spread model: scope " + name + " is not an object");
  SpreadTable t;
  t.call = bounds_of(j.value("call", json()), n, name + ".call");
  if (t.call.empty()) throw std::invalid_argument("spread model: scope " + name + " has no call bounds");
  t.device = bounds_of(j.value("device", json()), n, name + ".device");
  t.common = j.value("common", 0.0);
  t.rho = j.value("rho", 1.0);
  if (t.common < 0 || t.rho < 0 || t.rho > 1) throw std::invalid_argument("spread model: " + name + ": common >= 0 and rho in [0, 1]");
  t.provisional = j.value("provisional", false);
  t.source = j.value("source", std::string());
  if (t.source.empty() && j.contains("command")) t.source = "measured: " + j["command"].get<std::string>();
  return t;
}

}  // namespace

SpreadModel parse_spread_model(const json& j) {
  if (!j.is_object() || j.value("format", 0) != 1) throw std::invalid_argument("spread model: not a format 1 model");
  SpreadModel m;
  m.version = j.value("version", 0);
  m.quantile = j.value("quantile", 0.0);
  if (!(m.quantile >= 0.5 && m.quantile < 1)) throw std::invalid_argument("spread model: quantile must be in [0.5, 1)");
  const json& edges = j.value("bands_us", json());
  if (!edges.is_array() || edges.empty()) throw std::invalid_argument("spread model: bands_us must be a list of band edges");
  for (const json& e : edges) {
    if (!e.is_number() || (!m.bands_us.empty() && e.get<double>() <= m.bands_us.back()))
      throw std::invalid_argument("spread model: bands_us must increase");
    m.bands_us.push_back(e.get<double>());
  }
  const json& scopes = j.value("scopes", json::object());
  const std::size_t n = m.bands_us.size() + 1;
  const bool has_p = scopes.contains("between_process"), has_l = scopes.contains("between_lease");
  if (!has_p && !has_l) throw std::invalid_argument("spread model: no scope (between_process, between_lease)");
  if (has_p) m.process = table_of(scopes["between_process"], n, "between_process");
  if (has_l) m.lease = table_of(scopes["between_lease"], n, "between_lease");
  if (!has_p) m.process = m.lease;
  if (!has_l) m.lease = m.process;
  m.provisional = j.value("provisional", false) || m.process.provisional || m.lease.provisional;
  if (j.contains("measured_on")) {
    const json& on = j["measured_on"];
    if (!on.is_object() || !on.contains("gpu") || !on["gpu"].is_string() || on["gpu"].get<std::string>().empty())
      throw std::invalid_argument("spread model: measured_on must be {\"gpu\": \"<device name>\", ...}");
    m.gpu = on["gpu"].get<std::string>();
  }
  return m;
}

const SpreadModel& spread_model() {
  static const SpreadModel m = parse_spread_model(json::parse(kSpreadModelJson));
  return m;
}

double combine_bounds(const std::vector<double>& weights, const std::vector<double>& bounds, double rho) {
  double lin = 0, quad = 0;
  for (std::size_t i = 0; i < weights.size() && i < bounds.size(); ++i) {
    lin += weights[i] * bounds[i];
    quad += weights[i] * bounds[i] * weights[i] * bounds[i];
  }
  return std::sqrt(rho * lin * lin + (1 - rho) * quad);
}

double side_bound(const SpreadModel& m, SpreadScope s, const TimedSide& t, TimeKind kind) {
  const double b = m.bound(s, t.median_us, kind), z = m.z();
  const double n = std::isfinite(t.noise) && t.noise > 0 ? t.noise : 0.0;
  return std::sqrt(b * b + 2 * z * z * n * n);
}

std::optional<Interval> p_interval(const std::vector<ShapeSpeedup>& shapes, const SpreadModel& m, SpreadScope s, TimeKind kind) {
  std::vector<double> cs, eb, et;
  double num = 0, den = 0;
  for (const ShapeSpeedup& x : shapes) {
    if (x.complexity == 0 || !(x.baseline.median_us > 0) || !(x.contender.median_us > 0)) continue;
    const double c = static_cast<double>(x.complexity), sp = x.baseline.median_us / x.contender.median_us;
    num += c * sp;
    den += c;
    cs.push_back(c * sp);
    eb.push_back(side_bound(m, s, x.baseline, kind));
    et.push_back(side_bound(m, s, x.contender, kind));
  }
  if (cs.empty() || !(num > 0)) return std::nullopt;
  std::vector<double> u;
  for (const double v : cs) u.push_back(v / num);
  const double rho = m.table(s).rho;
  const double cb = combine_bounds(u, eb, rho), ct = combine_bounds(u, et, rho);
  Interval iv;
  iv.value = num / den;
  iv.half_log = std::sqrt(cb * cb + ct * ct);
  iv.lo = iv.value * std::exp(-iv.half_log);
  iv.hi = iv.value * std::exp(iv.half_log);
  return iv;
}

double time_half_log(const std::vector<TimedSide>& shapes, const SpreadModel& m, SpreadScope s, TimeKind kind, bool without_common) {
  std::vector<double> w, e;
  for (const TimedSide& t : shapes)
    if (t.median_us > 0) e.push_back(side_bound(m, s, t, kind));
  if (e.empty()) return 0;
  w.assign(e.size(), 1.0 / static_cast<double>(e.size()));
  const double c = combine_bounds(w, e, m.table(s).rho), common = without_common ? 0.0 : m.table(s).common;
  return std::sqrt(c * c + common * common);
}

int binomial_upper(int n, double p, double alpha) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  double cdf = 0;
  for (int k = 0; k <= n; ++k) {
    const double log_pmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) + (n - k) * std::log1p(-p);
    cdf += std::exp(log_pmf);
    if (cdf >= 1 - alpha) return k;
  }
  return n;
}

}  // namespace mskb

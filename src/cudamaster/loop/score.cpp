#include "cudamaster/loop/score.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mskb/core/scoring.hpp"

namespace cudamaster::loop {

namespace {
const mskb::ShapeTiming* find_shape(const mskb::ContenderResult& r, const mskb::ShapeTiming& t) {
  for (const mskb::ShapeTiming& o : r.timings)
    if (o.sweep == t.sweep && o.shape == t.shape) return &o;
  return nullptr;
}
}  // namespace

Score score_result(const mskb::ContenderResult& r, const mskb::ContenderResult& baseline,
                   const mskb::ContenderResult* vendor, const mskb::SpreadModel& model) {
  Score s;
  s.correct = mskb::is_correct(r.disposition);
  const bool vendor_ok = vendor != nullptr && mskb::is_correct(vendor->disposition);
  std::vector<mskb::WeightedSample> samples, vendor_samples;
  std::vector<double> speedups;
  std::vector<mskb::ShapeSpeedup> spread_shapes;
  double weighted = 0, var = 0;
  for (const mskb::ShapeTiming& t : r.timings) {
    if (t.sweep != mskb::Sweep::paper) continue;
    const mskb::ShapeTiming* b = find_shape(baseline, t);
    const mskb::ShapeTiming* v = vendor_ok ? find_shape(*vendor, t) : nullptr;
    agents::PerfRow row;
    row.shape = t.shape.str();
    row.time_us = t.time.median_us;
    row.baseline_us = b != nullptr ? b->time.median_us : 0;
    if (v != nullptr) row.vendor_us = v->time.median_us;
    row.roofline_us = t.roofline_us;
    s.rows.push_back(row);

    store::ShapeRow sr;
    sr.sweep = mskb::to_string(t.sweep);
    sr.shape = t.shape.str();
    sr.complexity = t.complexity;
    sr.median_us = t.time.median_us;
    sr.min_us = t.time.min_us;
    sr.max_us = t.time.max_us;
    sr.n = t.time.n;
    sr.noise = t.time.noise;
    sr.disposition = mskb::to_string(t.disposition);
    if (b != nullptr && t.time.median_us > 0) {
      const double sp = mskb::speedup(b->time.median_us, t.time.median_us);
      sr.speedup = sp;
      samples.push_back({t.complexity, sp});
      speedups.push_back(sp);
      spread_shapes.push_back({t.complexity, {b->time.median_us, b->time.noise}, {t.time.median_us, t.time.noise}});
      const double e = std::sqrt(t.time.noise * t.time.noise + b->time.noise * b->time.noise);
      const double cs = static_cast<double>(t.complexity) * sp;
      weighted += cs;
      var += cs * e * cs * e;
    }
    if (v != nullptr && t.time.median_us > 0) {
      sr.vs_vendor = mskb::ratio_vs_vendor(v->time.median_us, t.time.median_us);
      vendor_samples.push_back({t.complexity, *sr.vs_vendor});
    }
    if (t.roofline_us > 0 && t.time.median_us > 0) sr.sol_fraction = mskb::sol_fraction(t.roofline_us, t.time.median_us);
    s.shapes.push_back(sr);
  }
  if (s.correct) {
    s.p = mskb::complexity_weighted(samples);
    s.geomean = mskb::geomean(speedups);
    s.vs_vendor = mskb::complexity_weighted(vendor_samples);
  }
  s.rel_noise = weighted > 0 ? std::sqrt(var) / weighted : 0.0;
  if (const auto iv = mskb::p_interval(spread_shapes, model, mskb::SpreadScope::between_process)) {
    s.spread = iv->half_log;
    s.spread_shapes = static_cast<int>(spread_shapes.size());
  }
  return s;
}

nlohmann::json Verdict::json() const {
  return {{"accept", accept}, {"required_p", required_p}, {"margin", margin}, {"margin_source", margin_source}, {"reason", reason}};
}

Verdict judge(const Score& c, const Score& best, double min_gain, const mskb::SpreadModel& model, const std::string& gpu) {
  Verdict v;
  const double best_p = best.p.value_or(1.0);
  double margin = 0;
  if (c.spread_shapes > 0) {
    margin = std::expm1(c.spread);
    v.margin_source = fmt::format("between-process spread of its {} shape{}, {}", c.spread_shapes, c.spread_shapes == 1 ? "" : "s",
                                  model.label(mskb::SpreadScope::between_process, gpu));
  } else {
    margin = 2.0 * std::sqrt(c.rel_noise * c.rel_noise + best.rel_noise * best.rel_noise);
    v.margin_source = "measurement noise of both P (no spread interval: no complexities)";
  }
  if (min_gain > margin) {
    margin = min_gain;
    v.margin_source = fmt::format("the --min-gain floor {:g}%", 100.0 * min_gain);
  }
  v.margin = margin;
  v.required_p = best_p * (1.0 + margin);
  if (!c.correct || !c.p) {
    v.reason = "not correct";
    return v;
  }
  v.accept = *c.p > v.required_p;
  v.reason = fmt::format("P {:.3f} {} {:.3f} required (best {:.3f} + {:.1f}% margin: {})", *c.p, v.accept ? ">" : "<=", v.required_p, best_p,
                         100.0 * margin, v.margin_source);
  return v;
}

}  // namespace cudamaster::loop

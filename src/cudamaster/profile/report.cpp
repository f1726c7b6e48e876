#include "cudamaster/profile/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace cudamaster::profile {

namespace {

using nlohmann::json;

std::string short_name(const std::string& name) {
  constexpr std::size_t kMax = 120;
  return name.size() <= kMax ? name : name.substr(0, kMax - 3) + "...";
}

std::string header(const ProfileOutcome& o) {
  const Classification& c = o.classification;
  std::string s;
  if (o.source == "sol_model")
    s = fmt::format("bottleneck: {} (confidence {:.2f}, source sol_model: no hardware counters)\n", to_string(c.cls),
                    c.confidence);
  else
    s = fmt::format("bottleneck: {} (confidence {:.2f}, Otsu threshold {:.1f} % of peak, source ncu)\n",
                    to_string(c.cls), c.confidence, c.threshold);
  s += "why: " + c.reason + "\n";
  return s;
}

std::string launch(const KernelProfile& k) { return fmt::format("grid {} block {}", k.grid, k.block); }

bool is_device_attribute(const std::string& name) { return name.rfind("device__attribute_", 0) == 0; }

std::string metric_line(const Metric& m) {
  if (m.is_number()) return m.name + " = " + format_value(m.value, m.unit) + "\n";
  if (m.kind == ValueKind::text) return m.name + " = " + m.raw + "\n";
  return m.name + " = n/a\n";
}

std::string render_filtered(const ProfileOutcome& o) {
  const ProfileData& d = *o.data;
  const Classification& c = o.classification;
  std::string s = header(o);
  if (d.kernels.size() == 1) {
    s += "kernel: " + short_name(d.kernels[0].name) + " " + launch(d.kernels[0]) + "\n";
  } else {
    s += fmt::format("kernels: {} launches, {} total\n", d.kernels.size(), format_value(d.total_duration_ns, "ns"));
    for (std::size_t i = 0; i < d.kernels.size(); ++i)
      s += fmt::format("  #{} {}: {:.0f} % of time, {}, {}\n", d.kernels[i].id, short_name(d.kernels[i].name),
                       100 * o.weights[i], to_string(o.kernel_classes[i].cls), launch(d.kernels[i]));
    const auto longest = std::max_element(o.weights.begin(), o.weights.end()) - o.weights.begin();
    s += fmt::format("time-weighted over {} kernels (launch settings of #{}):\n", d.kernels.size(),
                     d.kernels[static_cast<std::size_t>(longest)].id);
  }
  for (const auto& m : filter_metrics(d.aggregate, c.cls)) s += m.label + " = " + m.shown + "\n";
  if (c.cls == Bottleneck::memory_latency) {
    const std::string limits = occupancy_limits(d.aggregate);
    if (!limits.empty()) s += "occupancy limit (blocks/SM) = " + limits + "\n";
  }
  const std::string stalls = stall_summary(d.aggregate);
  if (!stalls.empty()) s += "top stalls = " + stalls + "\n";
  return s;
}

std::string render_full(const ProfileOutcome& o) {
  const ProfileData& d = *o.data;
  std::string s = header(o);
  s += "device:\n";
  for (const auto& m : d.kernels[0].metrics)
    if (is_device_attribute(m.name)) s += metric_line(m);
  for (const auto& k : d.kernels) {
    s += fmt::format("kernel #{}: {} {}\n", k.id, short_name(k.name), launch(k));
    for (const auto& m : k.metrics)
      if (!is_identification_column(m.name) && !is_device_attribute(m.name)) s += metric_line(m);
  }
  return s;
}

std::string render_sol(const ProfileOutcome& o) {
  std::string s = header(o);
  if (!o.message.empty()) s += "no hardware counters: " + o.message + "\n";
  for (const auto& e : o.classification.evidence)
    if (e.role == "model") s += e.label + " = " + format_value(e.value, e.unit) + "\n";
  return s;
}

json metric_json(const Metric& m) {
  if (m.is_number()) return {{"value", m.value}, {"unit", m.unit}};
  if (m.kind == ValueKind::text) return {{"text", m.raw}, {"unit", m.unit}};
  return nullptr;
}

json all_metrics_json(const KernelProfile& k) {
  json j = json::object();
  for (const auto& m : k.metrics) j[m.name] = metric_json(m);
  return j;
}

json filtered_json(const KernelProfile& k, Bottleneck cls) {
  json j = json::object();
  for (const auto& m : filter_metrics(k, cls))
    j[m.metric] = {{"label", m.label}, {"value", m.value}, {"unit", m.unit}, {"shown", m.shown}};
  return j;
}

json classification_json(const Classification& c) {
  json units = json::array(), evidence = json::array();
  for (const auto& u : c.units)
    units.push_back({{"label", u.label}, {"metric", u.metric}, {"kind", to_string(u.kind)}, {"pct", u.pct}, {"high", u.high}});
  for (const auto& e : c.evidence)
    evidence.push_back({{"metric", e.metric}, {"label", e.label}, {"value", e.value}, {"unit", e.unit}, {"role", e.role}});
  json j = {{"class", to_string(c.cls)},
            {"confidence", c.confidence},
            {"threshold", c.threshold},
            {"separability", c.separability},
            {"peak_compute_pct", c.peak_compute},
            {"peak_memory_pct", c.peak_memory},
            {"reason", c.reason},
            {"units", units},
            {"evidence", evidence}};
  j["memory_stall_share"] = c.memory_stall_share >= 0 ? json(c.memory_stall_share) : json(nullptr);
  j["top_stall"] = c.top_stall.empty() ? json(nullptr) : json(c.top_stall);
  return j;
}

}  // namespace

ProfileOutcome analyze(ProfileData data, const ClassifierConfig& config) {
  ProfileOutcome o;
  o.source = "ncu";
  data.aggregate = aggregate_kernels(data.kernels, &o.weights);
  o.classification = classify(data.aggregate, config);
  for (const auto& k : data.kernels) o.kernel_classes.push_back(classify(k, config));
  o.data = std::move(data);
  return o;
}

std::string render(const ProfileOutcome& o, RenderMode mode) {
  if (mode == RenderMode::none) return "";
  if (!o.data) return render_sol(o);
  return mode == RenderMode::full ? render_full(o) : render_filtered(o);
}

json to_json(const ProfileOutcome& o, RenderMode mode) {
  json j = classification_json(o.classification);
  j["source"] = o.source;
  j["profile_mode"] = to_string(mode);
  j["metrics"] = json::object();
  j["all_metrics"] = json::object();
  j["kernels"] = json::array();
  j["stalls"] = json::array();
  if (o.data) {
    const ProfileData& d = *o.data;
    if (mode != RenderMode::none) j["metrics"] = filtered_json(d.aggregate, o.classification.cls);
    j["all_metrics"] = all_metrics_json(d.aggregate);
    j["duration_ns"] = d.total_duration_ns;
    for (const auto& s : stall_reasons(d.aggregate))
      j["stalls"].push_back({{"reason", s.reason}, {"metric", s.metric}, {"per_issue", s.per_issue}, {"share", s.share}, {"memory", s.memory}});
    for (std::size_t i = 0; i < d.kernels.size(); ++i) {
      const KernelProfile& k = d.kernels[i];
      const Classification& c = o.kernel_classes[i];
      json kj = {{"id", k.id},
                 {"name", k.name},
                 {"block", k.block},
                 {"grid", k.grid},
                 {"duration_ns", k.duration_ns},
                 {"weight", o.weights[i]},
                 {"class", to_string(c.cls)},
                 {"confidence", c.confidence},
                 {"threshold", c.threshold},
                 {"reason", c.reason},
                 {"metrics", mode == RenderMode::none ? json::object() : filtered_json(k, c.cls)}};
      if (mode == RenderMode::full) kj["all_metrics"] = all_metrics_json(k);
      j["kernels"].push_back(kj);
    }
  }
  if (!o.message.empty()) j["message"] = o.message;
  j["rendered"] = render(o, mode);
  for (auto it = o.context.begin(); it != o.context.end(); ++it) j[it.key()] = it.value();
  return j;
}

TokenCount count_tokens(std::string_view text) {
  TokenCount t;
  t.chars = text.size();
  t.approx = (text.size() + 3) / 4;
  bool in_word = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      if (!in_word) ++t.pieces;
      in_word = true;
    } else {
      in_word = false;
      if (!std::isspace(c)) ++t.pieces;
    }
  }
  return t;
}

TokenReport token_report(const ProfileOutcome& o, const std::string& file) {
  TokenReport r;
  r.file = file;
  r.kernels = o.data ? o.data->kernels.size() : 0;
  r.cls = to_string(o.classification.cls);
  r.full = count_tokens(render(o, RenderMode::full));
  r.filtered = count_tokens(render(o, RenderMode::filtered));
  auto reduction = [](std::size_t f, std::size_t full) {
    return full == 0 ? 0.0 : 1.0 - static_cast<double>(f) / static_cast<double>(full);
  };
  r.reduction_approx = reduction(r.filtered.approx, r.full.approx);
  r.reduction_pieces = reduction(r.filtered.pieces, r.full.pieces);
  return r;
}

nlohmann::json to_json(const TokenReport& r) {
  auto tc = [](const TokenCount& t) { return json{{"chars", t.chars}, {"approx", t.approx}, {"pieces", t.pieces}}; };
  return {{"file", r.file},
          {"kernels", r.kernels},
          {"class", r.cls},
          {"full", tc(r.full)},
          {"filtered", tc(r.filtered)},
          {"reduction_approx", r.reduction_approx},
          {"reduction_pieces", r.reduction_pieces},
          {"rule", "approx = ceil(chars/4); pieces = runs of [A-Za-z0-9] + each other non-space character"}};
}

}  // namespace cudamaster::profile

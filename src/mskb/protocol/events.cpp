#include "mskb/protocol/events.hpp"

namespace mskb {

namespace {

constexpr EnumName<EventKind> kEventKinds[] = {
    {EventKind::phase, "phase"}, {EventKind::check, "check"}, {EventKind::timing, "timing"},     {EventKind::done, "done"},
    {EventKind::fatal, "fatal"}, {EventKind::device, "device"}, {EventKind::profiled, "profiled"},
};

std::string text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<Disposition> disposition_at(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_string()) return Disposition::harness_error;
  return from_string<Disposition>(it->get<std::string>()).value_or(Disposition::harness_error);
}

}  // namespace

std::optional<RunnerEvent> runner_event(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto ev = j.find("event");
  if (ev == j.end() || !ev->is_string()) return std::nullopt;
  RunnerEvent e;
  e.event = ev->get<std::string>();
  e.kind = util::enum_find(kEventKinds, e.event).value_or(EventKind::other);
  e.body = j;
  e.token = text(j, "token");
  e.sweep = text(j, "sweep");
  e.shape_str = text(j, e.kind == EventKind::phase ? "shape" : "shape_str");
  if (const auto s = j.find("seed"); s != j.end() && s->is_number_unsigned()) e.seed = s->get<uint64_t>();
  e.disposition = disposition_at(j, "disposition");
  e.message = text(j, "message");
  e.phase = text(j, "phase");
  e.timeout_s = number(j, "timeout_s").value_or(0.0);
  e.gap_us = number(j, "gap_us").value_or(0.0);
  e.call_us = number(j, "call_us");
  if (e.kind == EventKind::timing) {
    if (const auto t = j.find("time_us"); t != j.end() && t->is_object()) {
      try {
        e.time = t->get<TimingStats>();
      } catch (const nlohmann::json::exception&) {
      }
    }
    e.after_timing = disposition_at(j, "after_timing").value_or(Disposition::passed);
  }
  return e;
}

std::optional<RunnerEvent> parse_runner_event(const std::string& line) {
  return runner_event(nlohmann::json::parse(line, nullptr, false));
}

namespace {
bool same_shape(const nlohmann::json& got, const Shape& want) {
  if (!got.is_object()) return false;
  nlohmann::json w = want;
  nlohmann::json g = got;
  g.erase("_order");
  return g == w;
}
std::string describe_event(const RunnerEvent& e) {
  return e.event + " " + (e.body.contains("sweep") ? e.sweep : "?") + " " + (e.body.contains("shape_str") ? e.shape_str : "?") +
         " seed " + std::to_string(e.seed.value_or(0));
}
bool matches(const RunnerEvent& ev, EventKind kind, const CheckItem& c, uint64_t seed) {
  const auto shape = ev.body.find("shape");
  return ev.kind == kind && ev.sweep == to_string(c.sweep) && shape != ev.body.end() && same_shape(*shape, c.shape) &&
         ev.seed == seed;
}
}  // namespace

std::string check_event_sequence(const RunRequest& req, const std::vector<RunnerEvent>& events, bool done) {
  std::size_t e = 0, planned = 0;
  int failures = 0;
  for (const CheckItem& c : req.checks) planned += c.seeds.size();
  std::size_t checks_seen = 0;
  for (const CheckItem& c : req.checks) {
    const bool timed = is_timed(req, c);
    for (std::size_t k = 0; k < c.seeds.size(); ++k) {
      const std::string want = to_string(c.sweep) + " " + c.shape.str() + " seed " + std::to_string(c.seeds[k]);
      if (e == events.size())
        return done ? "the runner reported done after " + std::to_string(checks_seen) + " of " + std::to_string(planned) +
                          " planned checks (next: check " + want + ")"
                    : "";
      if (!matches(events[e], EventKind::check, c, c.seeds[k]))
        return "unexpected report " + describe_event(events[e]) + " (expected check " + want + ")";
      const bool passed = events[e].disposition == Disposition::passed;
      ++e;
      ++checks_seen;
      if (!passed) {
        if (++failures >= 3) goto end;
        break;
      }
      if (!timed || k + 1 != c.seeds.size() || failures > 0) continue;
      if (e == events.size()) return done ? "the runner reported done without the timing of " + to_string(c.sweep) + " " + c.shape.str() : "";
      if (!matches(events[e], EventKind::timing, c, c.seeds[k]))
        return "unexpected report " + describe_event(events[e]) + " (expected timing " + want + ")";
      ++e;
    }
  }
end:
  if (e != events.size()) return "unexpected report " + describe_event(events[e]) + " after the planned sequence";
  return "";
}

}  // namespace mskb

#include "cudamaster/loop/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "cudamaster/exec/executor.hpp"
#include "cudamaster/loop/summary.hpp"

namespace cudamaster::loop {

using nlohmann::json;

json report_document(store::RunStore& store, std::int64_t run_id) {
  const auto run = store.run(run_id);
  if (!run) throw store::StoreError("no run " + std::to_string(run_id));
  json doc = {{"run", run_id},
              {"status", run->status},
              {"llm", run->llm},
              {"created_at", run->created_at},
              {"active_seconds", run->active_seconds},
              {"sessions", run->sessions},
              {"config", run->config},
              {"summary", build_summary(store, run_id)},
              {"jobs", json::array()}};
  for (const store::JobInfo& j : store.jobs(run_id)) {
    json jj = {{"task", j.task},           {"precision", j.precision},     {"status", j.status},
               {"stop_reason", j.stop_reason}, {"result", j.result},      {"rounds", json::array()},
               {"evaluations", json::array()}, {"profiles", json::array()}, {"best_source", ""}};
    for (const json& r : store.rows("rounds", j.id)) {
      json x = r.value("payload", json::object());
      if (!x.is_object()) x = json::object();
      for (const char* k : {"round", "outcome", "p", "best_p_before", "best_p_after", "attempts", "candidate_id"})
        if (r.contains(k)) x[k] = r[k];
      jj["rounds"].push_back(x);
    }
    for (const json& e : store.rows("evaluations", j.id)) {
      json b = e;
      b.erase("payload");
      jj["evaluations"].push_back(b);
    }
    for (const json& p : store.rows("profiles", j.id)) {
      json b;
      for (const char* k : {"round", "candidate_id", "mode", "ok", "class", "confidence", "source"})
        if (p.contains(k)) b[k] = p[k];
      jj["profiles"].push_back(b);
    }
    const json best = j.result.is_object() ? j.result.value("best", json()) : json();
    if (best.is_object() && best.contains("candidate_id") && best["candidate_id"].is_number_integer()) {
      const auto id = best["candidate_id"].get<std::int64_t>();
      for (const json& c : store.rows("candidates", j.id))
        if (c.value("id", std::int64_t{-1}) == id) jj["best_source"] = c.value("source", "");
    }
    doc["jobs"].push_back(jj);
  }
  return doc;
}

namespace {

std::string num(const json& v, const char* f = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("-");
}
std::string pct(const json& v) { return v.is_number() ? fmt::format("{:.0f}%", 100 * v.get<double>()) : std::string("-"); }
std::string str(const json& o, const char* k) {
  if (!o.is_object() || !o.contains(k)) return "";
  const json& v = o[k];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}
// A ratio cell: green when the contender beats the reference (> 1), red when it loses.
std::string ratio_cell(const json& v) {
  if (!v.is_number()) return "<td>-</td>";
  const double x = v.get<double>();
  return fmt::format("<td class=\"{}\">{:.2f}</td>", x > 1.0 ? "win" : (x < 1.0 ? "loss" : ""), x);
}
std::string esc(const std::string& s) { return html_escape(s); }
std::string anchor(const json& j) { return "task-" + esc(str(j, "task")) + "-" + esc(str(j, "precision")); }

// Best P after each round (and the baseline line at P = 1) as an inline SVG bar chart.
std::string rounds_chart(const json& rounds) {
  std::vector<std::pair<int, double>> bars;
  for (const json& r : rounds) {
    const json& v = r.contains("best_p_after") ? r["best_p_after"] : json();
    if (v.is_number()) bars.push_back({r.value("round", 0), v.get<double>()});
  }
  if (bars.empty()) return "";
  double top = 1.0;
  for (const auto& b : bars) top = std::max(top, b.second);
  top *= 1.15;
  const int w = 60 + 56 * static_cast<int>(bars.size()), h = 150, base = 120, left = 40;
  auto y = [&](double p) { return base - static_cast<int>(std::lround(100.0 * p / top)); };
  std::string s = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
                              "aria-label=\"best P after each round\">",
                              w, h, w, h);
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"axis\"/>", left, base, w - 10, base);
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"one\"/><text x=\"4\" y=\"{}\" class=\"lbl\">P=1</text>", left,
                   y(1.0), w - 10, y(1.0), y(1.0) + 4);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int x = left + 12 + 56 * static_cast<int>(i);
    const int top_y = y(bars[i].second);
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"32\" height=\"{}\" class=\"{}\"/>", x, top_y, base - top_y,
                     bars[i].second > 1.0 ? "bar win" : "bar");
    s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"lbl\" text-anchor=\"middle\">{:.2f}</text>", x + 16, top_y - 4, bars[i].second);
    s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"lbl\" text-anchor=\"middle\">round {}</text>", x + 16, base + 16, bars[i].first);
  }
  return s + "</svg>";
}

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:4px}
h3{font-size:16px;margin:22px 0 6px}.meta{color:#5a6272;margin:2px 0}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d8dde6;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f1f3f7}
td.win{background:#e3f4e6}td.loss{background:#fbe5e3}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.card{border:1px solid #d8dde6;border-radius:6px;padding:8px 12px;min-width:110px}
.card b{display:block;font-size:20px}.card span{color:#5a6272;font-size:12px}
pre{background:#f6f8fa;border:1px solid #d8dde6;padding:10px;overflow:auto;font-size:12px;max-height:640px}
details{margin:6px 0}summary{cursor:pointer;color:#234a9a}
.chart .axis{stroke:#8a93a3}.chart .one{stroke:#c0392b;stroke-dasharray:4 3}.chart .bar{fill:#9fb3d9}.chart .bar.win{fill:#4c9a5b}
.chart .lbl{font-size:11px;fill:#1d2330}.small{font-size:12px;color:#5a6272}
)";

}  // namespace

namespace {

// The title and the run's setting: LLM, time, device, loop settings.
std::string html_head(const json& doc) {
  const json& cfg = doc.value("config", json::object());
  const json loop_cfg = cfg.value("loop", json::object());
  std::string h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += fmt::format("<title>CUDAMaster run {}</title><style>{}</style></head><body>\n", doc.value("run", 0), kStyle);
  h += fmt::format("<h1>CUDAMaster run {}: {}</h1>\n", doc.value("run", 0), esc(str(doc, "status")));
  h += fmt::format("<p class=\"meta\">LLM <b>{}</b>; created {}; {:.1f} min active over {} session{}</p>\n", esc(str(doc, "llm")),
                   esc(str(doc, "created_at")), doc.value("active_seconds", 0.0) / 60.0, doc.value("sessions", 0),
                   doc.value("sessions", 0) == 1 ? "" : "s");
  h += fmt::format("<p class=\"meta\">Device {}; GPU work: {}</p>\n",
                   esc(cfg.value("device", json::object()).value("name", std::string("?"))),
                   esc(exec::Executor::from_json(cfg.value("executor", json::object())).describe()));
  h += fmt::format("<p class=\"meta\">Rounds {}, debug loops {}, patience {}, profile {}, planner {}, min gain {}, libraries {}</p>\n",
                   loop_cfg.value("rounds", 0), loop_cfg.value("debug_loops", 0), loop_cfg.value("patience", 0),
                   esc(loop_cfg.value("profile", std::string())), loop_cfg.value("planner", true) ? "on" : "off",
                   loop_cfg.value("min_gain", 0.0), loop_cfg.value("allow_libraries", false) ? "allowed" : "no");
  return h;
}

// Suite metrics.
std::string suite_cards(const json& s) {
  const json& u = s.value("suite", json::object());
  auto card = [](const std::string& v, const std::string& label) {
    return fmt::format("<div class=\"card\"><b>{}</b><span>{}</span></div>", v, label);
  };
  std::string h = "<div class=\"cards\">";
  h += card(fmt::format("{}", u.value("tasks", 0)), "tasks");
  h += card(fmt::format("{}", u.value("correct", 0)), "with a correct generated kernel");
  h += card(pct(u.value("success_rate", json())), "success rate (correct, P &gt; 1)");
  h += card(pct(u.value("fast_1", json())), "fast<sub>1</sub>");
  h += card(pct(u.value("fast_1_5", json())), "fast<sub>1.5</sub>");
  h += card(pct(u.value("fast_2", json())), "fast<sub>2</sub>");
  h += card(num(u.value("mean_p", json())), "mean P");
  h += card(num(u.value("geomean_vs_vendor", json())), "geomean vs vendor");
  h += card(fmt::format("${:.4f}", s.value("cost_usd", 0.0)), "LLM cost");
  h += card(fmt::format("{} / {}", s.value("tokens", json::object()).value("input", 0), s.value("tokens", json::object()).value("output", 0)),
            "tokens in / out");
  h += "</div>\n";
  h += "<p class=\"small\">P: complexity-weighted speedup over the naive baseline on the paper sweep, measured in the same run as the "
       "baseline and the vendor library (vs vendor: vendor time / kernel time, &gt; 1 is faster than the vendor).</p>\n";
  return h;
}

std::string tasks_table(const json& s) {
  std::string h = "<h2>Tasks</h2>\n<table><tr><th>task</th><th>prec</th><th>status</th><th>stop</th><th>best</th><th>P</th><th>vs vendor</th>"
                  "<th>vendor P</th><th>rounds</th><th>note</th></tr>\n";
  for (const json& t : s.value("tasks", json::array())) {
    h += fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}{}<td>{}</td><td>{}</td></tr>\n",
                     anchor(t), esc(str(t, "task")), esc(str(t, "precision")), esc(str(t, "status")), esc(str(t, "stop_reason")),
                     esc(str(t, "best_origin")), ratio_cell(t.value("p", json())), ratio_cell(t.value("vs_vendor", json())),
                     ratio_cell(t.value("vendor_p", json())), t.value("rounds", 0), esc(str(t, "message")));
  }
  h += "</table>\n";
  return h;
}

std::string agents_table(const json& s) {
  std::string h = "<h2>Agents</h2>\n<table><tr><th>agent</th><th>calls</th><th>input tokens</th><th>output tokens</th><th>cost</th>"
                  "<th>latency</th></tr>\n";
  for (const json& a : s.value("agents", json::array()))
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.4f}</td><td>{:.1f} s</td></tr>\n", esc(str(a, "agent")),
                     a.value("calls", 0), a.value("input_tokens", 0), a.value("output_tokens", 0), a.value("cost_usd", 0.0),
                     a.value("latency_ms", 0.0) / 1000.0);
  h += "</table>\n";
  return h;
}

std::string rounds_table(const json& rounds) {
  std::string h = "<h3>Rounds</h3><table><tr><th>round</th><th>outcome</th><th>class</th><th>P</th><th>best before</th><th>best after</th>"
                  "<th>attempts</th><th>plan and steps</th></tr>\n";
  for (const json& r : rounds) {
    std::string detail;
    if (!str(r, "plan").empty()) detail += "<details><summary>plan</summary><pre>" + esc(str(r, "plan")) + "</pre></details>";
    if (r.contains("steps") && r["steps"].is_array() && !r["steps"].empty()) {
      detail += "<details><summary>steps</summary><ul>";
      for (const json& st : r["steps"]) detail += "<li>" + esc(st.is_string() ? st.get<std::string>() : st.dump()) + "</li>";
      detail += "</ul></details>";
    }
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", r.value("round", 0),
                     esc(str(r, "outcome")), esc(str(r, "class")), ratio_cell(r.value("p", json())),
                     num(r.value("best_p_before", json())), num(r.value("best_p_after", json())), str(r, "attempts"), detail);
  }
  h += "</table>\n";
  return h;
}

std::string evaluations_table(const json& evaluations) {
  std::string h = "<h3>Evaluations</h3><table><tr><th>#</th><th>contender</th><th>candidate</th><th>disposition</th><th>checks</th><th>P</th>"
                  "<th>geomean</th><th>vs vendor</th><th>message</th></tr>\n";
  for (const json& e : evaluations)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td>{}{}{}<td>{}</td></tr>\n", str(e, "seq"),
                     esc(str(e, "contender")), str(e, "candidate_id"), esc(str(e, "disposition")), e.value("checks_passed", 0),
                     e.value("checks_total", 0), ratio_cell(e.value("p", json())), ratio_cell(e.value("geomean", json())),
                     ratio_cell(e.value("vs_vendor", json())), esc(str(e, "message")));
  h += "</table>\n";
  return h;
}

std::string profiles_table(const json& profiles) {
  std::string h = "<h3>Profiles</h3><table><tr><th>round</th><th>candidate</th><th>mode</th><th>bottleneck class</th><th>confidence</th>"
                  "<th>source</th></tr>\n";
  for (const json& p : profiles)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", str(p, "round"),
                     str(p, "candidate_id"), esc(str(p, "mode")), esc(str(p, "class")), num(p.value("confidence", json())),
                     esc(str(p, "source")));
  h += "</table>\n";
  return h;
}

// One job: its outcome, chart, rounds, evaluations, profiles and best source.
std::string job_section(const json& j) {
  const json best = j["result"].is_object() ? j["result"].value("best", json()) : json();
  std::string h = fmt::format("<h2 id=\"{}\">{} {}</h2>\n", anchor(j), esc(str(j, "task")), esc(str(j, "precision")));
  h += fmt::format("<p class=\"meta\">{} ({}); best: {} P {} (vs vendor {}){}</p>\n", esc(str(j, "status")), esc(str(j, "stop_reason")),
                   best.is_object() ? esc(str(best, "origin")) : "-", best.is_object() ? num(best.value("p", json())) : "-",
                   best.is_object() ? num(best.value("vs_vendor", json())) : "-",
                   j["result"].is_object() && !str(j["result"], "message").empty() ? "; " + esc(str(j["result"], "message")) : "");
  h += rounds_chart(j.value("rounds", json::array()));
  if (!j["rounds"].empty()) h += rounds_table(j["rounds"]);
  if (!j["evaluations"].empty()) h += evaluations_table(j["evaluations"]);
  if (!j["profiles"].empty()) h += profiles_table(j["profiles"]);
  if (!str(j, "best_source").empty())
    h += fmt::format("<details><summary>best kernel source{}</summary><pre>{}</pre></details>\n",
                     best.is_object() && !str(best, "sha256").empty() ? " (sha256 " + esc(str(best, "sha256").substr(0, 12)) + ")" : "",
                     esc(str(j, "best_source")));
  return h;
}

}  // namespace

std::string render_html(const json& doc) {
  const json& s = doc["summary"];
  std::string h = html_head(doc);
  h += suite_cards(s);
  h += tasks_table(s);
  h += agents_table(s);
  for (const json& j : doc.value("jobs", json::array())) h += job_section(j);
  h += "<p class=\"small\">Generated by <code>cudamaster report</code> from the run store; every number comes from the run's own "
       "measurements.</p>\n</body></html>\n";
  return h;
}

}  // namespace cudamaster::loop

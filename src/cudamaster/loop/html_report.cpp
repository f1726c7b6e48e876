#include "cudamaster/loop/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "cudamaster/agents/agents.hpp"
#include "cudamaster/exec/executor.hpp"
#include "cudamaster/loop/summary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/yardsticks.hpp"

namespace cudamaster::loop {

using nlohmann::json;

namespace {

// A SQLite 0/1 column (an integer in the store's rows) or a JSON bool.
bool truthy(const json& row, const char* key) {
  if (!row.contains(key)) return false;
  const json& v = row[key];
  return v.is_boolean() ? v.get<bool>() : (v.is_number() && v.get<double>() != 0);
}

std::int64_t id_of(const json& row, const char* key) {
  return row.contains(key) && row[key].is_number_integer() ? row[key].get<std::int64_t>() : -1;
}

// The round's planner answer, parsed (the last successful planner call of that round).
json plan_detail(const std::vector<json>& calls, int round) {
  const json* answer = nullptr;
  for (const json& c : calls)
    if (c.value("agent", "") == "planner" && c.value("round", 0) == round && c.value("error", "").empty()) answer = &c;
  if (answer == nullptr) return json();
  const agents::Plan p = agents::parse_plan(answer->value("response", ""));
  json strategies = json::array();
  for (const agents::Strategy& s : p.strategies)
    strategies.push_back({{"name", s.name}, {"change", s.change}, {"expected_gain", s.expected_gain}});
  return {{"structured", p.structured},
          {"bottleneck", p.bottleneck},
          {"strategies", strategies},
          {"expected_speedup", p.expected_speedup ? json(*p.expected_speedup) : json()},
          {"risks", p.risks},
          {"rationale", p.rationale},
          {"problems", p.problems},
          {"call_id", (*answer)["id"]}};
}

// The base of a contender name ("candidate/remeasure" -> "candidate") and its mode ("remeasure").
std::pair<std::string, std::string> contender_parts(const std::string& c) {
  const auto slash = c.find('/');
  if (slash == std::string::npos) return {c, ""};
  return {c.substr(0, slash), c.substr(slash + 1)};
}

json shape_rows(const std::vector<json>& shapes, std::int64_t evaluation_id) {
  json out = json::array();
  for (const json& s : shapes) {
    if (id_of(s, "evaluation_id") != evaluation_id) continue;
    json r;
    for (const char* k : {"sweep", "shape", "complexity", "median_us", "noise", "speedup", "vs_vendor", "sol_fraction", "disposition"})
      r[k] = s.contains(k) ? s[k] : json();
    out.push_back(r);
  }
  return out;
}

// Every candidate of a job (baseline and vendor included) with its status and per-size timings. A
// candidate of a round with no recorded outcome (a job still running, or cut) is "undecided", not
// rejected: its round never judged it.
json candidate_rows(store::RunStore& store, std::int64_t job_id, const json& rounds, const std::vector<json>& evaluations) {
  const std::vector<json> shapes = store.rows("eval_shapes", job_id);
  std::map<std::int64_t, std::string> build_error;
  for (const json& b : store.rows("builds", job_id))
    if (!truthy(b, "ok")) build_error[id_of(b, "candidate_id")] = b.value("error", "");
  std::set<int> decided;
  for (const json& r : rounds) decided.insert(r.value("round", 0));
  json out = json::array();
  for (const json& c : store.rows("candidates", job_id)) {
    const std::int64_t id = id_of(c, "id");
    const std::string origin = c.value("origin", "");
    json row = {{"id", id},          {"round", c.value("round", 0)}, {"origin", origin},     {"attempt", c.value("attempt", 0)},
                {"sha256", c.value("sha256", "")}, {"status", ""},   {"reason", ""},         {"p", nullptr},
                {"p_remeasured", nullptr},         {"geomean", nullptr}, {"vs_vendor", nullptr}, {"evaluation", ""},
                {"shapes", json::array()}};
    std::string failure;
    bool evaluated = false;
    for (const json& e : evaluations) {
      if (id_of(e, "candidate_id") != id) continue;
      const std::string contender = e.value("contender", "");
      const auto [base, mode] = contender_parts(contender);
      const bool passed = e.value("disposition", "") == "passed";
      if (!passed && failure.empty())
        failure = contender + ": " + e.value("disposition", "") + (e.value("message", "").empty() ? "" : " - " + e.value("message", ""));
      if (mode.empty()) {
        evaluated = true;
        row["p"] = e.value("p", json());
        row["geomean"] = e.value("geomean", json());
        row["vs_vendor"] = e.value("vs_vendor", json());
        row["evaluation"] = contender;
        row["shapes"] = shape_rows(shapes, id_of(e, "id"));
      } else if (mode == "remeasure" && e["p"].is_number()) {
        row["p_remeasured"] = e["p"];
      }
    }
    bool accepted = false;
    for (const json& r : rounds)
      if (id_of(r, "candidate_id") == id && r.value("outcome", "").rfind("accepted", 0) == 0) accepted = true;
    if (origin == "baseline" || origin == "vendor") {
      row["status"] = origin;
    } else if (accepted) {
      row["status"] = "accepted";
    } else if (build_error.count(id)) {
      row["status"] = "failed";
      row["reason"] = "build: " + build_error[id];
    } else if (!failure.empty()) {
      row["status"] = "failed";
      row["reason"] = failure;
    } else if (decided.count(c.value("round", 0)) == 0) {
      row["status"] = "undecided";
      row["reason"] = fmt::format("{}round {} has no recorded outcome (the job did not finish it)", evaluated ? "" : "not evaluated; ",
                                  c.value("round", 0));
    } else if (!evaluated) {
      row["status"] = "failed";
      row["reason"] = "not evaluated";
    } else {
      row["status"] = "rejected";
    }
    out.push_back(row);
  }
  return out;
}

json profile_rows(const std::vector<json>& profiles) {
  json out = json::array();
  for (const json& p : profiles) {
    json b;
    for (const char* k : {"round", "candidate_id", "mode", "ok", "class", "confidence", "source", "message"})
      if (p.contains(k)) b[k] = p[k];
    const json payload = p.value("payload", json::object());
    const json data = payload.is_object() ? payload.value("summary", json::object()).value("data", json::object()) : json::object();
    b["reason"] = data.value("reason", "");
    const json kernels = data.value("kernels", json::array());
    b["kernel"] = kernels.is_array() && !kernels.empty() && kernels[0].is_object() ? kernels[0].value("name", "") : std::string();
    b["shape"] = data.value("shape_str", "");
    b["top_stall"] = data.value("top_stall", "");
    b["metrics"] = json::array();
    const json metrics = data.value("metrics", json::object());
    if (metrics.is_object())
      for (const auto& [metric, m] : metrics.items())
        if (m.is_object()) b["metrics"].push_back({{"metric", metric}, {"label", m.value("label", metric)}, {"shown", m.value("shown", "")}});
    const json all = data.value("all_metrics", json::object());
    b["all_metrics"] = all.is_object() ? all.size() : 0;
    out.push_back(b);
  }
  return out;
}

// Per agent over one job's calls (failed calls counted).
json job_agents(const std::vector<json>& calls) {
  std::map<std::string, json> by;
  for (const json& c : calls) {
    json& a = by[c.value("agent", "")];
    if (a.is_null())
      a = {{"agent", c.value("agent", "")}, {"calls", 0}, {"failed", 0}, {"input_tokens", 0}, {"output_tokens", 0}, {"cost_usd", 0.0},
           {"latency_ms", 0.0}};
    a["calls"] = a["calls"].get<int>() + 1;
    if (!c.value("error", "").empty()) a["failed"] = a["failed"].get<int>() + 1;
    a["input_tokens"] = a["input_tokens"].get<std::int64_t>() + c.value("input_tokens", std::int64_t{0});
    a["output_tokens"] = a["output_tokens"].get<std::int64_t>() + c.value("output_tokens", std::int64_t{0});
    if (c.contains("cost_usd") && c["cost_usd"].is_number()) a["cost_usd"] = a["cost_usd"].get<double>() + c["cost_usd"].get<double>();
    a["latency_ms"] = a["latency_ms"].get<double>() + c.value("latency_ms", 0.0);
  }
  json out = json::array();
  for (auto& [name, a] : by) out.push_back(a);
  return out;
}

}  // namespace

json report_document(store::RunStore& store, std::int64_t run_id) {
  const auto run = store.run(run_id);
  if (!run) throw store::StoreError("no run " + std::to_string(run_id));
  json doc = {{"run", run_id},
              {"status", run->status},
              {"llm", run->llm},
              {"created_at", run->created_at},
              {"updated_at", run->updated_at},
              {"active_seconds", run->active_seconds},
              {"sessions", run->sessions},
              {"config", run->config},
              {"summary", build_summary(store, run_id)},
              {"jobs", json::array()}};
  for (const store::JobInfo& j : store.jobs(run_id)) {
    json jj = {{"task", j.task},           {"precision", j.precision},     {"status", j.status},
               {"stop_reason", j.stop_reason}, {"result", j.result},      {"rounds", json::array()},
               {"evaluations", json::array()}, {"profiles", json::array()}, {"best_source", ""},
               {"vendor_p", j.result.is_object() ? j.result.value("vendor_p", json()) : json()}};
    const std::vector<json> calls = store.rows("llm_calls", j.id);
    for (const json& r : store.rows("rounds", j.id)) {
      json x = r.value("payload", json::object());
      if (!x.is_object()) x = json::object();
      for (const char* k : {"round", "outcome", "p", "best_p_before", "best_p_after", "attempts", "candidate_id"})
        if (r.contains(k)) x[k] = r[k];
      const json plan = plan_detail(calls, x.value("round", 0));
      if (!plan.is_null()) x["plan_detail"] = plan;
      jj["rounds"].push_back(x);
    }
    std::vector<json> evaluations;
    for (const json& e : store.rows("evaluations", j.id)) {
      json b = e;
      b.erase("payload");
      evaluations.push_back(b);
      jj["evaluations"].push_back(b);
    }
    jj["candidates"] = candidate_rows(store, j.id, jj["rounds"], evaluations);
    if (!jj["vendor_p"].is_number())
      for (const json& c : jj["candidates"])
        if (c["status"] == "vendor" && c["p"].is_number()) jj["vendor_p"] = c["p"];
    jj["profiles"] = profile_rows(store.rows("profiles", j.id));
    jj["agents"] = job_agents(calls);
    jj["failed_calls"] = json::array();
    for (const json& c : calls)
      if (!c.value("error", "").empty())
        jj["failed_calls"].push_back(
            {{"id", c["id"]}, {"round", c.value("round", 0)}, {"agent", c.value("agent", "")}, {"attempt", c.value("attempt", 0)}, {"error", c["error"]}});
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
std::string candidate_name(const json& c) {
  const std::string origin = str(c, "origin");
  if (origin == "debug") return fmt::format("debug {}", c.value("attempt", 0));
  return origin;
}

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:4px}
h3{font-size:16px;margin:22px 0 6px}h4{font-size:14px;margin:12px 0 4px}.meta{color:#5a6272;margin:2px 0}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d8dde6;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f1f3f7}
td.win{background:#e3f4e6}td.loss{background:#fbe5e3}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.card{border:1px solid #d8dde6;border-radius:6px;padding:8px 12px;min-width:110px}
.card b{display:block;font-size:20px}.card span{color:#5a6272;font-size:12px}
pre{background:#f6f8fa;border:1px solid #d8dde6;padding:10px;overflow:auto;font-size:12px;max-height:640px;white-space:pre-wrap}
details{margin:6px 0}summary{cursor:pointer;color:#234a9a}
.st-accepted{color:#2e7d32;font-weight:600}.st-rejected{color:#b26a00}.st-failed{color:#c0392b;font-weight:600}
.st-undecided{color:#5a6272;font-style:italic}
.plan{border-left:3px solid #9fb3d9;padding:2px 10px;margin:4px 0}.plan p{margin:3px 0}
.chart{display:block;margin:8px 0}.small{font-size:12px;color:#5a6272}
)";

// The title and the run's setting: LLM, time, device, loop settings.
std::string html_head(const json& doc) {
  const json& cfg = doc.value("config", json::object());
  const json loop_cfg = cfg.value("loop", json::object());
  std::string h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += fmt::format("<title>CUDAMaster run {}</title><style>{}</style></head><body>\n", doc.value("run", 0), kStyle);
  h += fmt::format("<h1>CUDAMaster run {}: {}</h1>\n", doc.value("run", 0), esc(str(doc, "status")));
  // The store cannot tell a live run from one whose process was killed: say so instead of implying it runs.
  if (str(doc, "status") == "running")
    h += fmt::format("<p class=\"meta\"><b>No end recorded</b> (last update {}): the run is still going, or its process was killed "
                     "before it could record one.</p>\n",
                     esc(str(doc, "updated_at")));
  h += fmt::format("<p class=\"meta\">LLM <b>{}</b>; created {}; {:.1f} min active over {} session{}</p>\n", esc(str(doc, "llm")),
                   esc(str(doc, "created_at")), doc.value("active_seconds", 0.0) / 60.0, doc.value("sessions", 0),
                   doc.value("sessions", 0) == 1 ? "" : "s");
  h += fmt::format("<p class=\"meta\">Device {}; GPU work: {}</p>\n",
                   esc(cfg.value("device", json::object()).value("name", std::string("?"))),
                   esc(exec::Executor::from_json(cfg.value("executor", json::object())).describe()));
  h += "<p class=\"meta\">" + esc(mskb::launch_floor_line(cfg.value("device", json::object()))) + "</p>\n";
  h += "<p class=\"meta\">" + esc(mskb::report::code_line(cfg.value("tool", json()))) + "</p>\n";
  h += fmt::format("<p class=\"meta\">Rounds {}, debug loops {}, patience {}, profile {}, planner {}, min gain {}, libraries {}</p>\n",
                   loop_cfg.value("rounds", 0), loop_cfg.value("debug_loops", 0), loop_cfg.value("patience", 0),
                   esc(loop_cfg.value("profile", std::string())), loop_cfg.value("planner", true) ? "on" : "off",
                   loop_cfg.value("min_gain", 0.0), loop_cfg.value("allow_libraries", false) ? "allowed" : "no");
  return h;
}

// Suite metrics.
std::string suite_cards(const json& s) {
  const json& u = s.value("suite", json::object());
  using mskb::report::html_card;
  const auto card = html_card;
  std::string h = "<div class=\"cards\">";
  if (s.value("dry_run", false)) h += card("dry run", "agents and compiler only: nothing evaluated, no P (not a score)");
  h += card(fmt::format("{}", u.value("tasks", 0)), "tasks");
  int unfinished = 0;
  for (const json& t : s.value("tasks", json::array()))
    if (str(t, "status") == "running" || str(t, "status") == "pending") ++unfinished;
  if (unfinished > 0) h += card(fmt::format("{}", unfinished), "not finished (in the rates as without success)");
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
                  "<th>vendor P</th><th>SOL at largest shape</th><th>rounds</th><th>note</th></tr>\n";
  for (const json& t : s.value("tasks", json::array())) {
    const json vendor = t.value("vendor", json()), vs = t.value("vs_vendor", json()), roof = t.value("roofline", json());
    const std::string vendor_html =
        vs.is_number() ? ratio_cell(vs) : "<td>" + esc(mskb::vendor_cell(vendor, vs)) + "</td>";
    std::string sol = "-";
    if (roof.is_object() && roof.value("sol", json()).is_number())
      sol = fmt::format("{:.1f}% at {}{}", 100 * roof["sol"].get<double>(), esc(str(roof, "shape")),
                        roof.value("launch_bound", false) ? " (launch-bound)" : "");
    h += fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}{}<td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     anchor(t), esc(str(t, "task")), esc(str(t, "precision")), esc(str(t, "status")), esc(str(t, "stop_reason")),
                     esc(str(t, "best_origin")), ratio_cell(t.value("p", json())), vendor_html, ratio_cell(t.value("vendor_p", json())), sol,
                     t.value("rounds", 0), esc(str(t, "message")));
  }
  h += "</table>\n<p class=\"small\">P, vs vendor and SOL: the three yardsticks of the best kernel (SOL: its fraction of the "
       "roofline at its largest timed shape). vs vendor \"none\": no library route fits the task's ABI; \"no vendor\": the run has "
       "no vendor time.</p>\n";
  return h;
}

std::string agents_table(const json& agents, const char* heading) {
  std::string h = heading;
  if (agents.empty()) return h + "<p class=\"small\">No agent calls recorded.</p>\n";
  h += "<table><tr><th>agent</th><th>calls</th><th>failed</th><th>input tokens</th><th>output tokens</th><th>cost</th><th>latency</th></tr>\n";
  for (const json& a : agents)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.4f}</td><td>{:.1f} s</td></tr>\n", esc(str(a, "agent")),
                     a.value("calls", 0), a.contains("failed") && a["failed"].is_number() ? a["failed"].get<int>() : 0,
                     a.value("input_tokens", std::int64_t{0}), a.value("output_tokens", std::int64_t{0}),
                     a.contains("cost_usd") && a["cost_usd"].is_number() ? a["cost_usd"].get<double>() : 0.0,
                     (a.contains("latency_ms") && a["latency_ms"].is_number() ? a["latency_ms"].get<double>() : 0.0) / 1000.0);
  h += "</table>\n";
  return h;
}

std::string plan_block(const json& p) {
  std::string h = "<div class=\"plan\">";
  if (!str(p, "bottleneck").empty()) h += "<p><b>Bottleneck:</b> " + esc(str(p, "bottleneck")) + "</p>";
  const json strategies = p.value("strategies", json::array());
  if (!strategies.empty()) {
    h += "<table><tr><th>strategy</th><th>change</th><th>expected gain</th></tr>";
    for (const json& s : strategies)
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", esc(str(s, "name")), esc(str(s, "change")), esc(str(s, "expected_gain")));
    h += "</table>";
  }
  h += "<p><b>Expected speedup:</b> " + (p.contains("expected_speedup") && p["expected_speedup"].is_number()
                                            ? fmt::format("{:.2f}x", p["expected_speedup"].get<double>())
                                            : std::string("-")) + "</p>";
  h += "<p><b>Risks:</b> " + (str(p, "risks").empty() ? std::string("-") : esc(str(p, "risks"))) + "</p>";
  h += "<p><b>Rationale:</b> " + (str(p, "rationale").empty() ? std::string("-") : esc(str(p, "rationale"))) + "</p>";
  for (const json& problem : p.value("problems", json::array()))
    h += "<p class=\"small\">plan problem: " + esc(problem.is_string() ? problem.get<std::string>() : problem.dump()) + "</p>";
  return h + "</div>";
}

std::string rounds_table(const json& rounds) {
  std::string h = "<h3>Rounds</h3><table><tr><th>round</th><th>outcome</th><th>class</th><th>P</th><th>best before</th><th>best after</th>"
                  "<th>attempts</th><th>plan and steps</th></tr>\n";
  for (const json& r : rounds) {
    std::string detail;
    if (r.contains("plan_detail") && r["plan_detail"].is_object()) detail += plan_block(r["plan_detail"]);
    else if (!str(r, "plan").empty()) detail += "<div class=\"plan\"><p>" + esc(str(r, "plan")) + "</p></div>";
    else detail += "<p class=\"small\">no plan (planner off)</p>";
    if (r.contains("steps") && r["steps"].is_array() && !r["steps"].empty()) {
      detail += "<details><summary>steps</summary><ul>";
      for (const json& st : r["steps"]) detail += "<li>" + esc(st.is_string() ? st.get<std::string>() : st.dump()) + "</li>";
      detail += "</ul></details>";
    }
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", r.value("round", 0),
                     esc(str(r, "outcome")), esc(str(r, "class")), ratio_cell(r.value("p", json())),
                     num(r.value("best_p_before", json())), num(r.value("best_p_after", json())), esc(str(r, "attempts")), detail);
  }
  h += "</table>\n";
  return h;
}

std::string shapes_table(const json& shapes, const std::optional<double>& floor) {
  std::string h = "<table><tr><th>sweep</th><th>shape</th><th>complexity</th><th>time (us)</th><th>noise</th><th>speedup</th>"
                  "<th>vs vendor</th><th>% of roofline</th><th>check</th><th>launch-bound</th></tr>";
  for (const json& s : shapes)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}<td>{}</td><td>{}</td><td>{}</td></tr>", esc(str(s, "sweep")),
                     esc(str(s, "shape")), esc(str(s, "complexity")), num(s.value("median_us", json()), "{:.3f}"),
                     s.value("noise", json()).is_number() ? fmt::format("{:.1f}%", 100 * s["noise"].get<double>()) : "-",
                     ratio_cell(s.value("speedup", json())), ratio_cell(s.value("vs_vendor", json())),
                     s.value("sol_fraction", json()).is_number() ? fmt::format("{:.1f}%", 100 * s["sol_fraction"].get<double>()) : "-",
                     esc(str(s, "disposition")), mskb::is_launch_bound(s.value("median_us", json()), floor) ? "L" : "");
  return h + "</table>";
}

std::string candidates_section(const json& candidates, const std::optional<double>& floor) {
  std::string h = "<h3>Candidates</h3><table><tr><th>id</th><th>round</th><th>origin</th><th>status</th><th>P</th><th>P remeasured</th>"
                  "<th>geomean</th><th>vs vendor</th><th>why</th></tr>\n";
  for (const json& c : candidates)
    h += fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"st-{}\">{}</td>{}{}{}{}<td>{}</td></tr>\n",
                     fmt::format("cand-{}", c.value("id", std::int64_t{0})), c.value("id", std::int64_t{0}), c.value("round", 0),
                     esc(candidate_name(c)), esc(str(c, "status")), esc(str(c, "status")), ratio_cell(c.value("p", json())),
                     ratio_cell(c.value("p_remeasured", json())), ratio_cell(c.value("geomean", json())),
                     ratio_cell(c.value("vs_vendor", json())), esc(str(c, "reason")));
  h += "</table>\n";
  for (const json& c : candidates) {
    const json shapes = c.value("shapes", json::array());
    h += fmt::format("<details id=\"cand-{}\"{}><summary>candidate {} ({}, round {}, {}): per size{}</summary>", c.value("id", std::int64_t{0}),
                     c.value("status", "") == "accepted" ? " open" : "", c.value("id", std::int64_t{0}), esc(candidate_name(c)),
                     c.value("round", 0), esc(str(c, "status")),
                     str(c, "evaluation").empty() ? "" : " (evaluation " + esc(str(c, "evaluation")) + ")");
    h += shapes.empty() ? "<p class=\"small\">no timings (not measured)</p>" : shapes_table(shapes, floor);
    h += "</details>\n";
  }
  return h;
}

std::string evaluations_table(const json& evaluations) {
  std::string h = "<h3>Evaluations</h3><table><tr><th>#</th><th>contender</th><th>candidate</th><th>disposition</th><th>checks</th><th>P</th>"
                  "<th>geomean</th><th>vs vendor</th><th>message</th></tr>\n";
  for (const json& e : evaluations)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td>{}{}{}<td>{}</td></tr>\n", esc(str(e, "seq")),
                     esc(str(e, "contender")), esc(str(e, "candidate_id")), esc(str(e, "disposition")), e.value("checks_passed", 0),
                     e.value("checks_total", 0), ratio_cell(e.value("p", json())), ratio_cell(e.value("geomean", json())),
                     ratio_cell(e.value("vs_vendor", json())), esc(str(e, "message")));
  h += "</table>\n";
  return h;
}

std::string profiles_section(const json& profiles) {
  std::string h = "<h3>Profiles</h3><table><tr><th>round</th><th>candidate</th><th>mode</th><th>bottleneck class</th><th>confidence</th>"
                  "<th>source</th><th>why</th></tr>\n";
  for (const json& p : profiles)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(str(p, "round")),
                     esc(str(p, "candidate_id")), esc(str(p, "mode")), esc(str(p, "class")), num(p.value("confidence", json())),
                     esc(str(p, "source")), esc(str(p, "reason").empty() ? str(p, "message") : str(p, "reason")));
  h += "</table>\n";
  for (const json& p : profiles) {
    const json metrics = p.value("metrics", json::array());
    if (metrics.empty()) continue;
    h += fmt::format("<details><summary>round {} profile: {} filtered metrics (of {}){}</summary>", esc(str(p, "round")), metrics.size(),
                     p.value("all_metrics", 0), str(p, "shape").empty() ? "" : " at " + esc(str(p, "shape")));
    if (!str(p, "kernel").empty()) h += "<p class=\"small\">kernel " + esc(str(p, "kernel")) + "</p>";
    h += "<table><tr><th>metric</th><th>value</th><th>ncu name</th></tr>";
    for (const json& m : metrics)
      h += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"small\">{}</td></tr>", esc(str(m, "label")), esc(str(m, "shown")),
                       esc(str(m, "metric")));
    if (!str(p, "top_stall").empty()) h += "<tr><td>top stall</td><td>" + esc(str(p, "top_stall")) + "</td><td></td></tr>";
    h += "</table></details>\n";
  }
  return h;
}

std::string failed_calls_list(const json& calls) {
  if (calls.empty()) return "";
  std::string h = "<h4>Failed agent calls</h4><ul>";
  for (const json& c : calls)
    h += fmt::format("<li>round {} {}{}: {}</li>", c.value("round", 0), esc(str(c, "agent")),
                     c.value("attempt", 0) > 0 ? fmt::format(" {}", c.value("attempt", 0)) : "", esc(str(c, "error")));
  return h + "</ul>\n";
}

// One job: its outcome, chart, candidates, rounds, evaluations, profiles, agents and best source.
std::string job_section(const json& j, const std::optional<double>& floor) {
  const json best = j["result"].is_object() ? j["result"].value("best", json()) : json();
  std::string h = fmt::format("<h2 id=\"{}\">{} {}</h2>\n", anchor(j), esc(str(j, "task")), esc(str(j, "precision")));
  h += fmt::format("<p class=\"meta\">{}{}; best: {} P {} (vs vendor {}){}</p>\n", esc(str(j, "status")),
                   str(j, "stop_reason").empty() ? "" : " (" + esc(str(j, "stop_reason")) + ")",
                   best.is_object() ? esc(str(best, "origin")) : "-", best.is_object() ? num(best.value("p", json())) : "-",
                   best.is_object() ? num(best.value("vs_vendor", json())) : "-",
                   j["result"].is_object() && !str(j["result"], "message").empty() ? "; " + esc(str(j["result"], "message")) : "");
  h += p_per_round_chart(j);
  if (!j.value("candidates", json::array()).empty()) h += candidates_section(j["candidates"], floor);
  if (!j["rounds"].empty()) h += rounds_table(j["rounds"]);
  if (!j["evaluations"].empty()) h += evaluations_table(j["evaluations"]);
  if (!j["profiles"].empty()) h += profiles_section(j["profiles"]);
  h += agents_table(j.value("agents", json::array()), "<h3>Agents</h3>\n");
  h += failed_calls_list(j.value("failed_calls", json::array()));
  if (!str(j, "best_source").empty())
    h += fmt::format("<details><summary>best kernel source{}</summary><pre>{}</pre></details>\n",
                     best.is_object() && !str(best, "sha256").empty() ? " (sha256 " + esc(str(best, "sha256").substr(0, 12)) + ")" : "",
                     esc(str(j, "best_source")));
  return h;
}

}  // namespace

std::string p_per_round_chart(const json& job) {
  mskb::ChartOptions o;
  o.title = "P per round: " + str(job, "task") + " " + str(job, "precision");
  o.x_label = "round (debug attempts to the right)";
  o.y_label = "P (speedup over the baseline)";
  o.log_x = o.log_y = false;
  o.width = 640;
  o.height = 340;
  mskb::ChartSeries accepted{"accepted", {}, "#2e7d32", false, true, false};
  mskb::ChartSeries rejected{"rejected", {}, "#e08e0b", false, true, false};
  mskb::ChartSeries failed{"failed (drawn at P = 0)", {}, "#c0392b", false, true, false};
  mskb::ChartSeries undecided{"undecided (round not finished)", {}, "#5a6272", false, true, false};
  mskb::ChartSeries best{"best P so far", {}, "#4e79a7", true, false, false};
  double last_x = 1;
  for (const json& c : job.value("candidates", json::array())) {
    const std::string status = str(c, "status");
    if (status == "baseline" || status == "vendor") continue;
    const double x = c.value("round", 0) + 0.15 * c.value("attempt", 0);
    last_x = std::max(last_x, x);
    const json p = c.value("p_remeasured", json()).is_number() ? c["p_remeasured"] : c.value("p", json());
    const std::string tip = fmt::format("candidate {} (round {}, {}): {}{}", c.value("id", std::int64_t{0}), c.value("round", 0),
                                        candidate_name(c), status, p.is_number() ? fmt::format(", P {:.3f}", p.get<double>()) : "") +
                            (str(c, "reason").empty() ? "" : " - " + str(c, "reason"));
    if (status == "accepted") accepted.points.push_back({x, p.is_number() ? p.get<double>() : 0.0, tip});
    else if (status == "rejected") rejected.points.push_back({x, p.is_number() ? p.get<double>() : 0.0, tip});
    else if (status == "undecided" && p.is_number()) undecided.points.push_back({x, p.get<double>(), tip});
    else if (status != "undecided") failed.points.push_back({x, 0.0, tip});  // an undecided one without P: only in the table
  }
  best.points.push_back({0, 1.0, "baseline: P 1.00"});
  for (const json& r : job.value("rounds", json::array())) {
    if (!r.contains("best_p_after") || !r["best_p_after"].is_number()) continue;
    const double x = r.value("round", 0);
    last_x = std::max(last_x, x);
    if (r.contains("best_p_before") && r["best_p_before"].is_number())
      best.points.push_back({x, r["best_p_before"].get<double>(), fmt::format("before round {}: best P {:.3f}", r.value("round", 0),
                                                                             r["best_p_before"].get<double>())});
    best.points.push_back({x, r["best_p_after"].get<double>(), fmt::format("after round {}: best P {:.3f}", r.value("round", 0),
                                                                          r["best_p_after"].get<double>())});
  }
  const double x_end = last_x + 0.5;
  std::vector<mskb::ChartSeries> series;
  series.push_back({"baseline (P = 1)", {{0, 1.0, "baseline: P 1.00"}, {x_end, 1.0, "baseline: P 1.00"}}, "#5a6272", true, false, true});
  if (job.contains("vendor_p") && job["vendor_p"].is_number()) {
    const double v = job["vendor_p"].get<double>();
    const std::string tip = fmt::format("vendor: P {:.3f}", v);
    series.push_back({fmt::format("vendor (P = {:.2f})", v), {{0, v, tip}, {x_end, v, tip}}, "#8e44ad", true, false, true});
  }
  series.push_back(best);
  for (mskb::ChartSeries* s : {&accepted, &rejected, &failed, &undecided})
    if (!s->points.empty()) series.push_back(*s);
  return inline_svg(mskb::svg_chart(o, series));
}

std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  for (auto at = svg.find(ns); at != std::string::npos; at = svg.find(ns, at)) svg.erase(at, ns.size());
  return svg;
}

std::string render_html(const json& doc) {
  const json& s = doc["summary"];
  std::string h = html_head(doc);
  h += suite_cards(s);
  h += tasks_table(s);
  h += agents_table(s.value("agents", json::array()), "<h2>Agents</h2>\n");
  const std::optional<double> floor = mskb::launch_floor_us(doc.value("config", json::object()).value("device", json::object()));
  for (const json& j : doc.value("jobs", json::array())) h += job_section(j, floor);
  h += "<p class=\"small\">Generated by <code>cudamaster report</code> from the run store; every number comes from the run's own "
       "measurements.</p>\n</body></html>\n";
  return h;
}

}  // namespace cudamaster::loop

#include "cudamaster/loop/compare_report.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "cudamaster/loop/html_report.hpp"
#include "cudamaster/loop/summary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/util/html.hpp"

namespace cudamaster::loop {

using nlohmann::json;
using mskb::report::md_cell;

namespace {

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "-";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) {
    std::string s;
    for (const json& x : v) s += (s.empty() ? "" : ",") + text(x);
    return s;
  }
  return v.dump();
}

constexpr const char* kFlagOrder[] = {"llm",     "tasks",   "precisions", "device",   "executor",        "rounds",  "debug_loops",
                                      "patience", "profile", "planner",    "min_gain", "allow_libraries", "sanitize"};

std::string num(const json& v, const char* f = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("-");
}
std::string pct(const json& v) { return v.is_number() ? fmt::format("{:.0f}%", 100 * v.get<double>()) : std::string("-"); }
std::string money(const json& v) { return fmt::format("${:.4f}", v.is_number() ? v.get<double>() : 0.0); }
std::string minutes(const json& v) { return fmt::format("{:.1f} min", (v.is_number() ? v.get<double>() : 0.0) / 60.0); }

const json* agent_of(const json& run, const std::string& name) {
  for (const json& a : run["agents"])
    if (a.value("agent", "") == name) return &a;
  return nullptr;
}

// One cell per (run, agent): "in / out tok, $cost".
std::string agent_cell(const json& run, const std::string& name) {
  const json* a = agent_of(run, name);
  if (a == nullptr) return "-";
  return fmt::format("{} / {} tok, {}", a->value("input_tokens", std::int64_t{0}), a->value("output_tokens", std::int64_t{0}),
                     money(a->value("cost_usd", json())));
}

// The table's columns: name and cell text per run (the differing flags first).
struct Column {
  std::string name;
  std::vector<std::string> cells;
};

std::vector<Column> table_columns(const json& doc) {
  std::vector<Column> cols;
  const json& runs = doc["runs"];
  auto add = [&](const std::string& name, auto cell) {
    Column c{name, {}};
    for (const json& r : runs) c.cells.push_back(cell(r));
    cols.push_back(c);
  };
  add("run", [](const json& r) { return fmt::format("{}", r.value("run", std::int64_t{0})); });
  for (const json& f : doc["differing"]) {
    const std::string flag = f.get<std::string>();
    add(flag, [flag](const json& r) { return text(r["flags"].value(flag, json())); });
  }
  add("status", [](const json& r) { return r.value("status", ""); });
  add("tasks", [](const json& r) { return fmt::format("{}", r["suite"].value("tasks", 0)); });
  add("correct", [](const json& r) { return fmt::format("{}", r["suite"].value("correct", 0)); });
  add("success rate", [](const json& r) { return pct(r["suite"].value("success_rate", json())); });
  add("fast_1", [](const json& r) { return pct(r["suite"].value("fast_1", json())); });
  add("fast_1.5", [](const json& r) { return pct(r["suite"].value("fast_1_5", json())); });
  add("fast_2", [](const json& r) { return pct(r["suite"].value("fast_2", json())); });
  add("mean P", [](const json& r) { return num(r["suite"].value("mean_p", json())); });
  add("geomean vs vendor", [](const json& r) { return num(r["suite"].value("geomean_vs_vendor", json())); });
  for (const json& a : doc["agents"]) {
    const std::string name = a.get<std::string>();
    add(name, [name](const json& r) { return agent_cell(r, name); });
  }
  add("tokens in / out", [](const json& r) {
    return fmt::format("{} / {}", r["tokens"].value("input", std::int64_t{0}), r["tokens"].value("output", std::int64_t{0}));
  });
  add("cost", [](const json& r) { return money(r.value("cost_usd", json())); });
  add("wall time", [](const json& r) { return minutes(r.value("wall_seconds", json())); });
  return cols;
}

}  // namespace

json run_flags(const store::RunInfo& run) {
  const json& cfg = run.config.is_object() ? run.config : json::object();
  const json loop = cfg.value("loop", json::object());
  return {{"llm", run.llm},
          {"tasks", text(cfg.value("tasks", json::array()))},
          {"precisions", text(cfg.value("precisions", json::array()))},
          {"device", cfg.value("device", json::object()).value("name", std::string("?"))},
          {"executor", cfg.value("executor", json::object()).value("kind", std::string("local"))},
          {"rounds", text(loop.value("rounds", json()))},
          {"debug_loops", text(loop.value("debug_loops", json()))},
          {"patience", text(loop.value("patience", json()))},
          {"profile", text(loop.value("profile", json()))},
          {"planner", loop.value("planner", true) ? "on" : "off"},
          {"min_gain", text(loop.value("min_gain", json()))},
          {"allow_libraries", text(loop.value("allow_libraries", json(false)))},
          {"sanitize", text(loop.value("sanitize", json()))}};
}

json compare_document(store::RunStore& store, const std::vector<std::int64_t>& run_ids) {
  json runs = json::array();
  std::set<std::string> agents;
  for (const std::int64_t id : run_ids) {
    const auto run = store.run(id);
    if (!run) throw store::StoreError("no run " + std::to_string(id));
    const json s = build_summary(store, id);
    json a = json::array();
    for (const json& x : s.value("agents", json::array())) {
      a.push_back({{"agent", x.value("agent", "")},
                   {"calls", x.value("calls", json(0))},
                   {"failed", x.value("failed", json(0))},
                   {"input_tokens", x.value("input_tokens", json(0))},
                   {"output_tokens", x.value("output_tokens", json(0))},
                   {"cost_usd", x.value("cost_usd", json(0.0))}});
      agents.insert(x.value("agent", ""));
    }
    runs.push_back({{"run", id},
                    {"label", ""},
                    {"status", run->status},
                    {"llm", run->llm},
                    {"created_at", run->created_at},
                    {"flags", run_flags(*run)},
                    {"suite", s["suite"]},
                    {"tasks", s["tasks"]},
                    {"agents", a},
                    {"tokens", s["tokens"]},
                    {"cost_usd", s["cost_usd"]},
                    {"wall_seconds", run->active_seconds}});
  }
  json differing = json::array(), common = json::object();
  for (const char* flag : kFlagOrder) {
    bool differs = false;
    for (const json& r : runs) differs |= r["flags"][flag] != runs[0]["flags"][flag];
    if (differs) differing.push_back(flag);
    else if (!runs.empty()) common[flag] = runs[0]["flags"][flag];
  }
  for (json& r : runs) {
    std::string label = fmt::format("run {}", r["run"].get<std::int64_t>());
    std::string parts;
    for (const json& f : differing) parts += (parts.empty() ? "" : ", ") + f.get<std::string>() + "=" + text(r["flags"][f.get<std::string>()]);
    r["label"] = parts.empty() ? label : label + ": " + parts;
  }
  return {{"runs", runs}, {"differing", differing}, {"common", common}, {"agents", json(std::vector<std::string>(agents.begin(), agents.end()))}};
}

std::string render_compare_markdown(const json& doc) {
  const std::vector<Column> cols = table_columns(doc);
  std::string out = "| ";
  std::string rule = "|";
  for (const Column& c : cols) {
    out += md_cell(c.name) + " | ";
    rule += " --- |";
  }
  out.pop_back();
  out += "\n" + rule + "\n";
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    out += "|";
    for (const Column& c : cols) out += " " + md_cell(c.cells[i]) + " |";
    out += "\n";
  }
  std::string same;
  for (const auto& [flag, value] : doc["common"].items()) same += (same.empty() ? "" : ", ") + flag + "=" + md_cell(text(value));
  if (!same.empty()) out += "\nSame in every run: " + same + "\n";
  return out;
}

std::string render_compare_html(const json& doc) {
  using mskb::html_escape;
  std::string h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>CUDAMaster runs compared</title><style>"
                  "body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;margin:24px auto;max-width:1280px;color:#1d2330;padding:0 16px}"
                  "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:24px 0 8px}.meta{color:#5a6272;margin:2px 0}"
                  "table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-variant-numeric:tabular-nums}"
                  "th,td{border:1px solid #d8dde6;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f1f3f7}"
                  "th.flag{background:#e8eefb}.small{font-size:12px;color:#5a6272}.chart{display:block;margin:8px 0}.wide{overflow-x:auto}"
                  "</style></head><body>\n";
  h += fmt::format("<h1>CUDAMaster: {} runs compared</h1>\n", doc["runs"].size());
  std::string same;
  for (const auto& [flag, value] : doc["common"].items())
    same += (same.empty() ? "" : ", ") + html_escape(flag) + " <b>" + html_escape(text(value)) + "</b>";
  h += "<p class=\"meta\">Same in every run: " + (same.empty() ? std::string("-") : same) + "</p>\n";
  const std::vector<Column> cols = table_columns(doc);
  h += "<h2>Ablation table</h2>\n<div class=\"wide\"><table><tr>";
  std::set<std::string> flags;
  for (const json& f : doc["differing"]) flags.insert(f.get<std::string>());
  for (const Column& c : cols) h += fmt::format("<th{}>{}</th>", flags.count(c.name) ? " class=\"flag\"" : "", html_escape(c.name));
  h += "</tr>\n";
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    h += "<tr>";
    for (const Column& c : cols) h += "<td>" + html_escape(c.cells[i]) + "</td>";
    h += "</tr>\n";
  }
  h += "</table></div>\n<p class=\"small\">success rate: tasks with a correct generated kernel and P &gt; 1; fast<sub>p</sub>: share of the "
       "tasks with a correct generated kernel and P &gt; p; agent cells: input / output tokens and cost; wall time: active time over "
       "all sessions.</p>\n";

  mskb::ChartOptions o;
  o.title = "fast_p per run";
  o.x_label = "p (speedup threshold over the baseline)";
  o.y_label = "share of tasks";
  o.log_x = o.log_y = false;
  o.width = 640;
  std::vector<mskb::ChartSeries> series;
  std::size_t i = 0;
  for (const json& r : doc["runs"]) {
    mskb::ChartSeries s;
    s.name = r.value("label", "");
    s.color = mskb::palette_color(i++);
    const json& u = r["suite"];
    for (const auto& [p, key] : {std::pair<double, const char*>{1.0, "fast_1"}, {1.5, "fast_1_5"}, {2.0, "fast_2"}})
      if (u.contains(key) && u[key].is_number())
        s.points.push_back({p, u[key].get<double>(), fmt::format("{}: fast_{} = {:.0f}%", r.value("label", ""), p, 100 * u[key].get<double>())});
    series.push_back(s);
  }
  h += "<h2>fast<sub>p</sub></h2>\n" + inline_svg(mskb::svg_chart(o, series));
  h += "<h2>Tasks</h2>\n<table><tr><th>task</th>";
  for (const json& r : doc["runs"]) h += "<th>" + html_escape(r.value("label", "")) + "</th>";
  h += "</tr>\n";
  std::vector<std::string> keys;
  for (const json& r : doc["runs"])
    for (const json& t : r["tasks"]) {
      const std::string k = t.value("task", "") + " " + t.value("precision", "");
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  for (const std::string& k : keys) {
    h += "<tr><td>" + html_escape(k) + "</td>";
    for (const json& r : doc["runs"]) {
      std::string cell = "-";
      for (const json& t : r["tasks"])
        if (t.value("task", "") + " " + t.value("precision", "") == k)
          cell = fmt::format("P {} (vs vendor {}), {}", num(t.value("p", json())), num(t.value("vs_vendor", json())), t.value("status", ""));
      h += "<td>" + html_escape(cell) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n<p class=\"small\">Generated by <code>cudamaster compare</code> from the run store.</p>\n</body></html>\n";
  return h;
}

}  // namespace cudamaster::loop

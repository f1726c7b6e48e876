// `mskb report`'s field check (mskb/report/fields.hpp) against what the renderers really need: every
// field of committed reports (each path, in every entry at once) is deleted, set to null and set to
// a string, and the report rendered as `mskb report` renders it (overview, HTML, CSV, Markdown).
// - A deletion or change the renderers cannot take is named by report_field_problems (the field's
//   name appears), so `mskb report` refuses it up front with the field named.
// - A deletion report_field_problems flags makes the renderers fail too (the check refuses no
//   report that would render): the list is what the renderers need, no more.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/report/csv.hpp"
#include "mskb/report/fields.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"

using json = nlohmann::json;

namespace {

json load(const std::string& relative) {
  std::ifstream f(std::string(MSKB_TEST_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(f.good()) << relative;
  return json::parse(f);
}

// Renders as `mskb report` does; "" when it worked, else what was thrown.
std::string render_error(const json& run) {
  try {
    const json data = mskb::run_report_data(run);
    (void)mskb::render_run_html(data, "r.json");
    (void)mskb::render_run_csv(data);
    (void)mskb::render_run_text(data);
    (void)mskb::render_markdown(run);
    return "";
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

using Path = std::vector<std::string>;  // keys, "[]" for every element of an array

void collect(const json& x, Path& at, std::set<Path>& out) {
  if (x.is_object()) {
    for (auto it = x.begin(); it != x.end(); ++it) {
      at.push_back(it.key());
      out.insert(at);
      collect(it.value(), at, out);
      at.pop_back();
    }
  } else if (x.is_array()) {
    at.push_back("[]");
    for (const json& v : x) collect(v, at, out);
    at.pop_back();
  }
}

enum class Change { remove, null, string };

// Applies `change` to the field at `path` in every place it is.
void apply(json& x, const Path& path, std::size_t i, Change change) {
  if (i >= path.size()) return;
  if (path[i] == "[]") {
    if (x.is_array())
      for (json& v : x) apply(v, path, i + 1, change);
    return;
  }
  if (!x.is_object() || !x.contains(path[i])) return;
  if (i + 1 < path.size()) return apply(x[path[i]], path, i + 1, change);
  if (change == Change::remove) x.erase(path[i]);
  else if (change == Change::null) x[path[i]] = nullptr;
  else x[path[i]] = "x";
}

std::string text_of(const Path& p) {
  std::string s;
  for (const std::string& k : p) s += (k == "[]" ? std::string("[]") : (s.empty() ? "" : ".") + k);
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " | ") + x;
  return s;
}

class ReportFields : public ::testing::TestWithParam<const char*> {};

TEST_P(ReportFields, TheCheckNamesExactlyWhatTheRenderersNeed) {
  const json original = load(GetParam());
  ASSERT_EQ(render_error(original), "") << "the committed report renders";
  ASSERT_TRUE(mskb::report_field_problems(original).empty()) << joined(mskb::report_field_problems(original));
  std::set<Path> paths;
  Path at;
  collect(original, at, paths);
  int needed = 0;
  for (const Path& p : paths) {
    // Without "device" or "contenders" a document is not a report at all (numbers.cpp says so).
    if (p.size() == 1 && (p[0] == "device" || p[0] == "contenders")) continue;
    for (const Change c : {Change::remove, Change::null, Change::string}) {
      json run = original;
      apply(run, p, 0, c);
      const std::string error = render_error(run);
      const std::vector<std::string> problems = mskb::report_field_problems(run, 1000);
      const char* how = c == Change::remove ? "deleted" : c == Change::null ? "null" : "a string";
      if (!error.empty()) {
        ++needed;
        const std::string leaf = p.back();
        bool named = false;
        for (const std::string& s : problems) named = named || s.find("\"" + leaf + "\"") != std::string::npos || s.find("." + leaf + " ") != std::string::npos ||
                                                   s.find(leaf + ": ") != std::string::npos || s.find(leaf + "[") != std::string::npos;
        EXPECT_TRUE(named) << text_of(p) << " " << how << ": the renderers fail (" << error << ") but the check says: " << joined(problems);
      } else if (c == Change::remove) {
        EXPECT_TRUE(problems.empty()) << text_of(p) << " deleted: the report renders, yet the check refuses it: " << joined(problems);
      }
    }
  }
  EXPECT_GT(needed, 10) << "too few fields the renderers need: the test no longer tests";
}

INSTANTIATE_TEST_SUITE_P(CommittedReports, ReportFields,
                         ::testing::Values("tests/fixtures/yardsticks_suite.json", "tests/fixtures/h200/run_pointwise_first_plan.json",
                                           "docs/results/h200/walkthrough/bias_gelu_run_233b37a.json",
                                           "docs/results/h200/throughput/check_wrong_changed_4f74e6f.json"));

TEST(ReportFieldsMessage, NamesTheEntryAndStopsAtItsLimit) {
  json run = load("tests/fixtures/yardsticks_suite.json");
  ASSERT_GE(run["results"].size(), 3u);
  for (int i = 0; i < 3; ++i) run["results"][i].erase("sweep");
  run["results"][0]["time_us"]["median"] = "12";
  const std::vector<std::string> p = mskb::report_field_problems(run, 2);
  ASSERT_EQ(p.size(), 3u) << joined(p);
  const std::string about = " (" + run["results"][0]["task"].get<std::string>() + " " + run["results"][0]["precision"].get<std::string>() +
                            " " + run["results"][0]["contender"].get<std::string>() + ")";
  EXPECT_EQ(p[0], "results[0]" + about + ": no \"sweep\"");
  EXPECT_EQ(p[1], "results[0].time_us.median" + about + ": a string, not a number");
  EXPECT_EQ(p[2], "2 more");
}

}  // namespace

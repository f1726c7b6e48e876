// The CSV parser against every captured export: kernel counts, every cell typed, values in base
// units, and the CSV corner cases (quotes, commas inside quotes, the units row, ncu's own lines).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cudamaster/profile/metrics.hpp"
#include "support/profile_fixtures.hpp"

using namespace cudamaster::profile;
using cmprof_test::fixture;
using cmprof_test::fixture_facts;

namespace {

std::string read(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(ParseNumber, GroupedAndPlain) {
  EXPECT_DOUBLE_EQ(*parse_number("4,129,851,149,756.86"), 4129851149756.86);
  EXPECT_DOUBLE_EQ(*parse_number("776,512"), 776512);
  EXPECT_DOUBLE_EQ(*parse_number("85.83"), 85.83);
  EXPECT_DOUBLE_EQ(*parse_number("-0.00"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_number("1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(*parse_number(" 12 "), 12);
  EXPECT_FALSE(parse_number("(256, 1, 1)"));
  EXPECT_FALSE(parse_number("1,23"));     // not a thousands grouping
  EXPECT_FALSE(parse_number("12,3456"));
  EXPECT_FALSE(parse_number("n/a"));
  EXPECT_FALSE(parse_number("no data"));
  EXPECT_FALSE(parse_number("nan"));
  EXPECT_FALSE(parse_number("PolicySpread"));
  EXPECT_TRUE(is_missing_cell("n/a"));
  EXPECT_TRUE(is_missing_cell("no data"));
  EXPECT_TRUE(is_missing_cell(""));
}

TEST(ParseCsv, QuotesCommasUnitsAndNcuLines) {
  const std::string csv =
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Kernel Name\",\"Block Size\",\"gpu__time_duration.sum\",\"a.pct\",\"b\"\r\n"
      "\"\",\"\",\"\",\"ns\",\"%\",\"\"\r\n"
      "\"0\",\"k<int, 2>(float *, \"\"x\"\")\",\"(256, 1, 1)\",\"1,000\",\"n/a\",\"text, with comma\"\r\n"
      "==WARNING== something\n"
      "\"1\",\"k2\",\"(32, 1, 1)\",\"3,000\",\"50\",\"t\"\n";
  const ProfileData d = parse_ncu_csv(csv);
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(d.kernels[0].name, "k<int, 2>(float *, \"x\")");
  EXPECT_EQ(d.kernels[0].block, "(256, 1, 1)");
  EXPECT_DOUBLE_EQ(d.kernels[0].duration_ns, 1000);
  EXPECT_EQ(d.kernels[0].find("a.pct")->kind, ValueKind::missing);
  EXPECT_EQ(d.kernels[0].find("a.pct")->unit, "%");
  EXPECT_EQ(d.kernels[0].find("b")->raw, "text, with comma");
  EXPECT_EQ(d.kernels[0].find("b")->kind, ValueKind::text);
  EXPECT_DOUBLE_EQ(d.total_duration_ns, 4000);
  // Aggregate: time summed, percentages weighted by duration over the kernels that have them.
  EXPECT_DOUBLE_EQ(*d.aggregate.number("gpu__time_duration.sum"), 4000);
  EXPECT_DOUBLE_EQ(*d.aggregate.number("a.pct"), 50);
  EXPECT_EQ(d.aggregate.find("b")->raw, "(varies)");
  EXPECT_EQ(d.aggregate.name, "2 kernels");
}

TEST(ParseCsv, RejectsMalformedExports) {
  EXPECT_THROW(parse_ncu_csv("hello\n"), ProfileError);
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"x\"\n\"\",\"\"\n"), ProfileError);           // no kernel row
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"x\"\n\"\",\"\"\n\"0\",\"1\",\"2\"\n"), ProfileError);  // ragged row
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"x\"\n\"0\",\"unterminated\n"), ProfileError);
}

// Found by tests/fuzz (ncu_csv): an ID of 3e68 was converted to a launch number (undefined
// behaviour). An ID that is not a launch number leaves the row without one, like a text ID.
TEST(ParseCsv, AnIdThatIsNoLaunchNumberIsNotConverted) {
  const std::string head = "\"ID\",\"Kernel Name\"\n\"\",\"\"\n";
  EXPECT_EQ(parse_ncu_csv(head + "\"7\",\"k\"\n").kernels[0].id, 7);
  for (const char* id : {"3e68", "-1", "2.5", "x"}) EXPECT_EQ(parse_ncu_csv(head + "\"" + id + "\",\"k\"\n").kernels[0].id, -1) << id;
}

TEST(ParseCsv, WeightedAggregateOfRealMultiKernelExport) {
  const ProfileData d = load_ncu_csv(fixture("pointer_chase.csv"));
  ASSERT_EQ(d.kernels.size(), 2u);
  const double w0 = d.kernels[0].duration_ns / d.total_duration_ns, w1 = d.kernels[1].duration_ns / d.total_duration_ns;
  const char* m = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  const char* pct = d.kernels[0].number(m) ? m : "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
  EXPECT_NEAR(*d.aggregate.number(pct), w0 * *d.kernels[0].number(pct) + w1 * *d.kernels[1].number(pct), 1e-9);
  EXPECT_DOUBLE_EQ(*d.aggregate.number("inst_executed"), *d.kernels[0].number("inst_executed") + *d.kernels[1].number("inst_executed"));
  EXPECT_DOUBLE_EQ(*d.aggregate.number("gpu__time_duration.sum"), d.total_duration_ns);
  EXPECT_GT(w1, 0.9);  // the chase dominates the entry point's time
  // Launch settings are the longest kernel's, not a mean of two different launches.
  EXPECT_DOUBLE_EQ(*d.aggregate.number("launch__grid_size"), *d.kernels[1].number("launch__grid_size"));
  EXPECT_DOUBLE_EQ(*d.aggregate.number("launch__occupancy_limit_registers"),
                   *d.kernels[1].number("launch__occupancy_limit_registers"));
}

// Every cell of every export is accounted for: numbers parse to the value a plain reading of the
// cell gives, text stays text, and only unit-less columns hold text.
TEST(ParseCsv, EveryFixtureEveryMetric) {
  const std::regex number_re(R"(^-?[0-9][0-9,]*(\.[0-9]+)?$)");
  const std::set<std::string> text_columns = {"Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size",
                                              "device__attribute_confidential_computing_mode",
                                              "device__attribute_display_name", "launch__cluster_scheduling_policy",
                                              "launch__func_cache_config", "launch__tpc_enabled"};
  for (const auto& f : fixture_facts()) {
    SCOPED_TRACE(f.name);
    const std::string path = fixture(std::string(f.name) + ".csv");
    const ProfileData d = load_ncu_csv(path);
    ASSERT_EQ(d.kernels.size(), f.kernels);
    const auto records = parse_csv_records(read(path));
    ASSERT_EQ(records.size(), f.kernels + 2);  // header, units, one row per kernel
    const auto& header = records[0];
    std::size_t numbers = 0, texts = 0, missing = 0;
    for (std::size_t k = 0; k < d.kernels.size(); ++k) {
      const KernelProfile& kp = d.kernels[k];
      ASSERT_EQ(kp.metrics.size(), header.size());
      EXPECT_GT(kp.duration_ns, 0);
      EXPECT_FALSE(kp.name.empty());
      for (std::size_t c = 0; c < header.size(); ++c) {
        const Metric* m = kp.find(header[c]);
        ASSERT_NE(m, nullptr) << header[c];
        const std::string& cell = records[k + 2][c];
        EXPECT_EQ(m->raw, cell);
        EXPECT_EQ(m->unit, records[1][c]);
        if (std::regex_match(cell, number_re)) {
          ASSERT_EQ(m->kind, ValueKind::number) << header[c] << " = " << cell;
          std::string plain;
          for (char ch : cell)
            if (ch != ',') plain.push_back(ch);
          EXPECT_DOUBLE_EQ(m->value, std::stod(plain)) << header[c];
          ++numbers;
        } else if (cell == "no data" || cell == "n/a" || cell.empty()) {
          EXPECT_EQ(m->kind, ValueKind::missing) << header[c];
          ++missing;
        } else {
          EXPECT_EQ(m->kind, ValueKind::text) << header[c] << " = " << cell;
          EXPECT_TRUE(text_columns.count(header[c])) << "unexpected text in " << header[c] << ": " << cell;
          ++texts;
        }
      }
    }
    EXPECT_GT(numbers, 700 * f.kernels);
    EXPECT_EQ(numbers + texts + missing, header.size() * f.kernels);
    // Identification and a few values checked by hand against the export.
    EXPECT_EQ(d.kernels[0].find("device__attribute_display_name")->raw, "NVIDIA H200");
    EXPECT_DOUBLE_EQ(*d.kernels[0].number("device__attribute_multiprocessor_count"), 132);
  }
  const ProfileData s = load_ncu_csv(fixture("stream_copy.csv"));
  EXPECT_DOUBLE_EQ(s.kernels[0].duration_ns, 776512);
  EXPECT_DOUBLE_EQ(*s.kernels[0].number("dram__bytes.sum.per_second"), 4129851149756.86);
  EXPECT_EQ(s.kernels[0].find("dram__bytes.sum.per_second")->unit, "byte/s");
  EXPECT_EQ(s.kernels[0].block, "(256, 1, 1)");
  EXPECT_EQ(s.kernels[0].grid, "(2112, 1, 1)");
  EXPECT_EQ(s.kernels[0].id, 0);
  EXPECT_EQ(s.kernels[0].name, "stream(const float4 *, const float4 *, float4 *, long long)");
}

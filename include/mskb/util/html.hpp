// Owns the pieces of self-contained HTML pages that the tools write (mskb report / compare,
// cudamaster report): escaping untrusted text, and charts as inline SVG (no scripts, no fonts, no
// network): lines and points on linear or logarithmic axes with ticks, axis labels, a legend,
// reference lines and a diagonal. Host-only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mskb {

// `text` with & < > " ' replaced by their entities: safe in element content and in quoted
// attribute values.
std::string html_escape(std::string_view text);

// A compact tick label: 1, 2.5, 0.01, 1k, 20M, 3G (SI suffixes from 1000 up).
std::string si_number(double v);

// The tick positions of a logarithmic axis over [lo, hi] (lo > 0): powers of ten, with 2 and 5
// between them when the range spans less than three decades, round linear steps when the range
// is too narrow to hold three of those; never more than ~12.
std::vector<double> log_ticks(double lo, double hi);
// "Nice" ticks (1, 2, 5 x 10^k steps) of a linear axis over [lo, hi].
std::vector<double> linear_ticks(double lo, double hi);

struct ChartPoint {
  double x = 0, y = 0;
  std::string tip;  // hover text (an SVG <title>); escaped when drawn
};

struct ChartSeries {
  std::string name;                 // legend entry (escaped when drawn); empty: not in the legend
  std::vector<ChartPoint> points;   // drawn in this order; on a log axis points <= 0 are left out
  std::string color = "#4e79a7";    // a CSS colour (not escaped: from the program, never from data)
  bool line = true;                 // join the points
  bool markers = true;              // a circle per point
  bool dashed = false;
};

struct ChartOptions {
  std::string title;                // above the plot (escaped)
  std::string x_label, y_label;     // under the x axis / along the y axis (escaped)
  bool log_x = true, log_y = true;
  int width = 560, height = 340;
  std::vector<double> y_rules;      // horizontal reference lines (e.g. y = 1), labelled with the value
  bool diagonal = false;            // y = x across the plot (scatter plots comparing two runs)
  bool same_range = false;          // x and y share one range (with diagonal: a square comparison)
};

// One <svg> element (role="img", aria-label = the title). A chart without any drawable point says
// "no data" in its plot area.
std::string svg_chart(const ChartOptions& options, const std::vector<ChartSeries>& series);

// The colour of the i-th series of a fixed palette (distinguishable, print-safe).
std::string palette_color(std::size_t i);

}  // namespace mskb

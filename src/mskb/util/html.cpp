// Escaping and inline-SVG charts for the tools' HTML pages (see html.hpp).
#include "mskb/util/html.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mskb {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string si_number(double v) {
  if (!std::isfinite(v)) return "-";
  static const char* const suffix[] = {"", "k", "M", "G", "T", "P"};
  double a = std::fabs(v);
  int i = 0;
  while (a >= 1000.0 && i < 5) {
    a /= 1000.0;
    ++i;
  }
  const double scaled = v < 0 ? -a : a;
  return fmt::format("{:.3g}{}", scaled, suffix[i]);
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) return out;
  const double span = std::log10(hi / lo);
  std::vector<double> mult = {1};
  if (span < 1.2) {
    mult = {1, 1.5, 2, 3, 5, 7};
  } else if (span < 3) {
    mult = {1, 2, 5};
  }
  const int step = span > 10 ? static_cast<int>(std::ceil(span / 10)) : 1;
  const int k0 = static_cast<int>(std::floor(std::log10(lo))), k1 = static_cast<int>(std::ceil(std::log10(hi)));
  for (int k = k0 - ((k0 % step) + step) % step; k <= k1; k += step)
    for (const double m : mult) {
      const double v = m * std::pow(10.0, k);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  if (out.size() < 3) {  // a narrow range: round linear steps inside it
    out.clear();
    for (const double v : linear_ticks(lo, hi))
      if (v > 0) out.push_back(v);
  }
  return out;
}

std::vector<double> linear_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double raw = (hi - lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

std::string palette_color(std::size_t i) {
  static const char* const colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                       "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};
  return colors[i % (sizeof(colors) / sizeof(colors[0]))];
}

namespace {

// One axis: its range in data units and the mapping to pixels.
struct Axis {
  bool log = true;
  double lo = 0, hi = 0;  // data range (after padding)
  double p0 = 0, p1 = 0;  // pixels of lo and hi
  double t(double v) const { return log ? std::log10(v) : v; }
  double px(double v) const { return p0 + (t(v) - t(lo)) / (t(hi) - t(lo)) * (p1 - p0); }
};

// [lo, hi] of the values, padded by 5% of the span in the axis's own scale.
void fit(Axis& a, double lo, double hi) {
  if (!(lo <= hi)) lo = hi = a.log ? 1.0 : 0.0;
  if (a.log) {
    double l = std::log10(lo), h = std::log10(hi);
    if (h - l < 1e-9) {
      l -= 0.3;
      h += 0.3;
    }
    const double pad = (h - l) * 0.05;
    a.lo = std::pow(10.0, l - pad);
    a.hi = std::pow(10.0, h + pad);
  } else {
    if (hi - lo < 1e-12) {
      lo -= 1;
      hi += 1;
    }
    const double pad = (hi - lo) * 0.05;
    a.lo = lo - pad;
    a.hi = hi + pad;
  }
}

bool drawable(const Axis& a, double v) { return std::isfinite(v) && (!a.log || v > 0); }

// Legend entries laid out in rows under the title: (row, x offset) per named series.
struct LegendItem {
  std::size_t series;
  int row;
  double x;
};

}  // namespace

std::string svg_chart(const ChartOptions& o, const std::vector<ChartSeries>& series) {
  const double left = 66, right = 18, bottom = 46;
  // Legend rows (about 6.6 px per character at 11 px).
  std::vector<LegendItem> legend;
  double lx = left;
  int row = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].name.empty()) continue;
    const double w = 30 + 6.6 * static_cast<double>(series[i].name.size());
    if (lx + w > o.width - right && lx > left) {
      ++row;
      lx = left;
    }
    legend.push_back({i, row, lx});
    lx += w + 12;
  }
  const double top = 30 + (legend.empty() ? 0 : 16.0 * (row + 1));

  Axis ax, ay;
  ax.log = o.log_x;
  ay.log = o.log_y;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  std::size_t n = 0;
  for (const auto& s : series)
    for (const auto& p : s.points)
      if (drawable(ax, p.x) && drawable(ay, p.y)) {
        xlo = std::min(xlo, p.x);
        xhi = std::max(xhi, p.x);
        ylo = std::min(ylo, p.y);
        yhi = std::max(yhi, p.y);
        ++n;
      }
  if (n > 0)
    for (const double r : o.y_rules)
      if (drawable(ay, r)) {
        ylo = std::min(ylo, r);
        yhi = std::max(yhi, r);
      }
  if (o.same_range && n > 0) {
    xlo = ylo = std::min(xlo, ylo);
    xhi = yhi = std::max(xhi, yhi);
  }
  fit(ax, xlo, xhi);
  fit(ay, ylo, yhi);
  ax.p0 = left;
  ax.p1 = o.width - right;
  ay.p0 = o.height - bottom;
  ay.p1 = top;

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"system-ui,sans-serif\" font-size=\"11\">",
      o.width, o.height, html_escape(o.title));
  s += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"13\" font-weight=\"600\" fill=\"#1d2330\">{}</text>", left, html_escape(o.title));
  for (const LegendItem& it : legend) {
    const ChartSeries& se = series[it.series];
    const double y = 30 + 16.0 * it.row + 4;
    if (se.line)
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"{}/>", it.x, y,
                       it.x + 22, y, se.color, se.dashed ? " stroke-dasharray=\"5 3\"" : "");
    if (se.markers) s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", it.x + 11, y, se.color);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#1d2330\">{}</text>", it.x + 27, y + 4, html_escape(se.name));
  }
  // Frame, grid and ticks.
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#fff\" stroke=\"#8a93a3\"/>", ax.p0, ay.p1,
                   ax.p1 - ax.p0, ay.p0 - ay.p1);
  const std::vector<double> xt = ax.log ? log_ticks(ax.lo, ax.hi) : linear_ticks(ax.lo, ax.hi);
  const std::vector<double> yt = ay.log ? log_ticks(ay.lo, ay.hi) : linear_ticks(ay.lo, ay.hi);
  for (const double v : xt) {
    const double x = ax.px(v);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e6e9ef\"/>", x, ay.p1, ay.p0);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#8a93a3\"/>", x, ay.p0, ay.p0 + 4);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#3a4150\">{}</text>", x, ay.p0 + 16, si_number(v));
  }
  for (const double v : yt) {
    const double y = ay.px(v);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e6e9ef\"/>", ax.p0, y, ax.p1);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#8a93a3\"/>", ax.p0 - 4, y, ax.p0);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#3a4150\">{}</text>", ax.p0 - 7, y + 4, si_number(v));
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#1d2330\">{}</text>", (ax.p0 + ax.p1) / 2,
                   static_cast<double>(o.height) - 8, html_escape(o.x_label));
  s += fmt::format("<text transform=\"translate(14 {:.1f}) rotate(-90)\" text-anchor=\"middle\" fill=\"#1d2330\">{}</text>",
                   (ay.p0 + ay.p1) / 2, html_escape(o.y_label));
  if (n == 0) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#5a6272\">no data</text></svg>", (ax.p0 + ax.p1) / 2,
                     (ay.p0 + ay.p1) / 2);
    return s;
  }
  for (const double r : o.y_rules) {
    if (!drawable(ay, r)) continue;
    const double y = ay.px(r);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>", ax.p0, y,
                     ax.p1);
  }
  if (o.diagonal) {
    const double lo = std::max(ax.lo, ay.lo), hi = std::min(ax.hi, ay.hi);
    if (lo < hi)
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#8a93a3\" stroke-dasharray=\"4 3\"/>", ax.px(lo),
                       ay.px(lo), ax.px(hi), ay.px(hi));
  }
  for (const auto& se : series) {
    std::string path;
    std::string marks;
    for (const auto& p : se.points) {
      if (!drawable(ax, p.x) || !drawable(ay, p.y)) continue;
      const double x = ax.px(p.x), y = ay.px(p.y);
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x, y);
      if (se.markers) {
        marks += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\">", x, y, se.color);
        if (!p.tip.empty()) marks += "<title>" + html_escape(p.tip) + "</title>";
        marks += "</circle>";
      }
    }
    if (path.empty()) continue;
    s += "<g>";
    if (se.line)
      s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{}/>", path, se.color,
                       se.dashed ? " stroke-dasharray=\"5 3\"" : "");
    s += marks + "</g>";
  }
  return s + "</svg>";
}

}  // namespace mskb

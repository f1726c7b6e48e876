// What the agents and the progress lines are told: the compiler's and the harness's verdicts as
// the Debug agent reads them, and small text helpers of the job.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "job.hpp"
#include "mskb/util/files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::loop::detail {

void write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (fs::exists(path, ec)) {
    try {
      if (read_text(path) == text) return;
    } catch (const std::exception&) {
    }
  }
  mskb::write_file_atomic(path, text);
}

std::string tokens(std::int64_t n) {
  if (n < 1000) return std::to_string(n);
  return fmt::format("{:.1f}k", static_cast<double>(n) / 1000.0);
}

std::string fmt_p(const std::optional<double>& p) { return p ? fmt::format("{:.2f}", *p) : std::string("-"); }

std::string first_error(const mskb::CompileResult& b) {
  for (const mskb::Diagnostic& d : b.diagnostics)
    if (d.severity == "error")
      return d.line > 0 ? fmt::format("{}:{}: {}", fs::path(d.file).filename().string(), d.line, d.message) : d.message;
  return b.error;
}

std::string tail(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (std::size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

std::string compile_report(const mskb::CompileResult& b) {
  std::string out;
  int n = 0;
  for (const mskb::Diagnostic& d : b.diagnostics) {
    if (d.severity != "error") continue;
    if (++n > 15) break;
    out += d.line > 0 ? fmt::format("{}:{}: error: {}\n", fs::path(d.file).filename().string(), d.line, d.message)
                      : fmt::format("error: {}\n", d.message);
  }
  if (out.empty()) out = b.error + "\n\n" + tail(b.log, 30);
  return "The build failed. Compiler errors:\n" + out;
}

namespace {

// A failure on a held-out input (its details stay undisclosed).
bool heldout_failure(const json& f) {
  return f.is_object() && mskb::from_string<mskb::Sweep>(f.value("sweep", "")) == mskb::Sweep::heldout;
}

std::string num(const json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_number()) return v.dump();
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::string harness_report(const mskb::ContenderResult& r) {
  const std::string disposition = mskb::to_string(r.disposition);
  std::string out = "Disposition: " + disposition + "\n";
  const json& f = r.failure;
  const bool heldout = heldout_failure(f);
  const json detail = f.is_object() && f.contains("detail") ? f["detail"] : json();
  if (heldout) {
    out += "Where: a held-out correctness input (its size and seed are not disclosed; held-out inputs include odd and "
           "non-power-of-two sizes, other widths and skewed data, all within the task statement)\n";
    if (detail.is_object()) {
      const double checked = detail.value("checked", 0.0);
      const double bad = detail.value("mismatches", 0.0);
      if (checked > 0) out += fmt::format("What: {:.3g}% of the elements of '{}' are wrong", 100.0 * bad / checked, detail.value("param", ""));
      if (detail.value("unwritten", 0) > 0) out += " (some were never written)";
      if (detail.value("nans", 0) > 0) out += " (some are NaN)";
      out += "\n";
      if (detail.contains("max_err_over_tol")) out += "Largest error: " + num(detail["max_err_over_tol"]) + " times the tolerance\n";
      if (detail.contains("first_mismatches")) {
        out += "First mismatches (got vs expected):";
        for (const json& m : detail["first_mismatches"]) out += " " + num(m.value("got", json())) + " vs " + num(m.value("want", json())) + ";";
        out += "\n";
      }
      if (detail.contains("message") && checked <= 0) out += "What: " + detail.value("message", "") + "\n";
    } else if (!f.is_null()) {
      out += "What: " + disposition + "\n";
    }
  } else {
    out += "Message: " + r.message + "\n";
    if (f.is_object() && f.contains("shape_str"))
      out += fmt::format("Where: {} size {}, seed {}\n", f.value("sweep", ""), f.value("shape_str", ""), f.value("seed", 0));
    if (detail.is_object() && detail.contains("first_mismatches")) {
      out += fmt::format("Tolerance: |out - ref| <= {} + {} * |ref|; largest error {} ({} times the tolerance)\n",
                         num(detail.value("atol", json(0))), num(detail.value("rtol", json(0))),
                         num(detail.value("max_abs_err", json(0))), num(detail.value("max_err_over_tol", json(0))));
      out += "First mismatches (index: got vs expected):";
      for (const json& m : detail["first_mismatches"])
        out += " " + num(m.value("index", json(0))) + ": " + num(m.value("got", json())) + " vs " + num(m.value("want", json())) + ";";
      out += "\n";
    }
  }
  out += fmt::format("Checks passed before the failure: {} of {}\n", r.checks_passed, r.checks_total);
  const bool crashed = r.disposition == mskb::Disposition::crashed || r.disposition == mskb::Disposition::launch_error ||
                       r.disposition == mskb::Disposition::timeout;
  if (crashed && !r.log_tail.empty()) out += "Last lines of the runner's log:\n" + tail(r.log_tail, 12);
  return out;
}

std::string short_verdict(const mskb::ContenderResult& r) {
  const json& f = r.failure;
  if (heldout_failure(f)) return mskb::to_string(r.disposition) + " on a held-out input";
  return one_line(r.message.empty() ? mskb::to_string(r.disposition) : r.message, 140);
}

std::string flag_whitelist() {
  return "-O0..-O3, -use_fast_math, -lineinfo, -Xptxas=-v, -Xptxas=-O0..3, --extra-device-vectorization, "
         "-maxrregcount=N, -ftz=true|false, -prec-div=true|false, -prec-sqrt=true|false, -fmad=true|false, "
         "--expt-relaxed-constexpr, --expt-extended-lambda, -DNAME[=VALUE], -Xptxas=-dlcm=ca|cg, --restrict, -std=c++17|c++20";
}

std::string policy_report(const mskb::CompileResult& b) {
  std::string out = "The binary policy refused the built object (disposition rejected_static). It reads the compiled "
                    "shared object, so macros or token pasting do not change its verdict:\n";
  for (const auto& v : b.policy_violations) out += "  - " + v.describe() + "\n";
  out += "Use the CUDA runtime on the caller's (default) stream and plain C/C++ only: no streams, graphs, host callbacks "
         "or threads, no files, environment, dynamic loading, driver API or raw system calls.";
  return out;
}

}  // namespace cudamaster::loop::detail

#include "mskb/harness/diagnostics.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace fs = std::filesystem;

namespace mskb {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(l);
  }
  return out;
}

// Line `n` (1-based) of a source file, tabs as spaces (as the frontend quotes it); false when the
// file cannot be read or is shorter.
bool source_line(const std::string& file, int n, std::string& out) {
  std::error_code ec;
  if (n <= 0 || !fs::is_regular_file(file, ec)) return false;
  std::ifstream in(file);
  std::string l;
  for (int i = 0; i < n; ++i)
    if (!std::getline(in, l)) return false;
  if (!l.empty() && l.back() == '\r') l.pop_back();
  for (char& c : l)
    if (c == '\t') c = ' ';
  out = l;
  return true;
}

// The column of a frontend diagnostic from its quoted line and caret (cudafe++ quotes the line
// after two spaces, the caret under the token). 0 when the caret cannot be placed in the source.
int caret_column(const std::string& file, int line, const std::string& quoted, const std::string& caret) {
  const std::size_t at = caret.find('^');
  if (at == std::string::npos || quoted.size() < 2 || quoted.compare(0, 2, "  ") != 0 || at < 2) return 0;
  const std::string shown = quoted.substr(2);
  const std::size_t col = at - 2;  // 0-based in the quoted line
  if (col > shown.size()) return 0;
  std::string src;
  if (!source_line(file, line, src)) return static_cast<int>(col) + 1;  // the log alone: as quoted
  if (src == shown) return static_cast<int>(col) + 1;
  // The quoted line is the preprocessed one (a macro such as __global__ expanded before the
  // caret): place the caret by the text after it, when the source ends with that text.
  const std::string after = shown.substr(col);
  if (!after.empty() && src.size() >= after.size() && src.compare(src.size() - after.size(), after.size(), after) == 0)
    return static_cast<int>(src.size() - after.size()) + 1;
  return 0;
}

std::string severity_of(const std::string& s) {
  if (s == "remark") return "note";
  if (s == "fatal error" || s == "catastrophic error" || s == "internal error" || s == "fatal") return "error";
  return s;
}

}  // namespace

std::vector<Diagnostic> parse_nvcc_diagnostics(const std::string& log) {
  // cudafe++:     file.cu(12): error: msg          file.cu(3): warning #177-D: msg
  //               (then the quoted source line and a caret line)
  // host compiler: file.cu:12:5: error: msg        file.cu:12: error: msg
  // ptxas/nvlink/nvcc: ptxas error   : msg         ptxas /tmp/x.ptx, line 30; error   : msg
  // ld:           file.o: undefined reference to `x'
  static const std::regex nv(R"(^(.+?)\((\d+)\): (catastrophic error|internal error|error|warning|remark|note)[^:]*: (.*)$)");
  static const std::regex gcc(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)");
  static const std::regex ptx(R"(^(ptxas) (.+), line (\d+); (error|fatal|warning)\s*: (.*)$)");
  static const std::regex tool(R"(^(ptxas|nvlink|nvcc) (error|fatal|warning)\s*: (.*)$)");
  static const std::regex ld(R"(^(.*)(undefined reference to .*)$)");
  static const std::regex caret(R"(^ *\^ *$)");
  std::vector<Diagnostic> out;
  std::set<std::tuple<std::string, int, int, std::string, std::string>> seen;
  auto add = [&](Diagnostic d) {
    if (seen.insert({d.file, d.line, d.column, d.severity, d.message}).second) out.push_back(std::move(d));
  };
  const std::vector<std::string> lines = lines_of(log);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::smatch m;
    if (std::regex_match(line, m, nv)) {
      Diagnostic d{m[1], std::stoi(m[2]), severity_of(m[3]), m[4]};
      if (i + 2 < lines.size() && std::regex_match(lines[i + 2], caret)) d.column = caret_column(d.file, d.line, lines[i + 1], lines[i + 2]);
      add(std::move(d));
    } else if (std::regex_match(line, m, gcc)) {
      Diagnostic d{m[1], std::stoi(m[2]), severity_of(m[4]), m[5]};
      if (m[3].matched) d.column = std::stoi(m[3]);
      add(std::move(d));
    } else if (std::regex_match(line, m, ptx)) {
      add({"ptxas", 0, severity_of(m[4]), "PTX line " + m[3].str() + ": " + m[5].str()});
    } else if (std::regex_match(line, m, tool)) {
      add({m[1], 0, severity_of(m[2]), m[3]});
    } else if (std::regex_match(line, m, ld)) {
      add({"(link)", 0, "error", m[2]});
    }
  }
  return out;
}

std::string display_path(const std::string& file) {
  const fs::path p(file);
  if (!p.is_absolute()) return file;  // a tool's name, "(link)", or already relative
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return file;
  const fs::path rel = p.lexically_normal().lexically_relative(cwd);
  if (rel.empty()) return file;
  // Up to the root and down again: the absolute path says it better.
  std::size_t ups = 0, depth = 0;
  for (const auto& part : rel)
    if (part == "..") ++ups;
  for (const auto& part : cwd.relative_path())
    if (!part.empty()) ++depth;
  if (ups > 0 && ups >= depth) return p.lexically_normal().string();
  return rel.string();
}

std::string format_diagnostic(const Diagnostic& d) {
  if (d.line <= 0) return (d.file.empty() ? std::string() : display_path(d.file) + ": ") + d.severity + ": " + d.message;
  return display_path(d.file) + ":" + std::to_string(d.line) + (d.column > 0 ? ":" + std::to_string(d.column) : "") + ": " + d.severity +
         ": " + d.message;
}

nlohmann::json diagnostic_json(const Diagnostic& d) {
  nlohmann::json j = {{"file", display_path(d.file)}, {"line", d.line}};
  if (d.column > 0) j["column"] = d.column;
  j["severity"] = d.severity;
  j["message"] = d.message;
  return j;
}

std::size_t count_severity(const std::vector<Diagnostic>& diagnostics, const std::string& severity) {
  std::size_t n = 0;
  for (const auto& d : diagnostics) n += d.severity == severity ? 1 : 0;
  return n;
}

std::string demangle(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> s(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && s ? std::string(s.get()) : symbol;
}

std::vector<FunctionResources> parse_resource_usage(const std::string& log) {
  // ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_90'
  // ptxas info    : Function properties for _Z1kPfi
  //     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  // ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]
  static const std::regex compiling(R"(^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex properties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const std::regex frame(R"(^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(^ptxas info\s*: Used (\d+) registers)");
  static const std::regex barriers(R"((\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<FunctionResources> out;
  std::map<std::string, std::size_t> index;
  auto function = [&](const std::string& symbol) -> FunctionResources& {
    const auto it = index.find(symbol);
    if (it != index.end()) return out[it->second];
    index[symbol] = out.size();
    FunctionResources f;
    f.symbol = symbol;
    f.name = demangle(symbol);
    out.push_back(f);
    return out.back();
  };
  std::string current;     // the entry function being compiled (its "Used" line follows)
  std::string properties_of;  // the function whose stack/spill line comes next
  for (const std::string& line : lines_of(log)) {
    std::smatch m;
    if (std::regex_search(line, m, compiling)) {
      current = m[1];
      FunctionResources& f = function(current);
      f.entry = true;
      f.arch = m[2];
    } else if (std::regex_search(line, m, properties)) {
      properties_of = m[1];
      (void)function(properties_of);
    } else if (!properties_of.empty() && std::regex_search(line, m, frame)) {
      FunctionResources& f = function(properties_of);
      f.stack_bytes = std::stol(m[1]);
      f.spill_store_bytes = std::stol(m[2]);
      f.spill_load_bytes = std::stol(m[3]);
      properties_of.clear();
    } else if (!current.empty() && std::regex_search(line, m, used)) {
      FunctionResources& f = function(current);
      f.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers)) f.barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem)) f.shared_bytes = std::stol(m[1]);
      if (std::regex_search(line, m, cmem)) f.constant_bytes = std::stol(m[1]);
      current.clear();
    }
  }
  return out;
}

nlohmann::json resource_usage_json(const std::vector<FunctionResources>& functions) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : functions) {
    nlohmann::json j = {{"symbol", f.symbol},
                        {"name", f.name},
                        {"entry", f.entry},
                        {"stack_bytes", f.stack_bytes},
                        {"spill_store_bytes", f.spill_store_bytes},
                        {"spill_load_bytes", f.spill_load_bytes}};
    if (f.entry) {
      j["arch"] = f.arch;
      j["registers"] = f.registers;
      j["barriers"] = f.barriers;
      j["shared_bytes"] = f.shared_bytes;
      j["constant_bytes"] = f.constant_bytes;
    }
    a.push_back(std::move(j));
  }
  return a;
}

}  // namespace mskb

#include "mskb/harness/entry_points.hpp"

#include <algorithm>
#include <filesystem>

#include "mskb/core/task_file.hpp"
#include "mskb/harness/diagnostics.hpp"  // demangle
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace mskb {

std::vector<EntryPoint> task_entry_points(const TaskSpec& spec) {
  const std::vector<Precision> precisions = spec.file ? spec.file->precisions : std::vector<Precision>{Precision::fp32, Precision::bf16};
  std::vector<EntryPoint> out;
  for (Precision p : precisions) out.push_back({spec.symbol(p), spec.signature(p)});
  return out;
}

std::string missing_entry(const std::string& kernel, const std::vector<std::string>& exported, const std::vector<EntryPoint>& entries,
                          const std::string& whose) {
  if (entries.empty()) return "";
  for (const EntryPoint& e : entries)
    if (std::find(exported.begin(), exported.end(), e.symbol) != exported.end()) return "";
  const std::string file = fs::path(kernel).filename().string();
  // The entry point compiled without extern "C": its mangled name carries the parameters.
  for (const std::string& s : exported) {
    const std::string name = demangle(s);
    if (name == s) continue;
    for (const EntryPoint& e : entries)
      if (name.rfind(e.symbol + "(", 0) == 0)
        return "missing_entry: " + file + " exports " + e.symbol + " as a C++ function, " + printable(name) + " (its name is mangled: " +
               printable(s) + "): declare it " + e.signature;  // names from the object: escaped
  }
  std::string msg = "missing_entry: " + file + " exports no entry point of " + whose;
  if (entries.size() <= 2)
    msg += ": " + entries.front().signature + (entries.size() == 2 ? " or its " + entries.back().symbol : std::string());
  else if (entries.size() <= 4)
    msg += " (" + entries.front().symbol + [&] {
      std::string more;
      for (std::size_t i = 1; i < entries.size(); ++i) more += ", " + entries[i].symbol;
      return more;
    }() + ")";
  else
    msg += " (an extern \"C\" function named after the task, NAME or NAME_bf16: mskb list NAME shows its signature)";
  // What it exports instead (C names, C++ ones demangled; the toolchain's own _-names left out),
  // and the nearest entry point to one of them.
  std::vector<std::string> shown;
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const std::string& s : exported) {
    const std::string name = demangle(s);
    if (name == s && !s.empty() && s[0] == '_') continue;
    if (shown.size() < 6) shown.push_back(name);
    const std::string base = name.substr(0, name.find('('));
    for (const EntryPoint& e : entries) {
      const std::size_t d = edit_distance(base, e.symbol);
      if (d < best && d <= std::max<std::size_t>(2, e.symbol.size() / 4)) best = d, nearest = e.symbol;
    }
  }
  msg += shown.empty() ? " (it exports no function)" : " (it exports: " + join(shown, ", ") + (nearest.empty() ? "" : "; did you mean " + nearest + "?") + ")";
  return msg;
}

}  // namespace mskb

#include "mskb/harness/build_sandbox.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace mskb {

std::string screen_host_file_references(const std::string& source) {
  // An include of an absolute path or one that climbs out (`..`), an assembler .incbin, a C23
  // #embed: none has a place in a kernel file.
  static const std::regex include(R"(^\s*#\s*(include|include_next|embed)\s*[<"]([^>"]*)[>"])");
  static const std::regex incbin(R"(\.incbin\b)");
  static const std::regex embed(R"(^\s*#\s*embed\b)");
  std::istringstream in(source);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, include)) {
      const std::string path = m[2].str();
      if (m[1].str() == "embed") return "line " + std::to_string(n) + ": #embed of a file is not allowed in a kernel file";
      if (!path.empty() && path[0] == '/')
        return "line " + std::to_string(n) + ": #" + m[1].str() + " of an absolute path is not allowed in a kernel file";
      if (path == ".." || path.rfind("../", 0) == 0 || path.find("/../") != std::string::npos ||
          (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0))
        return "line " + std::to_string(n) + ": #" + m[1].str() + " of a path with '..' is not allowed in a kernel file";
    }
    if (std::regex_search(line, embed)) return "line " + std::to_string(n) + ": #embed is not allowed in a kernel file";
    if (std::regex_search(line, incbin)) return "line " + std::to_string(n) + ": .incbin (a file into the object) is not allowed in a kernel file";
  }
  return "";
}

BuildConfinement confine_build(const std::string& parent, const std::string& name, const std::string& cu_path,
                               const std::vector<std::string>& cmd, const std::vector<std::string>& extra_read) {
  BuildConfinement c;
  std::error_code ec;
  c.dir = (fs::path(parent) / name).string();
  c.tmp = c.dir + "/tmp";
  fs::create_directories(c.tmp, ec);
  if (ec) throw std::runtime_error("cannot create the build folder " + c.tmp + ": " + ec.message());
  sandbox::BuildPaths paths;
  std::set<std::string> read;
  read.insert(fs::absolute(cu_path).parent_path().string());
  for (const std::string& r : extra_read) read.insert(r);
  if (!cmd.empty()) {
    // The toolkit: nvcc's folder's parent (bin/..), after symlinks.
    const fs::path nvcc = fs::weakly_canonical(fs::path(cmd[0]), ec);
    if (!ec && nvcc.has_parent_path()) read.insert(nvcc.parent_path().parent_path().string());
  }
  for (const std::string& a : cmd)
    for (const char* flag : {"-I", "-L", "-isystem"})
      if (a.rfind(flag, 0) == 0 && a.size() > std::string(flag).size()) read.insert(a.substr(std::string(flag).size()));
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda == '/') read.insert(cuda);
  paths.read.assign(read.begin(), read.end());
  paths.write = {c.dir};
  c.rules = sandbox::LandlockRuleset(sandbox::build_rules(paths), sandbox::LandlockRuleset::Scopes{});
  if (c.rules.ok())
    c.level = "landlock-" + std::to_string(c.rules.abi());
  else
    c.level = "none (landlock: " + (c.rules.error().empty() ? std::string("not available") : c.rules.error()) + ")";
  return c;
}

std::string explain_refused_read(const std::string& log) {
  // gcc/cudafe: "file.cu:3:10: fatal error: /etc/passwd: Permission denied"; gas: "Error: can't
  // open /etc/passwd for reading: Permission denied"; "could not open ... Permission denied".
  static const std::regex denied(R"(([^\s:'"`]+)'?:? (for reading: )?Permission denied)");
  std::smatch m;
  if (!std::regex_search(log, m, denied)) return "";
  return "the build may not read " + m[1].str() +
         " (a kernel's build reads only its own folder, kernels/include and the toolkit's and system's include and library "
         "folders: docs/harness.md section 10)";
}

}  // namespace mskb

#include "mskb/harness/compiler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "mskb/harness/build_sandbox.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/process.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace mskb {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

struct LibSpec {
  const char* name;
  const char* link;
};
constexpr LibSpec kLibraries[] = {{"cublas", "-lcublas"},   {"cublasLt", "-lcublasLt"}, {"cusparse", "-lcusparse"},
                                  {"cufft", "-lcufft"},     {"cudnn", "-lcudnn"},       {"curand", "-lcurand"}};

struct LocalHeader {
  fs::path path;
  std::string text;
};

// The local headers (#include "x") a source reaches, transitively: each resolved next to the file
// that includes it, else in kernels/include (nvcc's -I), each once, in the order first met, with
// its text (read once).
std::vector<LocalHeader> include_closure(const std::string& source, const fs::path& dir, const fs::path& shared) {
  static const std::regex inc(R"(^\s*#\s*include\s*\"([^\"]+)\")");
  std::vector<LocalHeader> out;
  std::set<fs::path> seen;
  std::function<void(const std::string&, const fs::path&)> walk = [&](const std::string& text, const fs::path& from) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, inc)) continue;
      for (const fs::path& base : {from, shared}) {
        const fs::path p = (base / m[1].str()).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) continue;
        if (seen.insert(p).second) {
          out.push_back({p, read_text(p.string())});
          const std::string header = out.back().text;  // a copy: out may grow (and move) in the walk
          walk(header, p.parent_path());
        }
        break;
      }
    }
  };
  walk(source, dir);
  return out;
}

// The local headers' paths and texts: part of the key (an edit of a header, also of one a header
// includes, rebuilds).
std::string local_includes(const std::string& source, const fs::path& dir, const fs::path& shared) {
  std::string all;
  for (const LocalHeader& h : include_closure(source, dir, shared)) all += h.path.string() + "\n" + h.text;
  return all;
}

std::string arch_flag(const std::string& arch) {
  // compute_90a/sm_90a through -gencode: the -arch shorthand also runs a plain sm_90 pass.
  return "-gencode=arch=compute_" + arch + ",code=sm_" + arch;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("MSKB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mskb";
  return env_or("HOME", "/tmp") + "/.cache/mskb";
}

std::string nvcc_path() { return env_or("MSKB_NVCC", MSKB_NVCC); }

std::string find_cuda_tool(const std::string& name, const std::string& explicit_path) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (explicit_path.find('/') != std::string::npos) return executable(explicit_path) ? explicit_path : "";
  const std::string want = explicit_path.empty() ? name : explicit_path;
  if (const char* path = std::getenv("PATH")) {
    for (const std::string& dir : split(path, ':', true))
      if (executable(fs::path(dir) / want)) return (fs::path(dir) / want).string();
  }
  if (!explicit_path.empty()) return "";
  std::vector<fs::path> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(fs::path(home) / "bin");
  if (nvcc_path().find('/') != std::string::npos) dirs.push_back(fs::path(nvcc_path()).parent_path());
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (executable(d / want)) return (d / want).string();
  return "";
}

std::string nvcc_version() {
  static std::once_flag once;
  static std::string version;
  std::call_once(once, [] {
    std::string out;
    if (run_command({nvcc_path(), "--version"}, out, 60) != 0) throw std::runtime_error("cannot run " + nvcc_path() + " --version: " + out);
    version = out;
  });
  return version;
}

std::vector<std::string> requested_libraries(const std::string& source) {
  static const std::regex link(R"(//\s*mskb-link:\s*([A-Za-z ,]+))");
  std::vector<std::string> libs;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), link); it != std::sregex_iterator(); ++it) {
    std::istringstream names((*it)[1].str());
    std::string n;
    while (names >> n) {
      if (!n.empty() && n.back() == ',') n.pop_back();
      bool known = false;
      for (const auto& l : kLibraries) known |= n == l.name;
      if (!known) throw std::invalid_argument("mskb-link: unknown library '" + n + "'");
      libs.push_back(n);
    }
  }
  return libs;
}

nlohmann::json policy_to_json(const CompileResult& r) {
  if (!r.policy_checked) return nullptr;
  nlohmann::json v = nlohmann::json::array();
  for (const auto& x : r.policy_violations) v.push_back({{"kind", x.kind}, {"symbol", x.symbol}, {"reason", x.reason}});
  return {{"ok", !r.refused_policy}, {"violations", v}, {"notes", r.policy_notes}};
}

namespace {

// Every successful build (cache hits included) passes the binary policy; then the time is recorded.
CompileResult finish_compile(CompileResult& r, const CompileOptions& opt, std::chrono::steady_clock::time_point t0) {
  if (r.ok && opt.binary_policy) {
    PolicyOptions po;
    if (opt.allow_libraries) po.libraries = r.libraries;
    const PolicyVerdict v = check_binary_policy(r.so_path, po);
    r.policy_checked = true;
    r.policy_violations = v.violations;
    r.policy_notes = v.notes;
    if (!v.ok) {
      r.ok = false;
      r.outcome = CompileOutcome::refused_policy;
      r.refused_policy = true;
      r.error = "rejected_static: " + v.describe();
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The source's libraries and the flags, checked; false (with r.error) when the build may not run.
bool check_request(const std::string& source, const CompileOptions& opt, CompileResult& r) {
  try {
    r.libraries = requested_libraries(source);
    for (const auto& f : opt.flags) check_flag(f);
  } catch (const std::invalid_argument& e) {
    r.outcome = CompileOutcome::refused_request;
    r.error = e.what();
    return false;
  }
  // issue 40: a host file named in the source (the build's confinement is the defence; this a belt).
  if (const std::string why = screen_host_file_references(source); !why.empty()) {
    r.error = "compile error: " + why;
    return false;
  }
  if (!r.libraries.empty() && !opt.allow_libraries) {
    r.outcome = CompileOutcome::refused_request;
    r.error = "kernel asks to link " + r.libraries.front() + " but vendor libraries are not allowed (--allow-libraries)";
    return false;
  }
  return true;
}

// NVTX_DISABLE: no NVTX ranges (CUB emits them), whose injection loader reads the environment
// and dlopens a library: the binary policy refuses both, and a benchmark wants neither.
std::vector<std::string> nvcc_command(const CompileOptions& opt, const std::vector<std::string>& libraries,
                                      const fs::path& shared_inc) {
  std::vector<std::string> cmd = {nvcc_path(), "-std=c++17", "-O3", "-shared", "-Xcompiler=-fPIC", "-cudart=shared",
                                  arch_flag(opt.arch.empty() ? std::string(MSKB_DEFAULT_ARCH) : opt.arch),
                                  "-I" + shared_inc.string(), "-DNVTX_DISABLE"};
  if (opt.lineinfo) cmd.push_back("-lineinfo");
  for (const auto& f : opt.flags) cmd.push_back(f);
  for (const auto& lib : libraries) {
    if (lib == "cudnn") {
      if (std::string(MSKB_CUDNN_INCLUDE_DIR).find("NOTFOUND") == std::string::npos) cmd.push_back("-I" MSKB_CUDNN_INCLUDE_DIR);
      const std::string libdir = fs::path(MSKB_CUDNN_LIBRARY).parent_path().string();
      if (!libdir.empty() && libdir.find("NOTFOUND") == std::string::npos) cmd.push_back("-L" + libdir);
    }
  }
  return cmd;
}

std::string cache_key(const std::string& source, const std::string& cu_path, const fs::path& shared_inc,
                      const std::vector<std::string>& cmd, const std::vector<std::string>& libraries) {
  Sha256 key;
  key.update("mskb-kernel-v1\n").update(source).update("\n--includes--\n");
  key.update(local_includes(source, fs::path(cu_path).parent_path(), shared_inc));
  for (const auto& c : cmd) key.update(c + "\n");
  for (const auto& l : libraries) key.update("lib:" + l + "\n");
  key.update(nvcc_version());
  return key.hex().substr(0, 32);
}

// Where a built object's nvcc output is kept: <key>.log beside <key>.so.
fs::path log_path(const fs::path& so) {
  fs::path p = so;
  return p.replace_extension(".log");
}

// A recorded failure of the same source with the same compiler: true (r filled) when there is one.
bool load_cached_failure(const fs::path& fail, CompileResult& r) {
  const auto j = nlohmann::json::parse(read_text(fail.string()), nullptr, false);
  if (j.is_discarded()) return false;
  r.cache_hit = true;
  r.log = j.value("log", "");
  r.diagnostics = parse_nvcc_diagnostics(r.log);
  r.error = j.value("error", "compile error");
  r.outcome = CompileOutcome::compile_error;
  return true;
}

// The one-line reason of a failed build: its first error, else the timeout or the log's last line.
std::string first_error(const CompileResult& r, int rc) {
  std::string first;
  for (const auto& d : r.diagnostics)
    if (d.severity == "error") {
      first = d.file == "(link)" || d.line == 0 ? d.message
                                                : fs::path(d.file).filename().string() + ":" + std::to_string(d.line) + ": " + d.message;
      break;
    }
  if (first.empty()) first = rc == 124 ? "nvcc timed out" : tail_lines(r.log, 1);
  while (!first.empty() && (first.back() == '\n' || first.back() == '\r')) first.pop_back();
  return first;
}

// Runs nvcc into a temporary file and moves it into the cache as `so` (a failure is recorded in `fail`).
void build_into_cache(std::vector<std::string> cmd, const std::string& cu_path, const CompileOptions& opt, const fs::path& dir,
                      const fs::path& so, const fs::path& fail, CompileResult& r) {
  // Unique per build, not only per process: threads of one process (a build pool, cudamaster's
  // jobs) can build the same key at once (a task's vendor.cu serves both precisions).
  static std::atomic<unsigned> builds{0};
  std::error_code ec;
  // --- build confinement (issue 40): nvcc and its children under Landlock, writing only a private
  // folder (the output and TMPDIR), reading the toolkit, system folders, the kernel's folder and
  // kernels/include. Where Landlock is missing the build runs unconfined and says so.
  BuildConfinement box;
  try {
    box = confine_build(dir.string(), r.key + ".build." + std::to_string(::getpid()) + "." + std::to_string(++builds), cu_path, cmd,
                        {(fs::path(source_root()) / "kernels" / "include").string()});
  } catch (const std::exception& e) {
    r.error = std::string("harness error: ") + e.what();
    return;
  }
  r.confinement = box.level;
  struct RemoveDir {
    std::string d;
    ~RemoveDir() {
      std::error_code e;
      fs::remove_all(d, e);
    }
  } remove_build_dir{box.dir};
  const fs::path tmp = fs::path(box.dir) / (r.key + ".so");
  cmd.insert(cmd.begin(), {"env", "TMPDIR=" + box.tmp});
  const std::function<bool()> confine = [&box] { return box.rules.restrict_self() == 0; };
  // --- end build confinement
  cmd.push_back("-o");
  cmd.push_back(tmp.string());
  cmd.push_back(fs::absolute(cu_path).string());
  for (const auto& lib : r.libraries)
    for (const auto& l : kLibraries)
      if (lib == l.name) cmd.push_back(l.link);
  const int rc = run_command(cmd, r.log, opt.timeout_s, "", 0, opt.nice, box.rules.ok() ? confine : std::function<bool()>());
  r.diagnostics = parse_nvcc_diagnostics(r.log);
  if (rc != 0) {
    fs::remove(tmp, ec);
    r.outcome = CompileOutcome::compile_error;
    const std::string refused = explain_refused_read(r.log);
    r.error = "compile error: " + (refused.empty() ? first_error(r, rc) : refused);
    if (rc != 124) {
      std::ofstream(fail) << nlohmann::json{{"error", r.error}, {"log", r.log}}.dump();
    }
    return;
  }
  // nvcc's output (warnings, ptxas's -v report) stays with the object: a cache hit shows it too.
  if (!r.log.empty()) {
    try {
      write_file_atomic(log_path(so).string(), r.log);
    } catch (const std::exception&) {
      // the build stands without its log
    }
  }
  fs::rename(tmp, so, ec);  // atomic: concurrent builders of the same key both succeed
  if (ec) {
    r.error = "cannot store " + so.string() + ": " + ec.message();
    return;
  }
  r.ok = true;
  r.outcome = CompileOutcome::built;
}

}  // namespace

std::vector<std::string> toolkit_gpu_archs() {
  static std::once_flag once;
  static std::vector<std::string> archs;
  std::call_once(once, [] {
    std::string out;
    if (run_command({nvcc_path(), "--list-gpu-arch"}, out, 60) != 0) return;
    static const std::regex item(R"(compute_([0-9]+)\b)");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), item); it != std::sregex_iterator(); ++it)
      if (std::find(archs.begin(), archs.end(), (*it)[1].str()) == archs.end()) archs.push_back((*it)[1].str());
    std::sort(archs.begin(), archs.end(), [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
  });
  return archs;
}

std::vector<std::string> local_include_files(const std::string& cu_path) {
  std::error_code ec;
  if (!fs::is_regular_file(cu_path, ec)) return {};
  const fs::path file = fs::absolute(cu_path).lexically_normal();
  std::vector<std::string> out;
  for (const LocalHeader& h : include_closure(read_text(cu_path), file.parent_path(), fs::path(source_root()) / "kernels" / "include"))
    out.push_back(fs::absolute(h.path).lexically_normal().string());
  return out;
}

CompileResult compile_kernel(const std::string& cu_path, const CompileOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult r;
  std::error_code ec;
  if (!fs::is_regular_file(cu_path, ec)) {
    r.outcome = CompileOutcome::missing_file;
    r.error = "kernel file not found: " + cu_path;
    return finish_compile(r, opt, t0);
  }
  const std::string source = read_text(cu_path);
  const fs::path shared_inc = fs::path(source_root()) / "kernels" / "include";
  if (!check_request(source, opt, r)) return finish_compile(r, opt, t0);

  const std::vector<std::string> cmd = nvcc_command(opt, r.libraries, shared_inc);
  r.key = cache_key(source, cu_path, shared_inc, cmd, r.libraries);

  const fs::path dir = fs::path(opt.cache_dir.empty() ? default_cache_dir() : opt.cache_dir) / "kernels";
  fs::create_directories(dir, ec);
  const fs::path so = dir / (r.key + ".so");
  const fs::path fail = dir / (r.key + ".fail.json");
  r.so_path = so.string();
  if (fs::is_regular_file(so, ec)) {
    r.ok = r.cache_hit = true;
    r.outcome = CompileOutcome::built;
    if (fs::is_regular_file(log_path(so), ec)) {
      try {
        r.log = read_text(log_path(so).string());
        r.diagnostics = parse_nvcc_diagnostics(r.log);
      } catch (const std::exception&) {
        // an unreadable log: the build without its warnings
      }
    }
    return finish_compile(r, opt, t0);
  }
  // The same source failed with the same compiler before.
  if (fs::is_regular_file(fail, ec) && load_cached_failure(fail, r)) return finish_compile(r, opt, t0);
  build_into_cache(cmd, cu_path, opt, dir, so, fail, r);
  return finish_compile(r, opt, t0);
}

}  // namespace mskb

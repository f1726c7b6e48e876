// A task file's host reference: build (host compiler, content-keyed cache), load, call
// (task_file_reference.hpp).
#include "task_file_reference.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "mskb/core/task_file.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/process.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace mskb {

TaskFileReference::~TaskFileReference() {
  if (handle) ::dlclose(handle);
}

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string cache_dir() {
  if (const char* d = std::getenv("MSKB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mskb";
  return env_or("HOME", "/tmp") + "/.cache/mskb";
}

bool is_c_source(const std::string& path) { return fs::path(path).extension() == ".c"; }

std::string host_compiler(bool c) {
  return c ? env_or("MSKB_HOST_CC", env_or("CC", "cc")) : env_or("MSKB_HOST_CXX", env_or("CXX", "c++"));
}

std::string compiler_version(const std::string& compiler) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(compiler);
  if (it != cache.end()) return it->second;
  std::string out;
  if (run_command({compiler, "--version"}, out, 60) != 0) out = "unknown";
  return cache[compiler] = out;
}

std::string first_error(const std::string& output) {
  const std::vector<std::string> lines = split(output, '\n', true);
  for (const auto& l : lines)
    if (l.find("error") != std::string::npos) return trim(l);
  return lines.empty() ? std::string("no output") : trim(lines.front());
}

std::string build_reference(TaskFileReference& r) {
  const fs::path abi_dir = fs::path(source_root()) / "include" / "mskb" / "core" / "abi";
  const std::string abi = read_text((abi_dir / "mskb_reference.h").string());
  std::string source;
  try {
    source = read_text(r.source);
  } catch (const std::exception&) {
    throw TaskFileError(r.where + ": cannot read " + r.source);
  }
  const bool c = is_c_source(r.source);
  const std::string compiler = host_compiler(c);
  std::vector<std::string> argv = {compiler, c ? "-std=c11" : "-std=c++17", "-O2", "-shared", "-fPIC", "-I" + abi_dir.string()};
  argv.insert(argv.end(), r.flags.begin(), r.flags.end());
  Sha256 h;
  h.update(source).update(std::string(1, '\0')).update(abi).update(std::string(1, '\0')).update(compiler_version(compiler));
  for (const auto& a : argv) h.update(a).update(std::string(1, '\0'));
  const std::string key = h.hex().substr(0, 32);
  const fs::path dir = fs::path(cache_dir()) / "references";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path so = dir / (key + ".so");
  if (fs::is_regular_file(so, ec)) return so.string();
  const fs::path tmp = dir / (key + ".tmp" + std::to_string(::getpid()) + ".so");
  argv.insert(argv.end(), {r.source, "-o", tmp.string()});
  std::string out;
  const int rc = run_command(argv, out, 600);
  if (rc != 0) {
    fs::remove(tmp, ec);
    const std::string name = fs::path(r.source).filename().string();
    if (rc == -1) throw TaskFileError(r.where + ": cannot run the host compiler '" + compiler + "' (set MSKB_HOST_CXX)");
    throw TaskFileError(r.where + ": " + name + " does not compile: " + first_error(out));
  }
  fs::rename(tmp, so, ec);
  if (ec) throw TaskFileError(r.where + ": cannot write " + so.string() + ": " + ec.message());
  return so.string();
}

mskb_reference_fn load_reference(TaskFileReference& r) {
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.fn) return r.fn;
  r.so_path = build_reference(r);
  if (!r.handle) {
    // RTLD_NODELETE: the library stays mapped after dlclose. A reference built with -fopenmp leaves
    // libgomp's worker threads parked in it; unmapping it under them crashed the process at exit.
    r.handle = ::dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!r.handle) throw TaskFileError(r.where + ": cannot load the compiled reference: " + std::string(::dlerror()));
  }
  void* sym = ::dlsym(r.handle, "mskb_reference");
  if (!sym)
    throw TaskFileError(r.where + ": " + fs::path(r.source).filename().string() +
                        " does not export extern \"C\" void mskb_reference(const mskb_ref_args*)");
  r.fn = reinterpret_cast<mskb_reference_fn>(sym);
  return r.fn;
}

int abi_role(Role r) {
  switch (r) {
    case Role::in: return MSKB_REF_IN;
    case Role::out: return MSKB_REF_OUT;
    case Role::inplace: return MSKB_REF_INOUT;
    case Role::accumulate: return MSKB_REF_ACCUMULATE;
  }
  return MSKB_REF_IN;
}

}  // namespace

void call_reference(TaskFileReference& r, const std::vector<Param>& params, const Shape& s, Precision p, Args& a) {
  const mskb_reference_fn fn = load_reference(r);
  std::vector<mskb_ref_param> ps(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    ps[i].name = params[i].name.c_str();
    ps[i].is_buffer = params[i].is_buffer ? 1 : 0;
    ps[i].role = abi_role(params[i].role);
    ps[i].data = params[i].is_buffer ? a[i].data.data() : nullptr;
    ps[i].length = params[i].is_buffer ? static_cast<int64_t>(a[i].data.size()) : 0;
    ps[i].value = a[i].value;
  }
  std::vector<mskb_ref_dim> ds;
  for (const auto& d : s.dims) ds.push_back({d.first.c_str(), d.second});
  char error[512] = {0};
  mskb_ref_args args{};
  args.abi_version = MSKB_REF_ABI_VERSION;
  args.precision = p == Precision::bf16 ? MSKB_REF_BF16 : MSKB_REF_FP32;
  args.num_params = static_cast<int>(ps.size());
  args.params = ps.data();
  args.num_dims = static_cast<int>(ds.size());
  args.dims = ds.data();
  args.error = error;
  args.error_size = sizeof error;
  fn(&args);
  if (error[0]) throw std::runtime_error(r.where + ": at shape " + s.str() + ": " + std::string(error));
}

std::string compile_reference(const TaskFile& file) {
  if (!file.reference_kernel.empty()) return "";  // a CUDA kernel: built by the harness (mskb/harness/reference_kernel.hpp)
  if (!file.reference_state) throw TaskFileError(file.path + ": no reference");
  (void)load_reference(*file.reference_state);
  return file.reference_state->so_path;
}

}  // namespace mskb

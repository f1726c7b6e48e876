#include "mskb/harness/launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "mskb/util/text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mskb {

namespace {

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 && buf[0] != '\0' ? std::string(buf) : std::string("host");
}

// `--name=value` or `--name` -> `--name`.
std::string option_name(const std::string& word) { return word.substr(0, word.find('=')); }

// A --gres value we may use instead of gpu:1: exactly one gpu entry, with a count of 1.
bool one_gpu_gres(const std::string& value) {
  int gpus = 0;
  for (const std::string& item : split(value, ',')) {
    if (!starts_with(item, "gpu")) continue;
    ++gpus;
    if (item != "gpu:1" && !(item.size() > 6 && starts_with(item, "gpu:") && item.compare(item.size() - 2, 2, ":1") == 0)) return false;
  }
  return gpus == 1;
}

// The user's --gres value, or "" when there is none.
std::string user_gres(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (starts_with(args[i], "--gres=")) return args[i].substr(7);
    if (args[i] == "--gres" && i + 1 < args.size()) return args[i + 1];
  }
  return "";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s.size() > 300 ? s.substr(0, 300) + "..." : s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!trimmed(l).empty()) v.push_back(trimmed(l));
  return v;
}

// srun's report of how the task ended ("srun: error: node7: task 0: Exited with exit code 3"):
// what happened to the child, not a launch failure.
bool task_status_line(const std::string& line) {
  static const std::regex status(R"(^srun: error: [^ ]+: tasks? [0-9,-]+: )");
  return std::regex_search(line, status);
}

std::string executable_on_path(const std::string& name) {
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  if (const char* path = std::getenv("PATH")) {
    for (const std::string& dir : split(path, ':', true))
      if (executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
  }
  return "";
}

}  // namespace

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

void validate(const Launcher& l) {
  if (l.kind == "local") return;
  if (!l.slurm()) throw std::invalid_argument("unknown executor '" + l.kind + "' (local or slurm)");
  if (l.work_root.empty()) throw std::invalid_argument("the Slurm executor needs a work folder shared with the compute nodes");
  if (!(l.queue_timeout_s > 0)) throw std::invalid_argument("the Slurm queue timeout must be positive");
  // Options that would change the one-task, one-GPU step or where its output goes.
  static const std::vector<std::string> long_banned = {
      "--ntasks", "--nodes", "--ntasks-per-node", "--gpus", "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket",
      "--output", "--error", "--input", "--pty", "--label", "--unbuffered", "--multi-prog", "--het-group"};
  for (std::size_t i = 0; i < l.args.size(); ++i) {
    const std::string& a = l.args[i];
    const std::string name = option_name(a);
    bool banned = false;
    for (const std::string& b : long_banned) banned |= name == b;
    // -n2, -N 1, -G1, -o f, -e f, -i none, -l, -u (srun's short forms of the above).
    if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && std::string("nNGoeilu").find(a[1]) != std::string::npos) banned = true;
    if (banned)
      throw std::invalid_argument("srun option '" + a + "' is not allowed: cudamaster runs each evaluation as one task with one GPU " +
                                  "and reads its output itself");
    if (name == "--gres") {
      const std::string value = a.find('=') != std::string::npos ? a.substr(a.find('=') + 1) : (i + 1 < l.args.size() ? l.args[i + 1] : "");
      if (!one_gpu_gres(value))
        throw std::invalid_argument("srun option '--gres=" + value + "' is not allowed: each job step takes exactly one GPU (gpu:1 or gpu:TYPE:1)");
    }
  }
}

std::vector<std::string> srun_prefix(const Launcher& l, const std::string& srun_path, const std::string& job_name) {
  std::vector<std::string> argv = {srun_path, "--quiet", "--ntasks=1", "--nodes=1"};
  if (user_gres(l.args).empty()) argv.push_back("--gres=gpu:1");
  argv.push_back("--job-name=" + job_name);
  argv.insert(argv.end(), l.args.begin(), l.args.end());
  return argv;
}

LaunchCommand launch_command(const Launcher& l, const std::string& srun_path, const std::vector<std::string>& inner, int report_fd,
                             const std::string& job_name) {
  LaunchCommand c;
  if (!l.slurm()) {
    c.argv = inner;
    return c;
  }
  c.argv = srun_prefix(l, srun_path, job_name);
  // On the node: the report fd becomes the step's stdout (forwarded to our pipe), stdout joins
  // stderr (forwarded to our log). "$0" is the program, "$@" its arguments.
  const std::string fd = std::to_string(report_fd);
  c.argv.insert(c.argv.end(), {"/bin/sh", "-c", "exec \"$0\" \"$@\" " + fd + ">&1 1>&2"});
  c.argv.insert(c.argv.end(), inner.begin(), inner.end());
  c.report_on_stdout = true;
  c.term_grace_s = 30;  // srun waits for the cancelled step's tasks (KillWait, 30 s by default)
  return c;
}

double first_line_timeout(const Launcher& l, double child_s) { return l.slurm() ? l.queue_timeout_s + child_s : child_s; }

std::string srun_program(const Launcher& l) {
  std::string want = l.srun;
  if (want.empty())
    if (const char* e = std::getenv("MSKB_SRUN"); e && *e) want = e;
  if (want.empty()) want = "srun";
  const std::string found = executable_on_path(want);
  if (found.empty())
    throw std::runtime_error(want.find('/') != std::string::npos ? "srun not found at " + want
                                                                 : "srun not found on PATH (is this a Slurm login node? set MSKB_SRUN)");
  return found;
}

std::string launch_failure(const Launcher& l, const ProcessResult& r, bool any_line, const std::string& log) {
  if (!l.slurm() || any_line) return "";
  if (r.timed_out)
    return "the Slurm job step did not start within " + std::to_string(static_cast<long long>(l.queue_timeout_s)) +
           " s (queued, or stuck before its first report); srun was stopped (--slurm-queue-timeout)";
  if (!r.signaled && r.exit_code == 0) return "";
  const std::vector<std::string> lines = lines_of(log);
  for (const std::string& line : lines)
    if (starts_with(line, "srun:") && !task_status_line(line)) return line;
  if (!r.signaled && r.exit_code == 127)
    for (const std::string& line : lines)
      if (line.find(": not found") != std::string::npos || line.find("cannot execute") != std::string::npos ||
          line.find("No such file") != std::string::npos)
        return "the job step cannot run the program (is it on a filesystem the compute nodes share?): " + line;
  return "";
}

ProcessResult as_local_result(const Launcher& l, ProcessResult r) {
  if (l.slurm() && !r.signaled && r.exit_code > 128 && r.exit_code <= 128 + 64) {
    r.signaled = true;
    r.signal = r.exit_code - 128;
    r.exit_code = -1;
  }
  return r;
}

std::string last_child_line(const std::string& log) {
  const std::vector<std::string> lines = lines_of(log);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!starts_with(*it, "srun:") && !starts_with(*it, "slurmstepd")) return it->size() > 200 ? it->substr(0, 200) + "..." : *it;
  return "";
}

std::string launch_work_dir(const Launcher& l, const std::string& hint) {
  const fs::path base = l.slurm() ? fs::path(l.work_root) / (host_name() + "-" + std::to_string(::getpid()))
                                  : fs::temp_directory_path() / ("mskb-" + std::to_string(::getpid()));
  const fs::path dir = base / hint;
  fs::create_directories(dir);
  return dir.string();
}

bool node_local_path(const std::string& path) {
  std::error_code ec;
  const std::string p = fs::weakly_canonical(fs::absolute(path), ec).string() + "/";
  return p.rfind("/tmp/", 0) == 0 || p.rfind("/var/tmp/", 0) == 0 || p.rfind("/dev/shm/", 0) == 0;
}

json to_json(const Launcher& l) {
  if (!l.slurm()) return {{"kind", l.kind}};
  return {{"kind", l.kind}, {"srun", l.srun}, {"args", l.args}, {"work_root", l.work_root}, {"queue_timeout_s", l.queue_timeout_s}};
}

Launcher launcher_from_json(const json& j) {
  Launcher l;
  if (!j.is_object()) return l;
  l.kind = j.value("kind", l.kind);
  l.srun = j.value("srun", l.srun);
  l.args = j.value("args", l.args);
  l.work_root = j.value("work_root", l.work_root);
  l.queue_timeout_s = j.value("queue_timeout_s", l.queue_timeout_s);
  return l;
}

std::string describe(const Launcher& l) {
  if (!l.slurm()) return l.kind;
  std::string srun = "srun";
  for (const std::string& a : l.args) srun += " " + a;
  return "slurm (" + srun + "; work dir " + l.work_root + ")";
}

}  // namespace mskb

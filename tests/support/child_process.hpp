// Test support: run a binary in a child process with a chosen environment, stdout and stderr in
// files, and collect its exit code and output (the CLI tests of cudamaster and mskb).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "support/agent_doubles.hpp"

extern char** environ;

namespace cmtest {

struct Proc {
  int code = -1;
  std::string out, err;
};

// Starts `program` with `args`. Its environment is this process's, less the keys `env` sets and
// the keys in `drop` (an entry ending in '*' drops every key with that prefix, "*" every key), plus `env`.
inline pid_t spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const std::string& dir,
                   const std::string& tag, const std::string& program, const std::vector<std::string>& drop = {}) {
  auto dropped = [&](const std::string& key) {
    for (const std::string& d : drop)
      if (!d.empty() && d.back() == '*' ? key.rfind(d.substr(0, d.size() - 1), 0) == 0 : key == d) return true;
    return false;
  };
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (env.count(key) == 0 && !dropped(key)) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  const std::string out = dir + "/" + tag + ".out", err = dir + "/" + tag + ".err";
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* o = std::freopen(out.c_str(), "w", stdout);
    FILE* e = std::freopen(err.c_str(), "w", stderr);
    (void)o;
    (void)e;
    std::vector<char*> argv, envp;
    std::string bin = program;
    argv.push_back(bin.data());
    std::vector<std::string> a = args;
    for (auto& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (auto& s : envs) envp.push_back(s.data());
    envp.push_back(nullptr);
    execve(bin.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

// Waits for the child; its exit code (128 + signal if killed) and what it wrote.
inline Proc finish(pid_t pid, const std::string& dir, const std::string& tag) {
  int status = 0;
  waitpid(pid, &status, 0);
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  p.out = read_file(dir + "/" + tag + ".out");
  p.err = read_file(dir + "/" + tag + ".err");
  return p;
}

// Runs `program` with `args` to its end in an environment of `env` alone (nothing inherited), its
// output files in a temp folder of its own.
inline Proc run_isolated(const std::string& program, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  TempDir dir;
  return finish(spawn(args, env, dir.file(""), "run", program, {"*"}), dir.file(""), "run");
}

#if defined(CM_AGENTS_FAKES) && defined(CM_FAKE_RUNNER)
// A temp folder where the binaries run against the fakes (nvcc, runner, compute-sanitizer), each run numbered;
// `drop` as for spawn.
struct FakeCliDir {
  TempDir dir;
  std::map<std::string, std::string> env;
  std::vector<std::string> drop;
  int runs = 0;
  FakeCliDir() {
    env = {{"MSKB_NVCC", std::string(CM_AGENTS_FAKES) + "/nvcc"},
           {"MSKB_RUNNER", CM_FAKE_RUNNER},
           {"MSKB_SANITIZER", std::string(CM_AGENTS_FAKES) + "/compute-sanitizer"},  // optimize's acceptance gate
           {"MSKB_CACHE_DIR", dir.file("cache")},
           {"FAKE_RUNNER_LOG", dir.file("runner.log")}};
  }
  Proc run_program(const std::vector<std::string>& args, const std::string& program) {
    const std::string tag = "run" + std::to_string(++runs);
    return finish(spawn(args, env, dir.file(""), tag, program, drop), dir.file(""), tag);
  }
  std::string db() const { return dir.file("runs.db"); }
};
#endif

}  // namespace cmtest

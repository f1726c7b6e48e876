// Owns a test aid for host parallelism: run a computation in a forked child pinned to one CPU (as
// taskset or a one-CPU Slurm step would), so tests can check that a parallel generator or FP64
// reference gives bit-identical results whatever the thread count. POSIX only; tests only.
#pragma once

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/task.hpp"

namespace mskb {

// Every buffer's data, then every scalar value, of `a`, concatenated.
inline std::vector<double> flatten(const Args& a) {
  std::vector<double> v;
  for (const Arg& x : a) v.insert(v.end(), x.data.begin(), x.data.end());
  for (const Arg& x : a) v.push_back(x.value);
  return v;
}

// fn() (returning std::vector<double>) evaluated in a child process whose affinity is CPU 0 only, so
// available_cpus() is 1 and parallel_for runs on one thread. Throws if the child fails.
template <class Fn>
std::vector<double> on_one_cpu(Fn&& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    int64_t n = -1;
    std::vector<double> v;
    if (::sched_setaffinity(0, sizeof one, &one) == 0) {
      v = fn();
      n = static_cast<int64_t>(v.size());
    }
    const char* p = reinterpret_cast<const char*>(&n);
    std::size_t left = sizeof n;
    for (int part = 0; part < 2; ++part) {
      while (left > 0) {
        const ssize_t w = ::write(fds[1], p, left);
        if (w <= 0) ::_exit(1);
        p += w;
        left -= static_cast<std::size_t>(w);
      }
      p = reinterpret_cast<const char*>(v.data());
      left = v.size() * sizeof(double);
    }
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  auto read_all = [&](char* p, std::size_t left) {
    while (left > 0) {
      const ssize_t r = ::read(fds[0], p, left);
      if (r <= 0) return false;
      p += r;
      left -= static_cast<std::size_t>(r);
    }
    return true;
  };
  int64_t n = -1;
  std::vector<double> v;
  bool ok = read_all(reinterpret_cast<char*>(&n), sizeof n) && n >= 0;
  if (ok) {
    v.resize(static_cast<std::size_t>(n));
    ok = read_all(reinterpret_cast<char*>(v.data()), v.size() * sizeof(double));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("one-CPU child failed");
  return v;
}

// The inputs generated for `seed` and the FP64 reference of one instance, flattened.
inline std::vector<double> flat_instance(const TaskSpec& t, const Shape& s, Precision p, uint64_t seed) {
  const Args in = make_inputs(t, s, p, seed);
  std::vector<double> v = flatten(in);
  const std::vector<double> e = flatten(make_expected(t, s, p, in));
  v.insert(v.end(), e.begin(), e.end());
  return v;
}

// How many elements differ bitwise (sizes must match; a size mismatch counts every element).
inline std::size_t bitwise_differences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  return d;
}

// How many elements of one instance (inputs and FP64 reference, fp32, seed 7) a child pinned to
// one CPU makes differently from this process: 0 where the generator and the reference split their
// work over the CPUs in fixed chunks, combined in a fixed order.
inline std::size_t differences_on_one_cpu(const TaskSpec& t, const Shape& s) {
  const std::vector<double> here = flat_instance(t, s, Precision::fp32, 7);
  return bitwise_differences(here, on_one_cpu([&] { return flat_instance(t, s, Precision::fp32, 7); }));
}

}  // namespace mskb

// The suite's build pool (internal to src/mskb/harness): a fixed set of build workers, each job a
// kernel file, deduplicated by path, building while the GPU evaluates.
#pragma once

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/parallel.hpp"

namespace mskb {

// A fixed pool of build workers; each job is a kernel file, deduplicated by path.
class BuildPool {
 public:
  BuildPool(CompileOptions opt, int jobs) : opt_(std::move(opt)), jobs_(jobs > 0 ? jobs : available_cpus()) {}
  std::shared_future<CompileResult> submit(const KernelFile& k) {
    std::lock_guard<std::mutex> lock(m_);
    auto it = futures_.find(k.path + (k.trusted ? "#t" : ""));
    if (it != futures_.end()) return it->second;
    auto p = std::make_shared<std::promise<CompileResult>>();
    auto f = p->get_future().share();
    futures_.emplace(k.path + (k.trusted ? "#t" : ""), f);
    queue_.push_back({k, p});
    return f;
  }
  // Builds from now on add `nice` to nvcc's nice value (CompileOptions::nice); call before start().
  void lower_priority(int nice) { opt_.nice = nice; }
  // Told by the worker as a job begins (result null) and ends (its result); call before start().
  // Runs on the build threads and must not throw.
  using Observer = std::function<void(const KernelFile&, const CompileResult*)>;
  void observe(Observer o) { observer_ = std::move(o); }
  void start() {
    for (int i = 0; i < jobs_; ++i)
      threads_.emplace_back([this] {
        while (true) {
          std::pair<KernelFile, std::shared_ptr<std::promise<CompileResult>>> job;
          {
            std::lock_guard<std::mutex> lock(m_);
            if (next_ >= queue_.size()) return;
            job = queue_[next_++];
          }
          CompileOptions o = opt_;
          o.allow_libraries = o.allow_libraries || job.first.trusted;
          o.binary_policy = contender_kind(job.first.contender) != ContenderKind::vendor;  // vendor contenders are trusted; everything else is screened
          if (observer_) observer_(job.first, nullptr);
          CompileResult r;
          try {
            r = compile_kernel(job.first.path, o);
          } catch (const std::exception& e) {
            r = CompileResult{};
            r.outcome = CompileOutcome::build_failed;
            r.error = std::string("build failed: ") + e.what();
          }
          if (observer_) observer_(job.first, &r);
          job.second->set_value(std::move(r));
        }
      });
  }
  ~BuildPool() {
    for (auto& t : threads_) t.join();
  }
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

 private:
  CompileOptions opt_;
  int jobs_;
  Observer observer_;
  std::mutex m_;
  std::map<std::string, std::shared_future<CompileResult>> futures_;
  std::vector<std::pair<KernelFile, std::shared_ptr<std::promise<CompileResult>>>> queue_;
  std::size_t next_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace mskb

// The ProfileProvider over cm_profile: `cudamaster profile` in-process. The profiled
// kernel runs under ncu inside mskb-runner (a child process), as every candidate does.
#include <exception>

#include "cudamaster/loop/backends.hpp"
#include "cudamaster/profile/filter.hpp"
#include "cudamaster/profile/profiler.hpp"
#include "cudamaster/profile/report.hpp"

namespace cudamaster::loop {

namespace {

class CmProfileProvider final : public ProfileProvider {
 public:
  CmProfileProvider(std::string runner, mskb::Launcher launcher) : runner_(std::move(runner)), launcher_(std::move(launcher)) {}

  ProfileSummary profile(const ProfileRequest& r) override {
    ProfileSummary s;
    try {
      profile::TaskProfileOptions o;
      o.task = r.spec->name;
      o.kernel = r.kernel;
      o.precision = r.precision;
      o.allow_libraries = r.allow_libraries || r.trusted;
      o.runner = runner_;
      o.gpu = r.gpu;
      o.launcher = launcher_;
      const profile::ProfileOutcome out = profile::profile_task(o);
      const profile::RenderMode mode = r.mode;
      s.ok = true;
      s.cls = profile::to_string(out.classification.cls);
      s.confidence = out.classification.confidence;
      s.source = out.source;
      s.rendered = profile::render(out, mode);
      s.message = out.message;
      s.data = profile::to_json(out, mode);
    } catch (const std::exception& e) {
      s.ok = false;
      s.message = e.what();
    }
    return s;
  }

 private:
  std::string runner_;
  mskb::Launcher launcher_;
};

}  // namespace

std::unique_ptr<ProfileProvider> make_cm_profile_provider(std::string runner, mskb::Launcher launcher) {
  return std::make_unique<CmProfileProvider>(std::move(runner), std::move(launcher));
}

}  // namespace cudamaster::loop

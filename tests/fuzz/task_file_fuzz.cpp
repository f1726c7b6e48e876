// mskb::load_task_file (a user's task.toml): any bytes give a task or a one-line TaskFileError,
// nothing else. The file sits beside copies of an example's baseline, reference and reference
// kernel (baseline.cu, ref.cpp, orig.cu), so that inputs derived from examples/ get past the file
// checks into the model. Nothing is compiled: the reference is built on its first call only.
#include <filesystem>
#include <stdexcept>

#include "fuzz_support.hpp"
#include "mskb/core/task_file.hpp"

#ifndef MSKB_FUZZ_SOURCE_DIR
#error "MSKB_FUZZ_SOURCE_DIR (the repository root) must be defined"
#endif

namespace {

fuzz::ScratchFile& scratch() {
  static fuzz::ScratchFile file("task.toml");
  static const bool copied = [] {
    const std::filesystem::path ex = std::filesystem::path(MSKB_FUZZ_SOURCE_DIR) / "examples";
    std::filesystem::copy_file(ex / "histogram" / "baseline.cu", file.dir() / "baseline.cu");
    std::filesystem::copy_file(ex / "histogram" / "ref.cpp", file.dir() / "ref.cpp");
    std::filesystem::copy_file(ex / "conv1d" / "orig.cu", file.dir() / "orig.cu");
    return true;
  }();
  (void)copied;
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto& file = scratch();
  try {
    const mskb::TaskFile tf = mskb::load_task_file(file.write(data, size));
    FUZZ_REQUIRE(!tf.spec.name.empty(), "a task without a name");
    FUZZ_REQUIRE(!tf.precisions.empty(), "a task without an entry point");
    fuzz::note("load_task_file", "accepted task " + tf.spec.name);
  } catch (const mskb::TaskFileError& e) {
    fuzz::require_one_line(e.what(), "load_task_file");
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "load_task_file");
  }
  return 0;
}

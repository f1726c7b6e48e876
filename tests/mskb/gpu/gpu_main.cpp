// main() for gpu-labelled tests: exit 125 (ctest: skipped) when there is no usable GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "mskb/harness/evaluator.hpp"

int main(int argc, char** argv) {
  try {
    const auto d = mskb::query_device(mskb::RunMode::identify);
    std::printf("GPU: %s (%s)\n", d.value("name", "?").c_str(), d.value("uuid", "?").c_str());
  } catch (const std::exception& e) {
    std::printf("SKIPPED: %s\n", e.what());
    return 125;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

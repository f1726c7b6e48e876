// The NVML client of the GPU-sharing check against a stand-in libnvidia-ml.so.1 (fake_nvml.cpp,
// found through LD_LIBRARY_PATH): the process list before and after our context, the others
// around a timing, lists longer than the first buffer, an unknown device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "mskb/util/gpu_sharing.hpp"

using namespace mskb;

namespace {
void write_pids(const std::string& pids) {
  std::ofstream(std::getenv("FAKE_NVML_PIDS")) << pids << "\n";
}
}  // namespace

TEST(GpuSharingNvml, OwnEntryAndOthers) {
  ASSERT_NE(std::getenv("FAKE_NVML_PIDS"), nullptr);
  write_pids("100 200");  // two processes already on the GPU
  GpuSharing s("GPU-fake");
  ASSERT_TRUE(s.known());
  write_pids("100 200 300");  // ours appeared
  s.context_created();
  ASSERT_TRUE(s.known());
  EXPECT_EQ(s.others_now(), (std::vector<uint64_t>{100, 200}));
  write_pids("300");
  EXPECT_TRUE(s.others_now().empty());
  std::string many;
  for (int p = 1000; p < 1100; ++p) many += std::to_string(p) + " ";
  write_pids(many + "300");  // more than the first 64-entry buffer
  EXPECT_EQ(s.others_now().size(), 100u);
}

TEST(GpuSharingNvml, NoEntryOfOursMeansNotKnown) {
  write_pids("100");
  GpuSharing s("GPU-fake");
  ASSERT_TRUE(s.known());
  s.context_created();  // the list did not change: our entry cannot be told apart
  EXPECT_FALSE(s.known());
  EXPECT_TRUE(s.others_now().empty());
}

TEST(GpuSharingNvml, UnknownDeviceIsNotKnown) {
  write_pids("100");
  GpuSharing s("GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(s.known());
}

// mskb/util/device_probe.hpp: the one line a command prints when the machine has no usable GPU,
// from the facts the runner gathers. Each machine the message must tell apart, as probe results.
#include "mskb/util/device_probe.hpp"

#include <gtest/gtest.h>

#include "mskb/util/command_line.hpp"

namespace mskb {
namespace {

// This machine's case: the toolkit without a driver. cudart says "CUDA driver version is
// insufficient for CUDA runtime version", which sends users to update a driver they do not have.
DeviceProbe no_driver() {
  DeviceProbe p;
  p.libcuda_loads = false;
  p.libcuda_error = "libcuda.so.1: cannot open shared object file: No such file or directory";
  p.kernel_module = false;
  p.driver_version = 0;
  p.runtime_version = 13000;
  p.device_count = -1;
  p.error = "cudaErrorInsufficientDriver";
  p.error_text = "CUDA driver version is insufficient for CUDA runtime version";
  return p;
}

TEST(NoDevice, NoDriverLoadedSaysSoAndNotUpdateTheDriver) {
  const auto r = explain_no_device(no_driver());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cause, NoDeviceCause::no_driver);
  EXPECT_EQ(r->text.rfind("no NVIDIA driver is loaded (libcuda.so.1 cannot be loaded and /proc/driver/nvidia is missing): install", 0), 0u)
      << r->text;
  EXPECT_EQ(r->text.find("insufficient"), std::string::npos);
  EXPECT_NE(r->text.find("mskb list, build"), std::string::npos) << "says what works without a GPU";
  EXPECT_EQ(r->text.find('\n'), std::string::npos);
}

TEST(NoDevice, TheToolkitsStubIsNamed) {
  DeviceProbe p = no_driver();
  p.libcuda_loads = true;
  p.error = "cudaErrorStubLibrary";
  p.error_text = "CUDA driver is a stub library";
  const auto r = explain_no_device(p);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cause, NoDeviceCause::stub_driver);
  EXPECT_NE(r->text.find("stub library"), std::string::npos);
  EXPECT_NE(r->text.find("LD_LIBRARY_PATH"), std::string::npos);
}

TEST(NoDevice, AnOlderDriverNamesBothVersions) {
  DeviceProbe p;
  p.driver_version = 12020;
  p.runtime_version = 13000;
  p.error = "cudaErrorInsufficientDriver";
  const auto r = explain_no_device(p);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cause, NoDeviceCause::old_driver);
  EXPECT_EQ(r->text, "the NVIDIA driver supports CUDA up to 12.2 but this build's CUDA runtime is 13.0: install a driver for CUDA 13.0 or "
                     "newer (or build with a CUDA toolkit no newer than 12.2)");
}

TEST(NoDevice, ADriverWithoutGpusAndWhatMayHideThem) {
  DeviceProbe p;
  p.driver_version = 13000;
  p.runtime_version = 13000;
  p.device_count = 0;
  p.error = "cudaErrorNoDevice";
  auto r = explain_no_device(p);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cause, NoDeviceCause::no_device);
  EXPECT_EQ(r->text.rfind("the NVIDIA driver (CUDA 13.0) is loaded but sees no GPU: nvidia-smi", 0), 0u) << r->text;
  p.visible_devices = "";
  r = explain_no_device(p);
  ASSERT_TRUE(r);
  EXPECT_NE(r->text.find("CUDA_VISIBLE_DEVICES=\"\" may hide them"), std::string::npos) << r->text;
}

TEST(NoDevice, TheLibraryWithoutTheKernelModule) {
  DeviceProbe p;
  p.kernel_module = false;
  p.driver_version = 13000;
  p.runtime_version = 13000;
  p.error = "cudaErrorNoDevice";
  const auto r = explain_no_device(p);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cause, NoDeviceCause::no_module);
  EXPECT_NE(r->text.find("modprobe nvidia"), std::string::npos);
}

TEST(NoDevice, OtherFailuresAreLeftToTheirOwnError) {
  DeviceProbe p;
  p.driver_version = 13000;
  p.runtime_version = 13000;
  p.device_count = 1;
  p.error = "cudaErrorDevicesUnavailable";
  EXPECT_FALSE(explain_no_device(p));
}

TEST(NoDevice, TheProbeSurvivesItsJsonTrip) {
  DeviceProbe p = no_driver();
  p.visible_devices = "0,1";
  const DeviceProbe q = nlohmann::json(p).get<DeviceProbe>();
  EXPECT_EQ(q.libcuda_loads, p.libcuda_loads);
  EXPECT_EQ(q.libcuda_error, p.libcuda_error);
  EXPECT_EQ(q.kernel_module, p.kernel_module);
  EXPECT_EQ(q.runtime_version, 13000);
  EXPECT_EQ(q.device_count, -1);
  EXPECT_EQ(q.error, p.error);
  EXPECT_EQ(q.visible_devices, std::optional<std::string>("0,1"));
  EXPECT_FALSE(nlohmann::json(no_driver()).get<DeviceProbe>().visible_devices);
}

// What the command line prints of it: the harness wraps the reason, no_cuda_device unwraps it.
TEST(NoDevice, TheCommandLineShowsTheReasonWhole) {
  const std::string text = explain_no_device(no_driver())->text;
  EXPECT_EQ(no_cuda_device("no usable CUDA device: this command needs an NVIDIA GPU (" + text + ")"), std::optional<std::string>(text));
}

}  // namespace
}  // namespace mskb

// `mskb device`: the GPU, its measured ceilings (DRAM bandwidth, FP32/BF16 peaks) and launch floor.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/evaluator.hpp"

namespace mskb::cli {

namespace {

struct DeviceOptions {
  std::string json;  // FILE, or "-" for stdout
  bool refresh = false;
};

void run_device(const DeviceOptions& o) {
  const nlohmann::json d = device_info(o.refresh, "");
  if (!o.json.empty()) write_json(d, o.json);
  if (o.json == "-") return;
  std::cout << fmt::format("{} ({}, sm {}, {} SMs)\n", d.value("name", "?"), d.value("uuid", "?"), d.value("compute_capability", "?"),
                           d.value("sms", 0));
  std::cout << fmt::format("  DRAM bandwidth  {:>8.0f} GB/s (copy, read+write)\n", d.value("dram_bandwidth_gbs", 0.0));
  std::cout << fmt::format("  FP32 peak       {:>8.1f} TFLOP/s (cublasSgemm)\n", d.value("fp32_tflops", 0.0));
  std::cout << fmt::format("  BF16 peak       {:>8.1f} TFLOP/s (cublasGemmEx)\n", d.value("bf16_tflops", 0.0));
  if (d.contains("launch_floor_us") && d["launch_floor_us"].is_number())
    std::cout << fmt::format("  launch floor    {:>8.2f} us (an entry point launching one empty kernel and synchronizing; shapes within "
                             "1.5x of it are launch-bound)\n",
                             d["launch_floor_us"].get<double>());
  std::cout << (d.value("cached", false) ? "  (cached; --refresh re-measures)\n" : "  (measured now)\n");
  std::cout << fmt::format("  kernels are compiled for {} (this build's default; mskb build --arch to change)\n", default_arch());
}

}  // namespace

void add_device_command(CLI::App& app) {
  auto o = std::make_shared<DeviceOptions>();
  auto* device = app.add_subcommand("device", "Show the GPU, its measured ceilings (DRAM bandwidth, FP32/BF16 peaks) and its launch floor");
  add_json_option(device, o->json, "Write the device and its ceilings as JSON");
  device->add_flag("--refresh", o->refresh, "Measure again instead of using the cached ceilings");
  device->callback([o] { run_device(*o); });
}

}  // namespace mskb::cli

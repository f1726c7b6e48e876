// Every FP64 GPU reference (tasks/*/*/reference.cu) agrees with the task's CPU reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mskb/gpu/reference.cuh"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

TEST(GpuReferences, AgreeWithCpuReferences) {
  int n = 0;
  for (const auto& [name, fn] : gpu::gpu_references()) {
    const TaskSpec& t = get_task(name);
    std::vector<Shape> shapes = {t.paper.front(), t.heldout.front()};
    for (const auto& s : shapes)
      for (Precision p : {Precision::fp32, Precision::bf16}) {
        if (t.complexity(s) > uint64_t{5000000000}) continue;  // keep the CPU side quick
        const Args in = make_inputs(t, s, p, 1);
        const Args cpu = make_expected(t, s, p, in);
        Args gpu = in;
        fn(s, p, gpu, nullptr);
        for (std::size_t i = 0; i < t.params.size(); ++i) {
          if (!t.params[i].is_buffer || t.params[i].role == Role::in) continue;
          ASSERT_EQ(cpu[i].data.size(), gpu[i].data.size());
          double worst = 0;
          for (std::size_t k = 0; k < cpu[i].data.size(); ++k)
            worst = std::max(worst, std::abs(cpu[i].data[k] - gpu[i].data[k]) / (1e-12 + std::abs(cpu[i].data[k])));
          EXPECT_LT(worst, 1e-9) << name << " " << s.str() << " " << to_string(p) << " " << t.params[i].name;
        }
        ++n;
      }
    std::printf("%s: GPU FP64 reference matches the CPU reference\n", name.c_str());
  }
  std::printf("%d comparisons\n", n);
}

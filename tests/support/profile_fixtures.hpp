// Shared by the profile tests: where the captured Nsight Compute exports live, and what each of
// them is by construction or by nature.
#pragma once

#include <string>
#include <vector>

namespace cmprof_test {

inline std::string fixture(const std::string& name) { return std::string(CM_PROFILE_FIXTURES) + "/" + name; }

struct FixtureFact {
  const char* name;     // fixtures/<name>.csv
  std::size_t kernels;  // kernel rows in the export
  const char* cls;      // the expected bottleneck class
};

// Expected classes. The three "by construction" kernels decide the classifier's design; the
// others are justified in classify_test.cpp.
inline const std::vector<FixtureFact>& fixture_facts() {
  static const std::vector<FixtureFact> facts = {
      {"stream_copy", 1, "memory-bandwidth"},          {"pointer_chase", 2, "memory-latency"},
      {"fma_loop", 1, "compute"},                      {"vector_add_baseline", 1, "memory-latency"},
      {"vector_add_vendor", 1, "memory-latency"},      {"dot_product_baseline", 1, "memory-latency"},
      {"dot_product_vendor", 2, "memory-latency"},     {"matrix_mul_baseline", 1, "memory-bandwidth"},
      {"matrix_mul_vendor", 1, "compute"},             {"softmax_baseline", 1, "memory-latency"},
      {"softmax_vendor", 1, "memory-latency"},         {"spmv_csr_baseline", 1, "memory-latency"},
      {"spmv_csr_vendor", 3, "memory-latency"},        {"stencil_2d_baseline", 1, "memory-bandwidth"},
  };
  return facts;
}

}  // namespace cmprof_test

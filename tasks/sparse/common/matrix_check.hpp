// Test helper for the sparse tasks' test.cpp: runs every shipped Matrix Market file
// (tasks/sparse/common/matrices/*.mtx) through a task's from_matrix (mskb run --matrix) and checks
// the task's FP64 reference against a product computed straight from the file's CSR, so the
// conversion to the task's format (COO order, CSC, ELL padding) loses or invents nothing.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "mskb/util/files.hpp"  // source_root
#include "mskb/core/instance.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/registry.hpp"

namespace mskb::sparse_test {

// x_param / y_param: indices of the dense input and the output in the task's parameters.
// spmm tasks run with K = 3 (instead of the paper's 4096) to stay quick.
inline void check_shipped_matrices(const std::string& task, std::size_t x_param, std::size_t y_param) {
  const TaskSpec& t = get_task(task);
  ASSERT_TRUE(t.from_matrix) << task;
  const std::filesystem::path dir = std::filesystem::path(source_root()) / "tasks/sparse/common/matrices";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".mtx") continue;
    ++files;
    const SparseMatrix m = read_matrix_market(entry.path().string());
    Shape s = matrix_shape(t, m);
    for (auto& d : s.dims)
      if (d.first == "K") d.second = 3;
    const int64_t K = s.has("K") ? s["K"] : 1;
    const Args in = make_inputs(t, s, Precision::fp32, 1, &m);
    const Args out = make_expected(t, s, Precision::fp32, in);
    const mskb::HostData& X = in[x_param].data;
    const mskb::HostData& Y = out[y_param].data;
    ASSERT_EQ(X.size(), static_cast<std::size_t>(m.cols * K)) << entry.path();
    ASSERT_EQ(Y.size(), static_cast<std::size_t>(m.rows * K)) << entry.path();
    EXPECT_GT(t.complexity(s), 0u);
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t k = 0; k < K; ++k) {
        double want = 0, scale = 0;
        for (int64_t p = m.offsets[static_cast<std::size_t>(i)]; p < m.offsets[static_cast<std::size_t>(i) + 1]; ++p) {
          const double term = round_to(Precision::fp32, m.values[static_cast<std::size_t>(p)]) *
                              X[static_cast<std::size_t>(m.indices[static_cast<std::size_t>(p)] * K + k)];
          want += term;
          scale += std::fabs(term);
        }
        ASSERT_NEAR(Y[static_cast<std::size_t>(i * K + k)], want, 1e-12 * scale) << entry.path() << " row " << i << " k " << k;
      }
  }
  EXPECT_GE(files, 3);
}

}  // namespace mskb::sparse_test

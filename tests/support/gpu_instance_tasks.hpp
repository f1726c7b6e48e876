// The tasks whose large instances are GPU instances (docs/harness.md section 4): uniform inputs
// (set_uniform_inputs) and a device reference (MSKB_DEVICE_REFERENCE in reference.cu). Named here
// once for the tests that hold them to it: a task that silently lost either would fall back to
// the host path. Header only; tests only.
#pragma once

namespace mskb_test {

inline constexpr const char* kGpuInstanceTasks[] = {
    "matrix_copy", "matrix_transpose", "matrix_scalar_mul", "matrix_vector_mul", "stencil_2d", "matrix_mul",
    "square_matrix_mul", "conv_2d", "high_order_contraction", "RELU", "leaky_RELU", "elu", "selu", "gelu",
    "sigmoid", "row_tanh", "SwiGLU", "vector_add", "dot_product", "reverse_array", "prefix_sum", "MSE_loss",
    "layer_norm", "rms_norm", "monte_carlo_int", "simpson_int", "max_pooling_2d", "conv_1d", "stencil_3d", "hinge_loss",
    "silu_and_mul", "batch_norm", "top_k", "sorting", "merge_attn_states"};

}  // namespace mskb_test

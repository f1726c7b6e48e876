// Owns instance construction: generate a task's inputs for (shape, precision, seed), round them
// to their device types, and compute the FP64 reference. Shared by the runner and the CPU tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb {

// The seed actually fed to the Rng: mixes the user's seed with the task name and the shape, so
// every (task, shape, seed) draws different data and the same triple always draws the same.
uint64_t instance_seed(const TaskSpec& spec, const Shape& shape, uint64_t seed);

// What make_inputs leaves in the out/accumulate buffers: zeros (what a CPU reference starts
// from), or only their sizes, the elements unwritten (HostData: whatever `storage` held, or fresh
// memory not yet mapped), for a reference that writes every output without reading it (the GPU
// references). On the paper's largest SpMM that is 8 GB of FP64 never written on the host.
enum class Outputs { zeroed, sized };

// Inputs generated (or, for a user's matrix, built from it) and rounded; outputs sized
// (out/accumulate zero unless `outputs` says sized, inplace = input).
// `storage`: the buffers of an instance no longer needed, reused (their allocations kept): after
// the largest shape, generating faults in no new pages (the page faults of fresh multi-GB buffers,
// not the generators, were most of the generation time). The inputs do not depend on it.
Args make_inputs(const TaskSpec& spec, const Shape& shape, Precision p, uint64_t seed, const SparseMatrix* matrix = nullptr,
                 Args storage = {}, Outputs outputs = Outputs::zeroed);
// A scalar as the entry point receives it: an int, a float, or the precision's real type.
double round_scalar(ScalarType t, Precision p, double v);
// The shape of an instance built from `m`: rows, cols, nnz, max_row_nnz, max_col_nnz, matrix=1,
// plus the task's other dimensions taken from its first paper shape (e.g. spmm's K).
Shape matrix_shape(const TaskSpec& spec, const SparseMatrix& m);
// Copy of `inputs` with the reference outputs filled in (CPU FP64 reference).
Args make_expected(const TaskSpec& spec, const Shape& shape, Precision p, const Args& inputs);

// Where the buffers of one instance live in the two shared regions between the verifier and the
// candidate process (mskb/util/channel.hpp): each input in the input region (written and sealed by the
// verifier), and in the output region each buffer's contents after the call (outputs, and
// read-only inputs as the kernel left them) and its two guard zones (front, then back). The same
// function on both sides of the channel.
struct BufferPlace {
  bool buffer = false;
  std::size_t bytes = 0;
  bool uploaded = false;         // in or inplace: its contents come from the input region
  std::size_t in_offset = 0;     // in the input region (uploaded only)
  std::size_t out_offset = 0;    // in the output region
  std::size_t guard_offset = 0;  // in the output region: 2 * guard_bytes
};
struct InstanceLayout {
  std::vector<BufferPlace> params;
  std::size_t input_bytes = 0, output_bytes = 0, guard_bytes = 0;
};
// `elements[i]`: the element count of buffer parameter i (ignored for scalars).
InstanceLayout instance_layout(const TaskSpec& spec, Precision p, const std::vector<std::size_t>& elements, std::size_t guard_bytes);

// One element in its device bytes (elem_bytes(e, p) of them) and back to FP64. Floating types
// round to nearest even straight from the double (fp16: fp16_bits); integers are exact for the
// integer values the generators give (int64: up to 2^53 in magnitude, FP64's exact integers).
void encode_elem(double v, Elem e, Precision p, unsigned char* dst);
double decode_elem(const unsigned char* src, Elem e, Precision p);

// The inputs (in and inplace buffers) of `a`, in their device types, into the input region laid
// out by `l` (parallel).
void encode_inputs(const TaskSpec& spec, Precision p, const Args& a, const InstanceLayout& l, unsigned char* input_region);

struct CompareResult {
  bool ok = true;
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  std::size_t nans = 0;
  std::size_t unwritten = 0;  // still the poison pattern
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;   // |out-ref| / (atol + rtol*|ref|), >1 fails
  std::string param;          // first failing parameter
  std::vector<std::size_t> first_bad;  // up to 8 indices
  std::vector<double> first_bad_got, first_bad_want;
};

// Compares one output buffer; `unwritten_mask[i]` marks elements still holding the poison bits.
void compare_buffer(const std::string& param, const std::vector<double>& got,
                    const std::vector<unsigned char>& unwritten_mask, const HostData& want,
                    Tolerance tol, bool exact, CompareResult& r);

// The same comparison straight from the device bytes of the buffer (`elem` in precision `p`),
// without decoding it into doubles first (on the large sweeps that copy was gigabytes per check).
// `poison` >= 0: an element whose bytes all equal it was never written (overwrite outputs; 0xFF
// bytes are a NaN in every floating type, -1 in int32 and int64).
void compare_encoded(const std::string& param, const unsigned char* bytes, std::size_t nbytes, Elem elem, Precision p, int poison,
                     const HostData& want, Tolerance tol, bool exact, CompareResult& r);

}  // namespace mskb

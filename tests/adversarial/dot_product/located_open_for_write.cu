// mskb-expect: sandbox_violation
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: imports nothing but strlen. From strlen's address it finds libc's ELF header in memory,
// reads libc's own dynamic symbol table and calls libc's open() through the address it found,
// for writing (O_WRONLY | O_CREAT | O_TRUNC): the way to overwrite a cached baseline library, a
// results file or a run store. When that open is refused it asks libc's fork() for a helper
// process instead. No forbidden import, no system-call bytes: the binary policy sees nothing.
// Why reject: a kernel must not create or modify a file on the GPU host. The OS sandbox refuses
// the open (EPERM from seccomp, EACCES from Landlock: nothing is created) and kills the process
// at the fork (clone without CLONE_THREAD): sandbox_violation.
#include <cuda_runtime.h>
#include <elf.h>
#include <fcntl.h>

#include <cstring>

namespace {

__global__ void dot(float* loss, const float* x, const float* y, int n) {
  __shared__ float part[256];
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i] * y[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, part[0]);
}

bool same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// libc's exported function `name`, found through its in-memory ELF dynamic symbol table.
void* libc_symbol(const char* name) {
  size_t (*fn)(const char*) = &strlen;
  auto page = reinterpret_cast<unsigned long>(fn) & ~0xfffUL;
  for (int i = 0; i < 4096; ++i, page -= 0x1000) {
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(page);
    if (eh->e_ident[0] != 0x7f || eh->e_ident[1] != 'E' || eh->e_ident[2] != 'L' || eh->e_ident[3] != 'F') continue;
    const auto* ph = reinterpret_cast<const Elf64_Phdr*>(page + eh->e_phoff);
    unsigned long base = page;
    for (int k = 0; k < eh->e_phnum; ++k)
      if (ph[k].p_type == PT_LOAD) {
        base = page - (ph[k].p_vaddr & ~0xfffUL);
        break;
      }
    const Elf64_Dyn* dyn = nullptr;
    for (int k = 0; k < eh->e_phnum; ++k)
      if (ph[k].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(base + ph[k].p_vaddr);
    if (!dyn) return nullptr;
    unsigned long symtab = 0, strtab = 0;
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      if (dyn->d_tag == DT_SYMTAB) symtab = dyn->d_un.d_ptr;
      if (dyn->d_tag == DT_STRTAB) strtab = dyn->d_un.d_ptr;
    }
    if (symtab < base) symtab += base;
    if (strtab < base) strtab += base;
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(symtab);
    const auto* str = reinterpret_cast<const char*>(strtab);
    for (const Elf64_Sym* s = sym; reinterpret_cast<unsigned long>(s) < strtab; ++s)
      if (s->st_value != 0 && ELF64_ST_TYPE(s->st_info) == STT_FUNC && same(str + s->st_name, name))
        return reinterpret_cast<void*>(base + s->st_value);
    return nullptr;
  }
  return nullptr;
}

}  // namespace

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    using OpenFn = int (*)(const char*, int, ...);
    using ForkFn = int (*)();
    if (auto open_fn = reinterpret_cast<OpenFn>(libc_symbol("open"))) {
      const int fd = open_fn("/tmp/mskb_adversarial_located_open", O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0)
        if (auto fork_fn = reinterpret_cast<ForkFn>(libc_symbol("fork"))) fork_fn();
    }
  }
  cudaMemset(loss, 0, sizeof(float));
  dot<<<256, 256>>>(loss, X, Y, N);
}

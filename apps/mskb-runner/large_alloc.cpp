// mskb-runner's global operator new: large allocations are faulted in from every CPU before they
// are returned (mskb/util/prefault.hpp), so a large std::vector (a sparse reference's row grouping,
// a user's matrix: value-initialized by one thread in its resize) is not paged in one 4 KiB page
// at a time by that thread. The instances' own buffers (HostData, mskb/core/task.hpp) bypass it:
// they come from malloc unwritten and are faulted in where first written, by parallel fills, or
// never (outputs only a GPU reference writes). Everything else is the standard behaviour: memory
// from malloc (which the default operator delete frees), std::bad_alloc when there is none.
#include <cstdlib>
#include <new>

#include "mskb/util/prefault.hpp"

void* operator new(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (bytes >= mskb::kPrefaultMinBytes) mskb::prefault(p, bytes);
  return p;
}

// libstdc++'s own operator new[] does not reach the one above (it binds its operator new inside
// the library): array allocations are routed here explicitly.
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }

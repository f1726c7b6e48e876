// A seed for the binary policy's fuzz target: a small shared object of the host toolchain with an
// exported C function, a call into libc and into libstdc++ (imports, relocations, DT_NEEDED).
#include <cstring>
#include <string>

extern "C" int fuzz_seed_entry(const char* s) { return static_cast<int>(std::strlen(s) + std::string(s).size()); }

// Owns what the binary policy's sources share (private to mskb::harness, not installed): the ELF
// reader (binary_policy_elf.cpp), the C runtime's allowlist (binary_policy_libc.cpp) and the scan
// for raw system calls (binary_policy_syscalls.cpp). binary_policy.cpp composes them into
// check_binary_policy; binary_policy_imports.cpp classifies imports by name.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "mskb/harness/binary_policy.hpp"

namespace mskb::policy_detail {

inline ImportVerdict allow() { return {true, ""}; }
inline ImportVerdict deny(const std::string& why) { return {false, why}; }

// Marks the verdict refused with one more violation (violations stay in the order found).
void refuse(PolicyVerdict& v, const std::string& kind, const std::string& symbol, const std::string& reason);

// A C symbol that is none of the CUDA, vendor, C++ or loader names: libc, libm and libgcc,
// judged against their deny list and allowlist (unknown names are refused).
ImportVerdict classify_c_runtime(const std::string& symbol);

// ---- ELF reading: the file as the dynamic loader sees it (program headers, PT_DYNAMIC).

struct Elf {
  std::string bytes;
  std::vector<Elf64_Phdr> ph;
  std::string error;  // why load_elf refused the file

  template <class T>
  bool at(std::uint64_t off, T& out) const {
    if (off > bytes.size() || bytes.size() - off < sizeof(T)) return false;
    std::memcpy(&out, bytes.data() + off, sizeof(T));
    return true;
  }
  // File offset of a virtual address inside a PT_LOAD's file image (size bytes available).
  bool offset_of(std::uint64_t va, std::uint64_t size, std::uint64_t& off) const;
  // The NUL-terminated string at `idx` of a string table (cut at the table's or the file's end).
  std::string str(std::uint64_t strtab_off, std::uint64_t strsz, std::uint64_t idx) const;
};

// Reads an ELF64 x86-64 shared object's bytes and program headers; false with a one-line
// e.error when it cannot be read or is not one.
bool load_elf(const std::string& path, Elf& e);

// The PT_DYNAMIC entries up to DT_NULL, and the values the policy reads from them.
struct DynamicSection {
  std::vector<Elf64_Dyn> entries;  // in file order
  std::uint64_t strtab = 0, strsz = 0, symtab = 0, syment = sizeof(Elf64_Sym);
  std::uint64_t rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0;
  std::vector<std::uint64_t> needed;  // string-table offsets of the DT_NEEDED names
  bool have_strtab = false, have_symtab = false;
};
DynamicSection read_dynamic(const Elf& e, const Elf64_Phdr& dyn);

// The symbol indices the relocations (DT_RELA and DT_JMPREL) name, and one past the largest.
struct RelocatedSymbols {
  std::set<std::uint64_t> bound;
  std::uint64_t count = 0;
};
// False when a relocation table lies outside the file.
bool relocated_symbols(const Elf& e, const DynamicSection& d, RelocatedSymbols& out);

// The symbol count of the section header's .dynsym at `symtab` (0 without section headers).
std::uint64_t dynsym_count(const Elf& e, std::uint64_t symtab);

struct UndefinedSymbol {
  std::uint64_t index;
  std::string name;  // empty for an unnamed symbol
};
// The undefined symbols among the first `count` of the dynamic symbol table, in table order.
// False when a symbol lies outside the file (`out` then holds those before it).
bool undefined_symbols(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, std::uint64_t count,
                       std::vector<UndefinedSymbol>& out);

// The defined functions (global or weak, default or protected visibility: what dlsym finds) among
// the first `count` of the dynamic symbol table, in table order. False when a symbol lies outside
// the file (`out` then holds those before it).
bool defined_functions(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, std::uint64_t count, std::vector<std::string>& out);

// The dynamic symbol table's length: the section header's .dynsym, else DT_HASH's chain count,
// else the distance from the symbol table to the string table that follows it (0: unknown).
std::uint64_t dynamic_symbol_count(const Elf& e, const DynamicSection& d);

// ---- host code

// Refuses (kind "code") every raw system-call instruction in the executable segments; objdump,
// when found, names the instruction a hit sits inside (v.notes says when it could not).
void check_raw_syscalls(const Elf& e, const std::string& so_path, PolicyVerdict& v);

}  // namespace mskb::policy_detail

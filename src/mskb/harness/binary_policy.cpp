// The binary policy's verdict on one built object: the ELF's segments and dynamic section, every
// import a relocation can bind, the DT_NEEDED libraries and the host code, in that order (the
// parts: binary_policy_elf.cpp reads the file, binary_policy_imports.cpp and
// binary_policy_libc.cpp classify names, binary_policy_syscalls.cpp scans the code).
#include "mskb/harness/binary_policy.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "binary_policy_internal.hpp"
#include "mskb/util/text.hpp"

namespace mskb {

std::string PolicyViolation::describe() const {
  if (kind == "import") return "imports " + symbol + ": " + reason;
  if (kind == "library") return "needs " + symbol + ": " + reason;
  return symbol + ": " + reason;
}

std::string PolicyVerdict::describe(std::size_t max) const {
  if (ok) return "ok";
  std::string out;
  for (std::size_t i = 0; i < violations.size() && i < max; ++i) {
    if (i) out += "; ";
    out += violations[i].describe();
  }
  if (violations.size() > max) out += fmt::format(" (and {} more)", violations.size() - max);
  return out;
}

namespace policy_detail {

void refuse(PolicyVerdict& v, const std::string& kind, const std::string& symbol, const std::string& reason) {
  v.ok = false;
  v.violations.push_back({kind, printable(symbol), reason});  // names come from the file: no newline or escape reaches a report
}

namespace {

// Segments: no writable+executable memory, no executable stack, not a program. Returns the
// PT_DYNAMIC header (nullptr when there is none).
const Elf64_Phdr* check_segments(const Elf& e, PolicyVerdict& v) {
  const Elf64_Phdr* dyn = nullptr;
  for (const auto& p : e.ph) {
    if (p.p_type == PT_LOAD && (p.p_flags & PF_X) && (p.p_flags & PF_W))
      refuse(v, "object", fmt::format("segment at {:#x}", p.p_vaddr), "is writable and executable (code could be generated at run time)");
    if (p.p_type == PT_GNU_STACK && (p.p_flags & PF_X))
      refuse(v, "object", "executable stack", "asks for an executable stack (code could be generated at run time)");
    if (p.p_type == PT_INTERP) refuse(v, "object", "PT_INTERP", "is a program, not a shared object");
    if (p.p_type == PT_DYNAMIC) dyn = &p;
  }
  return dyn;
}

// Dynamic entries the loader would act on beyond binding imports: other relocation formats,
// library search paths, filters, text relocations.
void check_dynamic_entry(const Elf64_Dyn& d, PolicyVerdict& v) {
  switch (d.d_tag) {
    case DT_REL:
      refuse(v, "object", "DT_REL", "unexpected relocation format for x86-64");
      break;
    case DT_PLTREL:
      if (d.d_un.d_val != DT_RELA) refuse(v, "object", "DT_PLTREL", "unexpected relocation format for x86-64");
      break;
    case DT_RPATH:
    case DT_RUNPATH:
      refuse(v, "object", d.d_tag == DT_RPATH ? "DT_RPATH" : "DT_RUNPATH", "sets a library search path (could load other libraries)");
      break;
    case DT_AUXILIARY:
    case DT_FILTER:
      refuse(v, "object", "DT_FILTER", "filters another library");
      break;
    case DT_TEXTREL:
      refuse(v, "object", "DT_TEXTREL", "relocates its code at load time");
      break;
    default:
      break;
  }
}

// The symbols the loader binds are those the relocations name; the section header's .dynsym
// count covers the rest (an undefined symbol no relocation names is never resolved). Each
// distinct imported name is classified once. False when the relocations lie outside the file.
bool check_imports(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, const PolicyOptions& options, PolicyVerdict& v) {
  RelocatedSymbols relocated;
  if (!relocated_symbols(e, d, relocated)) {
    refuse(v, "object", "relocations", "malformed (outside the file)");
    return false;
  }
  const std::uint64_t count = std::max(relocated.count, dynsym_count(e, d.symtab));
  std::vector<UndefinedSymbol> imports;
  const bool complete = undefined_symbols(e, d, strtab_off, count, imports);
  std::set<std::string> seen;
  for (const UndefinedSymbol& s : imports) {
    if (s.name.empty()) {
      if (relocated.bound.count(s.index)) refuse(v, "import", fmt::format("symbol #{}", s.index), "an unnamed import");
      continue;
    }
    if (!seen.insert(s.name).second) continue;
    const ImportVerdict iv = classify_import(s.name, options.libraries);
    if (!iv.allowed) refuse(v, "import", s.name, iv.reason);
  }
  if (!complete) refuse(v, "object", "symbol table", "malformed (a relocation names a symbol outside the table)");
  return true;
}

void check_needed(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, const PolicyOptions& options, PolicyVerdict& v) {
  for (std::uint64_t n : d.needed) {
    const std::string lib = e.str(strtab_off, d.strsz, n);
    const ImportVerdict iv = classify_needed(lib, options.libraries);
    if (!iv.allowed) refuse(v, "library", lib.empty() ? std::string("(unnamed library)") : lib, iv.reason);
  }
}

}  // namespace

}  // namespace policy_detail

PolicyVerdict check_binary_policy(const std::string& so_path, const PolicyOptions& options) {
  using namespace policy_detail;
  PolicyVerdict v;
  Elf e;
  if (!load_elf(so_path, e)) {
    refuse(v, "object", std::filesystem::path(so_path).filename().string(), e.error);
    return v;
  }
  const Elf64_Phdr* dyn = check_segments(e, v);
  if (!dyn) {
    refuse(v, "object", "PT_DYNAMIC", "the object has no dynamic segment");
    return v;
  }
  const DynamicSection d = read_dynamic(e, *dyn);
  for (const Elf64_Dyn& entry : d.entries) check_dynamic_entry(entry, v);
  std::uint64_t strtab_off = 0, symtab_off = 0;
  if (!d.have_strtab || !d.have_symtab || d.syment != sizeof(Elf64_Sym) || !e.offset_of(d.strtab, d.strsz, strtab_off) ||
      !e.offset_of(d.symtab, sizeof(Elf64_Sym), symtab_off)) {
    refuse(v, "object", "dynamic section", "malformed (symbol or string table outside the file)");
    return v;
  }
  if (!check_imports(e, d, strtab_off, options, v)) return v;
  check_needed(e, d, strtab_off, options, v);
  check_raw_syscalls(e, so_path, v);  // host code: no raw system-call instruction anywhere
  return v;
}

std::vector<std::string> exported_functions(const std::string& so_path) {
  using namespace policy_detail;
  Elf e;
  if (!load_elf(so_path, e)) throw std::runtime_error(so_path + ": " + e.error);
  const auto dyn = std::find_if(e.ph.begin(), e.ph.end(), [](const Elf64_Phdr& p) { return p.p_type == PT_DYNAMIC; });
  if (dyn == e.ph.end()) throw std::runtime_error(so_path + ": no dynamic segment");
  const DynamicSection d = read_dynamic(e, *dyn);
  std::uint64_t strtab_off = 0;
  if (!d.have_strtab || !d.have_symtab || d.syment != sizeof(Elf64_Sym) || !e.offset_of(d.strtab, d.strsz, strtab_off))
    throw std::runtime_error(so_path + ": malformed dynamic section (symbol or string table outside the file)");
  std::vector<std::string> out;
  if (!defined_functions(e, d, strtab_off, dynamic_symbol_count(e, d), out))
    throw std::runtime_error(so_path + ": malformed symbol table (outside the file)");
  return out;
}

}  // namespace mskb

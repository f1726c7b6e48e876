// The binary policy's ELF reader: an ELF64 x86-64 shared object as the dynamic loader sees it -
// program headers, the PT_DYNAMIC entries, the relocations and the dynamic symbol table. Every
// offset is checked against the file; nothing is mapped or executed.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "binary_policy_internal.hpp"
#include "mskb/util/text.hpp"

namespace mskb::policy_detail {

bool Elf::offset_of(std::uint64_t va, std::uint64_t size, std::uint64_t& off) const {
  for (const auto& p : ph)
    if (p.p_type == PT_LOAD && va >= p.p_vaddr && va - p.p_vaddr <= p.p_filesz && p.p_filesz - (va - p.p_vaddr) >= size) {
      off = p.p_offset + (va - p.p_vaddr);
      return off <= bytes.size() && bytes.size() - off >= size;
    }
  return false;
}

std::string Elf::str(std::uint64_t strtab_off, std::uint64_t strsz, std::uint64_t idx) const {
  if (idx >= strsz || strtab_off + idx >= bytes.size()) return "";
  const char* b = bytes.data() + strtab_off + idx;
  const std::size_t limit = std::min<std::uint64_t>(strsz - idx, bytes.size() - strtab_off - idx);
  return std::string(b, strnlen(b, limit));
}

namespace {

// The ELF header's identity: "" when the file is an ELF64 x86-64 shared object, else why not.
std::string header_error(const Elf& e) {
  Elf64_Ehdr h{};
  if (!e.at(0, h) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) return "not an ELF file";
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB || h.e_machine != EM_X86_64)
    return "not an ELF64 x86-64 object";
  if (h.e_type != ET_DYN) return "not a shared object";
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0) return "malformed program headers";
  return "";
}

}  // namespace

bool load_elf(const std::string& path, Elf& e) {
  try {
    e.bytes = read_text(path);
  } catch (const std::runtime_error& ex) {
    e.error = ex.what();  // "cannot read PATH"
    return false;
  }
  e.error = header_error(e);
  if (!e.error.empty()) return false;
  Elf64_Ehdr h{};
  e.at(0, h);
  for (int i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr p{};
    if (!e.at(h.e_phoff + static_cast<std::uint64_t>(i) * sizeof(Elf64_Phdr), p)) {
      e.error = "truncated program headers";
      return false;
    }
    e.ph.push_back(p);
  }
  return true;
}

DynamicSection read_dynamic(const Elf& e, const Elf64_Phdr& dyn) {
  DynamicSection s;
  for (std::uint64_t off = dyn.p_offset; off + sizeof(Elf64_Dyn) <= dyn.p_offset + dyn.p_filesz; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    if (!e.at(off, d)) break;
    if (d.d_tag == DT_NULL) break;
    s.entries.push_back(d);
    switch (d.d_tag) {
      case DT_STRTAB:
        s.strtab = d.d_un.d_ptr;
        s.have_strtab = true;
        break;
      case DT_STRSZ:
        s.strsz = d.d_un.d_val;
        break;
      case DT_SYMTAB:
        s.symtab = d.d_un.d_ptr;
        s.have_symtab = true;
        break;
      case DT_SYMENT:
        s.syment = d.d_un.d_val;
        break;
      case DT_RELA:
        s.rela = d.d_un.d_ptr;
        break;
      case DT_RELASZ:
        s.relasz = d.d_un.d_val;
        break;
      case DT_JMPREL:
        s.jmprel = d.d_un.d_ptr;
        break;
      case DT_PLTRELSZ:
        s.pltrelsz = d.d_un.d_val;
        break;
      case DT_NEEDED:
        s.needed.push_back(d.d_un.d_val);
        break;
      default:
        break;
    }
  }
  return s;
}

bool relocated_symbols(const Elf& e, const DynamicSection& d, RelocatedSymbols& out) {
  for (auto [addr, size] : {std::pair{d.rela, d.relasz}, std::pair{d.jmprel, d.pltrelsz}}) {
    if (!size) continue;
    std::uint64_t off = 0;
    if (!e.offset_of(addr, size, off)) return false;
    for (std::uint64_t i = 0; i + sizeof(Elf64_Rela) <= size; i += sizeof(Elf64_Rela)) {
      Elf64_Rela r{};
      e.at(off + i, r);
      const std::uint64_t idx = ELF64_R_SYM(r.r_info);
      if (idx) out.bound.insert(idx);
      out.count = std::max(out.count, idx + 1);
    }
  }
  return true;
}

std::uint64_t dynsym_count(const Elf& e, std::uint64_t symtab) {
  std::uint64_t n = 0;
  Elf64_Ehdr h{};
  e.at(0, h);
  if (h.e_shentsize != sizeof(Elf64_Shdr)) return n;
  for (int i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!e.at(h.e_shoff + static_cast<std::uint64_t>(i) * sizeof(Elf64_Shdr), sh)) break;
    if (sh.sh_type == SHT_DYNSYM && sh.sh_addr == symtab && sh.sh_entsize == sizeof(Elf64_Sym))
      n = std::max<std::uint64_t>(n, sh.sh_size / sizeof(Elf64_Sym));
  }
  return n;
}

bool undefined_symbols(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, std::uint64_t count,
                       std::vector<UndefinedSymbol>& out) {
  for (std::uint64_t i = 1; i < count; ++i) {
    std::uint64_t off = 0;
    Elf64_Sym sym{};
    if (!e.offset_of(d.symtab + i * sizeof(Elf64_Sym), sizeof(Elf64_Sym), off) || !e.at(off, sym)) return false;
    if (sym.st_shndx != SHN_UNDEF) continue;
    out.push_back({i, e.str(strtab_off, d.strsz, sym.st_name)});
  }
  return true;
}

bool defined_functions(const Elf& e, const DynamicSection& d, std::uint64_t strtab_off, std::uint64_t count, std::vector<std::string>& out) {
  for (std::uint64_t i = 1; i < count; ++i) {
    std::uint64_t off = 0;
    Elf64_Sym sym{};
    if (!e.offset_of(d.symtab + i * sizeof(Elf64_Sym), sizeof(Elf64_Sym), off) || !e.at(off, sym)) return false;
    const unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info), vis = ELF64_ST_VISIBILITY(sym.st_other);
    if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
        (vis != STV_DEFAULT && vis != STV_PROTECTED))
      continue;
    const std::string name = e.str(strtab_off, d.strsz, sym.st_name);
    if (!name.empty()) out.push_back(name);
  }
  return true;
}

std::uint64_t dynamic_symbol_count(const Elf& e, const DynamicSection& d) {
  if (const std::uint64_t n = dynsym_count(e, d.symtab)) return n;
  for (const Elf64_Dyn& entry : d.entries)
    if (entry.d_tag == DT_HASH) {
      std::uint64_t off = 0;
      std::uint32_t header[2] = {0, 0};  // nbucket, nchain (= the symbol count)
      if (e.offset_of(entry.d_un.d_ptr, sizeof(header), off) && e.at(off, header)) return header[1];
    }
  if (d.strtab > d.symtab) return (d.strtab - d.symtab) / sizeof(Elf64_Sym);
  return 0;
}

}  // namespace mskb::policy_detail

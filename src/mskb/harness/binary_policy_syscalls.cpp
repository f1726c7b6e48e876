// The binary policy's scan of host code: the bytes of a raw system call (syscall 0f 05,
// sysenter 0f 34, int 0x80 cd 80) anywhere in an executable segment, also inside another
// instruction; objdump, when installed, says which instruction a hit sits inside.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "binary_policy_internal.hpp"
#include "mskb/util/process.hpp"

namespace mskb::policy_detail {

namespace {

// A raw system-call instruction: where its bytes are in executable segments.
struct CodeHit {
  std::uint64_t va;
  const char* what;
};

std::vector<CodeHit> syscall_bytes(const Elf& e) {
  std::vector<CodeHit> hits;
  for (const auto& p : e.ph) {
    if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
    if (p.p_offset > e.bytes.size()) continue;
    const std::uint64_t n = std::min<std::uint64_t>(p.p_filesz, e.bytes.size() - p.p_offset);
    const auto* b = reinterpret_cast<const unsigned char*>(e.bytes.data() + p.p_offset);
    for (std::uint64_t i = 0; i + 1 < n; ++i) {
      const char* what = b[i] == 0x0f && b[i + 1] == 0x05   ? "syscall"
                         : b[i] == 0x0f && b[i + 1] == 0x34 ? "sysenter"
                         : b[i] == 0xcd && b[i + 1] == 0x80 ? "int 0x80"
                                                            : nullptr;
      if (what) hits.push_back({p.p_vaddr + i, what});
    }
  }
  return hits;
}

// objdump -d over the executable sections: instruction start -> text. Empty map when objdump is
// missing or fails (`note` says so).
std::map<std::uint64_t, std::string> disassemble(const std::string& path, std::string& note) {
  std::map<std::uint64_t, std::string> insns;
  std::string tool;
  for (const char* c : {"/usr/bin/objdump", "/bin/objdump", "/usr/local/bin/objdump"})
    if (std::filesystem::exists(c)) {
      tool = c;
      break;
    }
  if (tool.empty()) {
    note = "objdump not found (install binutils): system-call bytes were found by a byte scan and not decoded";
    return insns;
  }
  std::string out;
  if (run_command({tool, "-d", "-w", "--no-show-raw-insn", path}, out, 120) != 0) {
    note = "objdump failed on the object: system-call bytes were found by a byte scan and not decoded";
    return {};
  }
  static const std::regex line(R"(^\s*([0-9a-f]+):\s+(.*\S)\s*$)");
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line)) insns[std::stoull(m[1].str(), nullptr, 16)] = m[2].str();
  }
  return insns;
}

// Why a hit is refused: a plain raw system call, or (with the disassembly) bytes inside another
// instruction that a jump could land on.
std::string hit_reason(const CodeHit& hit, const std::map<std::uint64_t, std::string>& insns) {
  std::string reason = "raw system call in host code (bypasses every library the policy checks)";
  if (!insns.empty()) {
    auto it = insns.upper_bound(hit.va);
    if (it != insns.begin()) {
      --it;
      if (it->first != hit.va)
        reason = fmt::format("system-call bytes inside the instruction at {:#x} (`{}`): a jump into them makes a raw system call",
                             it->first, it->second.substr(0, 60));
    }
  }
  return reason;
}

}  // namespace

void check_raw_syscalls(const Elf& e, const std::string& so_path, PolicyVerdict& v) {
  const std::vector<CodeHit> hits = syscall_bytes(e);
  if (hits.empty()) return;
  std::string note;
  const auto insns = disassemble(so_path, note);
  if (!note.empty()) v.notes.push_back(note);
  for (const CodeHit& hit : hits) refuse(v, "code", fmt::format("{} at {:#x}", hit.what, hit.va), hit_reason(hit, insns));
}

}  // namespace mskb::policy_detail

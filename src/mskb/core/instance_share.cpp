#include "mskb/core/instance_share.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/files.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/util/sha256.hpp"

namespace mskb {

namespace {
using nlohmann::json;

constexpr char kMagic[8] = {'M', 'S', 'K', 'B', 'S', 'H', 'R', '1'};
constexpr std::size_t kPage = 4096;
// Copying a published instance in or out, in parallel: a conservative rate for the host's
// memory (on the H200 host a consumer copied 3.2 GB in 0.34-0.78 s, 4-9 GB/s), so an instance
// is shared only where preparing it costs clearly more than the two copies.
constexpr double kCopyBytesPerS = 5e9;
constexpr double kMinPrepS = 0.05;
constexpr std::size_t kChunk = std::size_t{4} << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

int read_count(const std::string& p) {
  std::ifstream in(p);
  int n = 0;
  if (in >> n) return std::max(0, n);
  return 0;
}

// A count or a marker, written under the key's lock; where it cannot be written the share only
// saves less (the next turn prepares its own).
void write_small(const std::string& p, const std::string& text) {
  try {
    write_file_atomic(p, text);
  } catch (const std::runtime_error&) {
  }
}

// The host's MemAvailable (/proc/meminfo), or SIZE_MAX where it cannot be read.
std::size_t memory_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::size_t kb = 0;
  std::string unit;
  while (in >> name >> kb >> unit)
    if (name == "MemAvailable:") return kb * 1024;
  return SIZE_MAX;
}

// Room for a file of `bytes` in `dir` (its file system: a tmpfs is memory) and in the host's
// memory, with a margin for everything else the run holds.
bool room_for(const std::string& dir, std::size_t bytes) {
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) != 0) return false;
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  const std::size_t free_bytes = static_cast<std::size_t>(vfs.f_bavail) * vfs.f_frsize;
  if (free_bytes < bytes + kGiB) return false;
  const std::size_t avail = memory_available_bytes();
  return avail == SIZE_MAX || avail >= 2 * bytes + 8 * kGiB;
}

// Copies [src, src + n) to dst in parallel 4 MiB chunks (page faults of either side included).
struct CopyJob {
  const unsigned char* src;
  unsigned char* dst;
  std::size_t bytes;
};
void copy_all(const std::vector<CopyJob>& jobs) {
  std::vector<CopyJob> chunks;
  for (const CopyJob& j : jobs)
    for (std::size_t at = 0; at < j.bytes; at += kChunk) chunks.push_back({j.src + at, j.dst + at, std::min(kChunk, j.bytes - at)});
  parallel_for(static_cast<int64_t>(chunks.size()), [&](int64_t k) {
    const CopyJob& c = chunks[static_cast<std::size_t>(k)];
    std::memcpy(c.dst, c.src, c.bytes);
  }, 1);
}

void lock_exclusive(int fd) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) throw std::runtime_error(std::string("instance share: flock: ") + std::strerror(errno));
}
}  // namespace

InstanceShare::InstanceShare(std::string dir, int consumers) : dir_(std::move(dir)), consumers_(consumers) {}

bool InstanceShare::worth_sharing(double prep_s, std::size_t bytes) {
  return prep_s >= kMinPrepS && prep_s > 2.0 * static_cast<double>(bytes) / kCopyBytesPerS;
}

InstanceShare::Turn InstanceShare::take(const std::string& key) const {
  Turn t;
  if (!active()) return t;
  t.dir_ = dir_;
  t.key_ = key;
  t.consumers_ = consumers_;
  t.path_ = dir_ + "/" + sha256_hex(key).substr(0, 32);
  UniqueFd lock(::open((t.path_ + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock) return Turn{};  // no folder (removed, or never made): prepare alone
  lock_exclusive(lock.get());
  t.claims_ = read_count(t.path_ + ".claims") + 1;
  write_small(t.path_ + ".claims", std::to_string(t.claims_));
  if (exists(t.path_ + ".local")) return t;  // the lock goes with `lock`: prepare alone
  const std::string entry = t.path_ + ".entry";
  const UniqueFd fd(::open(entry.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd) {
    struct stat st {};
    bool ok = ::fstat(fd.get(), &st) == 0 && static_cast<std::size_t>(st.st_size) >= 16;
    if (ok) {
      t.map_bytes_ = static_cast<std::size_t>(st.st_size);
      t.map_ = ::mmap(nullptr, t.map_bytes_, PROT_READ, MAP_SHARED, fd.get(), 0);
      if (t.map_ == MAP_FAILED) t.map_ = nullptr;
      ok = t.map_ != nullptr;
    }
    if (ok) {
      // Everything the header says is checked against the file before a byte is used.
      try {
        const auto* base = static_cast<const unsigned char*>(t.map_);
        uint64_t header_len = 0;
        std::memcpy(&header_len, base + 8, 8);
        ok = std::memcmp(base, kMagic, 8) == 0 && header_len <= t.map_bytes_ - 16;
        if (ok) {
          const json h = json::parse(base + 16, base + 16 + header_len);
          ok = h.at("key").get<std::string>() == key && h.at("total").get<std::size_t>() == t.map_bytes_;
          t.ref_kind_ = h.at("ref_kind").get<std::string>();
          t.generate_s_ = h.at("generate_s").get<double>();
          t.reference_s_ = h.at("reference_s").get<double>();
          t.input_offset_ = h.at("input_offset").get<std::size_t>();
          t.input_bytes_ = h.at("input_bytes").get<std::size_t>();
          ok = ok && t.input_offset_ <= t.map_bytes_ && t.input_bytes_ <= t.map_bytes_ - t.input_offset_;
          for (const json& a : h.at("args")) {
            const auto off = a.at(0).get<std::size_t>(), n = a.at(1).get<std::size_t>();
            const int keep = a.at(3).get<int>();
            ok = ok && keep >= 0 && keep <= 2;
            if (keep == static_cast<int>(Keep::data)) ok = ok && off <= t.map_bytes_ && n <= (t.map_bytes_ - off) / sizeof(double);
            t.args_.push_back({off, n});
            t.values_.push_back(a.at(2).get<double>());
            t.keep_.push_back(static_cast<Keep>(std::clamp(keep, 0, 2)));
            t.elements_.push_back(n);
          }
        }
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) {
      // Not an entry this verifier can use: it goes, and this turn prepares the instance again.
      t.unmap();
      t.args_.clear();
      t.values_.clear();
      t.keep_.clear();
      t.elements_.clear();
      ::unlink(entry.c_str());
    } else {
      if (t.claims_ >= t.consumers_) ::unlink(entry.c_str());  // the last to copy it: the mapping stays
      return t;                                                 // the lock goes with `lock`
    }
  }
  t.lock_ = std::move(lock);  // this turn prepares it; the others wait for publish()
  return t;
}

bool InstanceShare::Turn::publish(const Args& args, const unsigned char* input, std::size_t input_bytes, const std::string& ref_kind,
                                  double generate_s, double reference_s, const std::vector<Keep>& keep) {
  if (!producing()) return false;
  if (!keep.empty() && keep.size() != args.size()) throw std::logic_error("instance share: one Keep per Arg");
  const auto kept = [&](std::size_t i) { return keep.empty() ? Keep::data : keep[i]; };
  const UniqueFd lock = std::move(lock_);  // released on return, whatever happens
  if (claims_ >= consumers_) return false;  // nobody is left to copy it
  json h = {{"key", key_}, {"ref_kind", ref_kind}, {"generate_s", generate_s}, {"reference_s", reference_s}, {"input_bytes", input_bytes}};
  // The header's size depends on the offsets it records: they are laid out after a header of
  // generous size (a page per 32 args), the header itself written last into its room.
  const std::size_t header_room = round_up(16 + 512 + 64 * args.size() + key_.size(), kPage);
  std::size_t at = header_room;
  h["input_offset"] = at;
  at = round_up(at + input_bytes, 64);
  json list = json::array();
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    offsets.push_back(at);
    list.push_back(json::array({at, a.data.size(), a.value, static_cast<int>(kept(i))}));
    if (kept(i) == Keep::data) at = round_up(at + a.data.size() * sizeof(double), 64);
  }
  h["args"] = list;
  h["total"] = at;
  const std::string header = h.dump();
  const std::size_t total = at;
  if (16 + header.size() > header_room || !worth_sharing(generate_s + reference_s, total) || !room_for(dir_, total)) {
    write_small(path_ + ".local", "");
    return false;
  }
  const std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
  bool ok = false;
  {
    const UniqueFd fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    // Reserved before it is mapped: a tmpfs that fills up fails here, never with a SIGBUS on a
    // page of the mapping.
    if (fd && ::posix_fallocate(fd.get(), 0, static_cast<off_t>(total)) == 0) {
      void* m = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
      if (m != MAP_FAILED) {
        auto* base = static_cast<unsigned char*>(m);
        std::vector<CopyJob> jobs{{input, base + h["input_offset"].get<std::size_t>(), input_bytes}};
        for (std::size_t i = 0; i < args.size(); ++i)
          if (kept(i) == Keep::data)
            jobs.push_back({reinterpret_cast<const unsigned char*>(args[i].data.data()), base + offsets[i], args[i].data.size() * sizeof(double)});
        copy_all(jobs);
        const uint64_t len = header.size();
        std::memcpy(base, kMagic, 8);
        std::memcpy(base + 8, &len, 8);
        std::memcpy(base + 16, header.data(), header.size());
        ok = ::munmap(m, total) == 0;
      }
    }
  }
  if (ok) ok = ::rename(tmp.c_str(), (path_ + ".entry").c_str()) == 0;
  if (!ok) {
    ::unlink(tmp.c_str());
    write_small(path_ + ".local", "");
  }
  return ok;
}

void InstanceShare::Turn::copy_args(Args& into) const {
  if (!found()) throw std::logic_error("instance share: copy_args of an entry not found");
  into.resize(args_.size());
  const auto* base = static_cast<const unsigned char*>(map_);
  std::vector<CopyJob> jobs;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    into[i].value = values_[i];
    if (keep_[i] == Keep::none) {
      into[i].data.clear();  // its allocation kept for the next instance
      continue;
    }
    into[i].data.resize(args_[i].second);
    if (keep_[i] == Keep::data)
      jobs.push_back({base + args_[i].first, reinterpret_cast<unsigned char*>(into[i].data.data()), args_[i].second * sizeof(double)});
  }
  copy_all(jobs);
}

void InstanceShare::Turn::copy_input(unsigned char* input) const {
  if (!found()) throw std::logic_error("instance share: copy_input of an entry not found");
  copy_all({{static_cast<const unsigned char*>(map_) + input_offset_, input, input_bytes_}});
}

void InstanceShare::Turn::unmap() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
}

InstanceShare::Turn::~Turn() { unmap(); }

InstanceShare::Turn::Turn(Turn&& o) noexcept { *this = std::move(o); }

InstanceShare::Turn& InstanceShare::Turn::operator=(Turn&& o) noexcept {
  if (this == &o) return *this;
  unmap();
  dir_ = std::move(o.dir_);
  key_ = std::move(o.key_);
  path_ = std::move(o.path_);
  consumers_ = o.consumers_;
  claims_ = o.claims_;
  lock_ = std::move(o.lock_);
  map_ = std::exchange(o.map_, nullptr);
  map_bytes_ = std::exchange(o.map_bytes_, 0);
  input_offset_ = o.input_offset_;
  input_bytes_ = o.input_bytes_;
  args_ = std::move(o.args_);
  values_ = std::move(o.values_);
  keep_ = std::move(o.keep_);
  elements_ = std::move(o.elements_);
  ref_kind_ = std::move(o.ref_kind_);
  generate_s_ = o.generate_s_;
  reference_s_ = o.reference_s_;
  return *this;
}

}  // namespace mskb

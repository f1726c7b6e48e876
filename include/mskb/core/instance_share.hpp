// Owns the sharing of prepared instances between the verifiers of one (task, precision) group:
// the baseline, the vendor and any candidate of a group see the same inputs (same task, shape,
// seed) and the same expected outputs, which each verifier used to generate and reference on its
// own (on the large sweep, seconds of host work per shape and contender). With a share, the first
// verifier to reach an instance prepares it while the others wait for it, publishes it as one file
// (its inputs and expected outputs in FP64, and the encoded input region), and the others copy it
// in instead of preparing it again. Host-only; unit-tested across real processes.
//
// The folder holds, per instance key (a hash of everything that decides the instance):
//   KEY.lock    flock(2) around "is it there? else make it" (held by the one preparing it);
//   KEY.claims  how many verifiers have taken their turn at the key (a decimal count);
//   KEY.entry   the published instance (written as KEY.tmp.PID, then renamed: a reader never sees
//               a partial one), unlinked by the last of the `consumers` verifiers to copy it;
//   KEY.local   "not published, prepare your own": copying would not have paid, or there was no room.
// A verifier that dies while preparing leaves no entry: the next one prepares it. The folder is
// the run's (the suite removes it when the group's timing parts have ended).
#pragma once

#include <cstddef>
#include <string>

#include "mskb/core/task.hpp"
#include "mskb/util/channel.hpp"

namespace mskb {

class InstanceShare {
 public:
  // What an entry holds of each Arg (its scalar value always): its elements (`data`), only its
  // size, the consumer's copy then holding whatever its storage held (`sized`: outputs a GPU
  // reference will write), or nothing, the copy left empty (`none`: read-only inputs no one reads
  // again once the expected outputs exist). Every Arg's element count is recorded either way.
  enum class Keep { data, sized, none };

  InstanceShare() = default;
  // `consumers`: how many verifiers will each ask for every key (the group's timing parts).
  // Inactive (every turn prepares its own) when `dir` is empty or consumers < 2.
  InstanceShare(std::string dir, int consumers);
  bool active() const { return !dir_.empty() && consumers_ >= 2; }

  // One verifier's turn at a key. Either found() (a published entry, mapped: copy it out) or the
  // caller prepares the instance itself; while it does, when producing(), the key's lock is held
  // (the others wait for it) until publish() or the turn's end.
  class Turn {
   public:
    Turn() = default;
    ~Turn();
    Turn(Turn&& o) noexcept;
    Turn& operator=(Turn&& o) noexcept;
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

    bool found() const { return map_ != nullptr; }
    bool producing() const { return static_cast<bool>(lock_); }
    // A found entry's contents: its Args copied into `into` (resized; its allocations reused) and
    // its encoded input region into `input` (input_bytes() of them), each in parallel.
    std::size_t input_bytes() const { return input_bytes_; }
    void copy_args(Args& into) const;
    // Every Arg's element count as it was prepared (kept or not).
    const std::vector<std::size_t>& elements() const { return elements_; }
    void copy_input(unsigned char* input) const;
    const std::string& ref_kind() const { return ref_kind_; }
    double generate_s() const { return generate_s_; }
    double reference_s() const { return reference_s_; }

    // Publishes what this turn prepared (producing() only; the lock is released either way), when
    // copying it pays (prep_s against the bytes to copy twice) and the folder's file system and
    // the host's memory have room for it; otherwise marks the key local. Returns whether it did.
    // Never throws for want of room: sharing is only ever a saving.
    // `keep`: per Arg (empty: all `data`).
    bool publish(const Args& args, const unsigned char* input, std::size_t input_bytes, const std::string& ref_kind,
                 double generate_s, double reference_s, const std::vector<Keep>& keep = {});

   private:
    friend class InstanceShare;
    void unmap();
    std::string dir_, key_, path_;  // path_: KEY without a suffix
    int consumers_ = 0, claims_ = 0;
    UniqueFd lock_;
    void* map_ = nullptr;
    std::size_t map_bytes_ = 0, input_offset_ = 0, input_bytes_ = 0;
    std::vector<std::pair<std::size_t, std::size_t>> args_;  // (offset, elements) per Arg
    std::vector<double> values_;
    std::vector<Keep> keep_;
    std::vector<std::size_t> elements_;
    std::string ref_kind_;
    double generate_s_ = 0, reference_s_ = 0;
  };

  // Takes this verifier's turn at `key` (blocks while another verifier prepares it). `key` is
  // the full description of the instance; an entry whose recorded key differs is not used.
  Turn take(const std::string& key) const;

  // Whether publishing an instance of `bytes` that took `prep_s` to prepare pays: the copy in (the
  // producer's) and out (each consumer's) at a conservative 5 GB/s against preparing it again.
  static bool worth_sharing(double prep_s, std::size_t bytes);

 private:
  std::string dir_;
  int consumers_ = 0;
};

}  // namespace mskb

// Owns the per-run spending limit. Shared by every conversation of a run (thread-safe): each
// call asks admit() first and reports its cost with charge(); once spent >= limit the next call
// is refused with BudgetExceeded. Calls already in flight finish, so the overshoot is bounded
// by the cost of the calls running concurrently.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "cudamaster/llm/error.hpp"

namespace cudamaster::llm {

class Budget {
 public:
  // No limit: only counts.
  Budget() = default;
  explicit Budget(double limit_usd) : limit_usd_(limit_usd) {}

  Budget(const Budget&) = delete;
  Budget& operator=(const Budget&) = delete;

  // OK when the run may make another call; BudgetExceeded (naming `provider`) otherwise.
  Result<void> admit(const std::string& provider);
  // Records a finished call's cost (empty when the model has no price: counted, not charged).
  void charge(std::optional<double> cost_usd);

  std::optional<double> limit_usd() const { return limit_usd_; }
  double spent_usd() const;
  std::optional<double> remaining_usd() const;
  std::int64_t calls() const;
  std::int64_t refused() const;

 private:
  mutable std::mutex mutex_;
  std::optional<double> limit_usd_;
  double spent_usd_ = 0;
  std::int64_t calls_ = 0;
  std::int64_t refused_ = 0;
};

}  // namespace cudamaster::llm

#include "cudamaster/llm/budget.hpp"

#include <fmt/format.h>

namespace cudamaster::llm {

Result<void> Budget::admit(const std::string& provider) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_usd_ && spent_usd_ >= *limit_usd_) {
    ++refused_;
    return make_error(LlmErrorKind::BudgetExceeded, provider,
                      fmt::format("run budget spent: ${:.4f} of ${:.4f} after {} calls; call not sent",
                                  spent_usd_, *limit_usd_, calls_));
  }
  return {};
}

void Budget::charge(std::optional<double> cost_usd) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++calls_;
  if (cost_usd) spent_usd_ += *cost_usd;
}

double Budget::spent_usd() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spent_usd_;
}

std::optional<double> Budget::remaining_usd() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!limit_usd_) return std::nullopt;
  return *limit_usd_ - spent_usd_;
}

std::int64_t Budget::calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_;
}

std::int64_t Budget::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

}  // namespace cudamaster::llm

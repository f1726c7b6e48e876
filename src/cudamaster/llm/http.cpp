#include "cudamaster/llm/http.hpp"

#include <fmt/format.h>

#include "text_util.hpp"

namespace cudamaster::llm {

std::string HttpResponse::header(const std::string& name) const {
  const std::string want = detail::to_lower(name);
  for (const auto& [key, value] : headers)
    if (detail::to_lower(key) == want) return value;
  return {};
}

std::string reply_too_large_message(std::size_t limit) {
  const std::size_t mib = std::size_t{1} << 20;
  const std::string size = limit % mib == 0 ? fmt::format("{} MiB", limit / mib) : fmt::format("{} bytes", limit);
  return fmt::format("LLM reply larger than {} (limit --max-reply-bytes): refused", size);
}

}  // namespace cudamaster::llm

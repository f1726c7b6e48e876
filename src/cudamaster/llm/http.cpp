#include "cudamaster/llm/http.hpp"

#include "text_util.hpp"

namespace cudamaster::llm {

std::string HttpResponse::header(const std::string& name) const {
  const std::string want = detail::to_lower(name);
  for (const auto& [key, value] : headers)
    if (detail::to_lower(key) == want) return value;
  return {};
}

}  // namespace cudamaster::llm

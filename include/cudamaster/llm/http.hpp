// Owns the HTTP seam: a minimal request/response pair and the transport interface the providers
// send through. The production transport is libcurl (TLS, proxies from http_proxy/https_proxy/
// no_proxy); tests may substitute their own. Transport failures come back as typed LlmErrors.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cudamaster/llm/error.hpp"

namespace cudamaster::llm {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  // The longest the whole exchange may take (connecting included): replies are not streamed, so
  // nothing arrives before the model has finished. Reasoning models can think for minutes, hence
  // the generous default.
  std::chrono::milliseconds read_timeout{600'000};
  // The largest reply body read (--max-reply-bytes, CUDAMASTER_MAX_REPLY_BYTES): the transport
  // stops reading above it and fails with ReplyTooLarge, so memory never grows with the reply.
  static constexpr std::size_t kDefaultMaxReplyBytes = std::size_t{8} << 20;  // 8 MiB
  std::size_t max_reply_bytes = kDefaultMaxReplyBytes;
};

// "LLM reply larger than 8 MiB (limit --max-reply-bytes): refused"
std::string reply_too_large_message(std::size_t limit);

struct HttpRequest {
  std::string url;
  HttpHeaders headers;
  std::string body;  // always POSTed as given
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names lower-cased
  std::string body;
  std::chrono::milliseconds latency{0};

  // First header with this (case-insensitive) name, or "".
  std::string header(const std::string& name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Returns any HTTP response (including 4xx/5xx) or a transport-level error (Connection, Tls,
  // Timeout, TruncatedResponse, InvalidArgument for a malformed URL). `provider` names the
  // caller in error messages. Must be safe to call from several threads at once.
  virtual Result<HttpResponse> post(const HttpRequest& request, const HttpOptions& options,
                                    const std::string& provider) = 0;
};

// libcurl transport; Unsupported errors from every call when built without libcurl.
std::shared_ptr<HttpTransport> make_curl_transport();

}  // namespace cudamaster::llm

// libcurl transport. One easy handle per request keeps it trivially thread-safe; LLM calls take
// seconds, so connection reuse would buy nothing measurable. libcurl reads http_proxy,
// https_proxy and no_proxy from the environment by itself and verifies TLS peers by default.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include <curl/curl.h>
#include <fmt/format.h>

#include "cudamaster/llm/http.hpp"
#include "text_util.hpp"

namespace cudamaster::llm {
namespace {

struct Transfer {
  std::string body;
  HttpHeaders headers;
  std::size_t limit = HttpOptions::kDefaultMaxReplyBytes;
  bool too_large = false;
};

// Returning less than it was given makes libcurl abort the transfer (CURLE_WRITE_ERROR): a body
// above the limit is never held, whatever the server sends.
size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (n > t->limit - std::min(t->limit, t->body.size())) {
    t->too_large = true;
    return 0;
  }
  t->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string line(data, size * count);
  // A new status line (after 100 Continue or a proxy CONNECT) starts a fresh header block.
  if (detail::starts_with(line, "HTTP/")) {
    t->headers.clear();
    return size * count;
  }
  const std::size_t colon = line.find(':');
  if (colon != std::string::npos)
    t->headers.emplace_back(detail::to_lower(detail::trim(line.substr(0, colon))),
                            detail::trim(line.substr(colon + 1)));
  return size * count;
}

LlmErrorKind kind_of(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return LlmErrorKind::Timeout;
    case CURLE_PARTIAL_FILE: return LlmErrorKind::TruncatedResponse;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL: return LlmErrorKind::InvalidArgument;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND: return LlmErrorKind::Tls;
    default: return LlmErrorKind::Connection;
  }
}

class CurlTransport final : public HttpTransport {
 public:
  CurlTransport() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  Result<HttpResponse> post(const HttpRequest& request, const HttpOptions& options,
                            const std::string& provider) override {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) return make_error(LlmErrorKind::Connection, provider, "curl_easy_init failed");
    curl_slist* raw_list = nullptr;
    for (const auto& [name, value] : request.headers)
      raw_list = curl_slist_append(raw_list, (name + ": " + value).c_str());
    raw_list = curl_slist_append(raw_list, "Expect:");  // no 100-continue round trip
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(raw_list, &curl_slist_free_all);

    Transfer transfer;
    transfer.limit = options.max_reply_bytes;
    char error_buffer[CURL_ERROR_SIZE] = {0};
    CURL* h = curl.get();
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, header_list.get());
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: required with threads
    // libcurl has no per-read timeout; a non-streamed reply arrives at the end anyway, so the
    // read timeout bounds the whole exchange (connecting included).
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::min(options.connect_timeout, options.read_timeout).count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options.read_timeout.count()));
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cudamaster/0.1 (libcurl)");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);

    const auto start = std::chrono::steady_clock::now();
    const CURLcode code = curl_easy_perform(h);
    const auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (transfer.too_large) {
      LlmError e = make_error(LlmErrorKind::ReplyTooLarge, provider, reply_too_large_message(options.max_reply_bytes));
      long status = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
      e.http_status = static_cast<int>(status);
      return e;
    }
    if (code != CURLE_OK) {
      const std::string detail_text = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
      // curl's own text already says how long it waited ("timed out after 300 milliseconds").
      LlmError e = make_error(kind_of(code), provider, fmt::format("{} ({})", detail_text, request.url));
      long status = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
      e.http_status = static_cast<int>(status);
      return e;
    }
    HttpResponse response;
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    response.headers = std::move(transfer.headers);
    response.body = std::move(transfer.body);
    response.latency = latency;
    return response;
  }
};

}  // namespace

std::shared_ptr<HttpTransport> make_curl_transport() { return std::make_shared<CurlTransport>(); }

}  // namespace cudamaster::llm

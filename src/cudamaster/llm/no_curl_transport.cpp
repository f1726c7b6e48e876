// Built instead of curl_transport.cpp where libcurl's headers are missing: every call fails
// with a clear Unsupported error; replay still works.
#include "cudamaster/llm/http.hpp"

namespace cudamaster::llm {
namespace {

class NoCurlTransport final : public HttpTransport {
 public:
  Result<HttpResponse> post(const HttpRequest&, const HttpOptions&, const std::string& provider) override {
    return make_error(LlmErrorKind::Unsupported, provider,
                      "cudamaster was built without libcurl (install libcurl4-openssl-dev and rebuild)");
  }
};

}  // namespace

std::shared_ptr<HttpTransport> make_curl_transport() { return std::make_shared<NoCurlTransport>(); }

}  // namespace cudamaster::llm

#include "cudamaster/llm/retry.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "text_util.hpp"

namespace cudamaster::llm {

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        double unit_random) {
  using std::chrono::milliseconds;
  if (retry_after) return std::clamp(*retry_after, milliseconds{0}, policy.max_retry_after);
  const double base = static_cast<double>(policy.base_delay.count());
  const double cap = static_cast<double>(policy.max_delay.count());
  const double full = std::min(cap, base * std::pow(2.0, std::max(0, attempt - 1)));
  const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  const double u = std::clamp(unit_random, 0.0, 1.0);
  return milliseconds{static_cast<std::int64_t>(std::llround(full * (1.0 - jitter * u)))};
}

std::optional<std::chrono::milliseconds> parse_retry_after(const HttpResponse& response,
                                                           std::chrono::system_clock::time_point now) {
  using std::chrono::milliseconds;
  if (const std::string ms = detail::trim(response.header("retry-after-ms")); !ms.empty()) {
    char* end = nullptr;
    const double v = std::strtod(ms.c_str(), &end);
    if (end != nullptr && *end == '\0' && std::isfinite(v) && v >= 0)
      return milliseconds{static_cast<std::int64_t>(std::llround(v))};
  }
  const std::string value = detail::trim(response.header("retry-after"));
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (end != nullptr && *end == '\0' && std::isfinite(seconds) && seconds >= 0)
    return milliseconds{static_cast<std::int64_t>(std::llround(seconds * 1000.0))};
  // IMF-fixdate: "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm tm{};
  const char* parsed = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (parsed == nullptr || *parsed != '\0') return std::nullopt;
  const std::time_t when = timegm(&tm);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  const auto delta = std::chrono::system_clock::from_time_t(when) - now;
  return std::max(milliseconds{0}, std::chrono::duration_cast<milliseconds>(delta));
}

std::string extract_server_message(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded()) {
    auto text_of = [](const nlohmann::json& v) -> std::string {
      if (v.is_string()) return v.get<std::string>();
      if (v.is_null()) return {};
      return v.dump();
    };
    if (j.is_object()) {
      if (auto e = j.find("error"); e != j.end()) {
        if (e->is_string()) return detail::one_line(e->get<std::string>());
        if (e->is_object()) {
          std::string msg = e->contains("message") ? text_of((*e)["message"]) : e->dump();
          std::string type;
          if (auto t = e->find("type"); t != e->end() && t->is_string()) type = t->get<std::string>();
          else if (auto c = e->find("code"); c != e->end() && c->is_string()) type = c->get<std::string>();
          return detail::one_line(type.empty() ? msg : type + ": " + msg);
        }
      }
      if (auto d = j.find("detail"); d != j.end()) return detail::one_line(text_of(*d));
      if (auto m = j.find("message"); m != j.end()) return detail::one_line(text_of(*m));
    }
    return detail::one_line(j.dump(), 200);
  }
  return detail::one_line(body, 200);
}

LlmError error_from_status(const HttpResponse& response, const std::string& provider) {
  LlmError e;
  e.provider = provider;
  e.http_status = response.status;
  const int s = response.status;
  if (s == 429) e.kind = LlmErrorKind::RateLimited;
  else if (s == 529) e.kind = LlmErrorKind::Overloaded;
  else if (s >= 500 && s <= 599) e.kind = LlmErrorKind::ServerError;
  else if (s == 401 || s == 403) e.kind = LlmErrorKind::Authentication;
  else e.kind = LlmErrorKind::ClientError;
  e.server_message = extract_server_message(response.body);
  if (e.server_message.empty()) e.message = "empty error body";
  e.retry_after = parse_retry_after(response);
  return e;
}

namespace {

double unit_random() {
  static std::mutex mutex;
  static std::mt19937_64 engine{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mutex);
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

}  // namespace

Result<HttpResponse> post_with_retries(HttpTransport& transport, const HttpRequest& request,
                                       const HttpOptions& options, const RetryPolicy& policy,
                                       const std::string& provider, int* attempts_out) {
  const int max_attempts = std::max(1, policy.max_attempts);
  for (int attempt = 1;; ++attempt) {
    if (attempts_out != nullptr) *attempts_out = attempt;
    Result<HttpResponse> sent = transport.post(request, options, provider);
    std::optional<LlmError> error;
    if (!sent.ok()) {
      error = sent.error();
    } else if (sent->status >= 200 && sent->status < 300) {
      return sent;
    } else {
      error = error_from_status(*sent, provider);
    }
    error->attempts = attempt;
    if (!is_retryable(error->kind) || attempt >= max_attempts) return *std::move(error);
    const auto delay = backoff_delay(policy, attempt, error->retry_after, unit_random());
    if (policy.sleep) policy.sleep(delay);
    else std::this_thread::sleep_for(delay);
  }
}

}  // namespace cudamaster::llm

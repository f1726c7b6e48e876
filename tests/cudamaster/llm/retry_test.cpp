#include <gtest/gtest.h>

#include "support/llm_doubles.hpp"

using namespace cmtest;
using std::chrono::milliseconds;

TEST(LlmRetry, BackoffIsExponentialCappedAndJittered) {
  llm::RetryPolicy p;
  p.base_delay = milliseconds{1000};
  p.max_delay = milliseconds{5000};
  p.jitter = 0.5;
  EXPECT_EQ(llm::backoff_delay(p, 1, std::nullopt, 0.0), milliseconds{1000});
  EXPECT_EQ(llm::backoff_delay(p, 2, std::nullopt, 0.0), milliseconds{2000});
  EXPECT_EQ(llm::backoff_delay(p, 3, std::nullopt, 0.0), milliseconds{4000});
  EXPECT_EQ(llm::backoff_delay(p, 4, std::nullopt, 0.0), milliseconds{5000});  // capped
  EXPECT_EQ(llm::backoff_delay(p, 2, std::nullopt, 1.0), milliseconds{1000});  // full jitter: half
  for (double u : {0.1, 0.37, 0.9}) {
    const auto d = llm::backoff_delay(p, 3, std::nullopt, u);
    EXPECT_GE(d, milliseconds{2000});
    EXPECT_LE(d, milliseconds{4000});
  }
  // Retry-After wins over backoff, capped at max_retry_after.
  EXPECT_EQ(llm::backoff_delay(p, 1, milliseconds{7000}, 0.5), milliseconds{7000});
  p.max_retry_after = milliseconds{3000};
  EXPECT_EQ(llm::backoff_delay(p, 1, milliseconds{7000}, 0.5), milliseconds{3000});
}

TEST(LlmRetry, ParsesRetryAfterForms) {
  llm::HttpResponse r;
  EXPECT_FALSE(llm::parse_retry_after(r).has_value());
  r.headers = {{"retry-after", "3"}};
  EXPECT_EQ(llm::parse_retry_after(r), milliseconds{3000});
  r.headers = {{"Retry-After", " 1.5 "}};
  EXPECT_EQ(llm::parse_retry_after(r), milliseconds{1500});
  r.headers = {{"retry-after", "20"}, {"retry-after-ms", "250"}};  // the precise one wins
  EXPECT_EQ(llm::parse_retry_after(r), milliseconds{250});
  r.headers = {{"retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"}};
  std::tm tm{};
  strptime("Wed, 21 Oct 2015 07:28:00 GMT", "%a, %d %b %Y %H:%M:%S GMT", &tm);
  const auto now = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_EQ(llm::parse_retry_after(r, now), milliseconds{30000});
  r.headers = {{"retry-after", "soon"}};
  EXPECT_FALSE(llm::parse_retry_after(r).has_value());
}

TEST(LlmRetry, ExtractsServerMessagesFromCommonShapes) {
  EXPECT_EQ(llm::extract_server_message(R"({"error":{"message":"Rate limit reached","type":"requests"}})"),
            "requests: Rate limit reached");
  EXPECT_EQ(llm::extract_server_message(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
            "overloaded_error: Overloaded");
  EXPECT_EQ(llm::extract_server_message(R"({"error":"model 'x' not found"})"), "model 'x' not found");
  EXPECT_EQ(llm::extract_server_message(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(llm::extract_server_message("<html>\n<body>502 Bad Gateway</body>\n</html>"),
            "<html> <body>502 Bad Gateway</body> </html>");
}

TEST(LlmRetry, RetriesRetryableStatusesThenSucceeds) {
  ScriptedTransport t;
  t.push(429, R"({"error":{"message":"slow down"}})", {{"retry-after", "2"}});
  t.push(500, "oops");
  t.push(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  t.push_error(llm::LlmErrorKind::Connection, "connection reset");
  t.push(200, "{}");
  SleepRecorder sleeps;
  int attempts = 0;
  auto r = llm::post_with_retries(t, {"http://x", {}, "{}"}, {}, fast_retry(6, sleeps), "openai", &attempts);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(attempts, 5);
  ASSERT_EQ(sleeps.delays->size(), 4u);
  EXPECT_EQ((*sleeps.delays)[0], milliseconds{2000});  // Retry-After honoured exactly
  EXPECT_GE((*sleeps.delays)[1], milliseconds{100});    // then exponential backoff from 100 ms
  EXPECT_LE((*sleeps.delays)[2], milliseconds{400});
  EXPECT_LE((*sleeps.delays)[3], milliseconds{800});
}

TEST(LlmRetry, GivesUpAfterMaxAttemptsWithTheLastError) {
  ScriptedTransport t;
  for (int i = 0; i < 3; ++i) t.push(503, R"({"error":{"message":"upstream unavailable"}})");
  SleepRecorder sleeps;
  auto r = llm::post_with_retries(t, {"http://x", {}, "{}"}, {}, fast_retry(3, sleeps), "openai");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ServerError);
  EXPECT_EQ(r.error().attempts, 3);
  EXPECT_EQ(r.error().describe(), "openai: server_error (HTTP 503, 3 attempts): upstream unavailable");
  EXPECT_EQ(sleeps.delays->size(), 2u);
}

TEST(LlmRetry, NoRetryOnOtherClientErrors) {
  for (int status : {400, 401, 403, 404, 422}) {
    ScriptedTransport t;
    t.push(status, R"({"error":{"message":"bad thing","type":"invalid_request_error"}})");
    t.push(200, "{}");
    SleepRecorder sleeps;
    auto r = llm::post_with_retries(t, {"http://x", {}, "{}"}, {}, fast_retry(5, sleeps), "anthropic");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(t.sent.size(), 1u) << status;
    EXPECT_TRUE(sleeps.delays->empty());
    EXPECT_EQ(r.error().http_status, status);
    EXPECT_EQ(r.error().kind, status == 401 || status == 403 ? llm::LlmErrorKind::Authentication
                                                             : llm::LlmErrorKind::ClientError);
    EXPECT_NE(r.error().describe().find("invalid_request_error: bad thing"), std::string::npos);
  }
}

TEST(LlmRetry, ErrorDescriptionIsOneLine) {
  llm::LlmError e = llm::make_error(llm::LlmErrorKind::ServerError, "openai-compatible", "");
  e.http_status = 502;
  e.server_message = "line one\nline two\r\n\tline three";
  EXPECT_EQ(e.describe(), "openai-compatible: server_error (HTTP 502): line one line two line three");
  e.server_message = std::string(5000, 'x');
  EXPECT_LT(e.describe().size(), 400u);
}

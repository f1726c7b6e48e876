// exchange:DIR[:LABEL]: the request file, the reply read back, and every bad reply a typed error
// with the reply moved aside (the request waits again).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/llm_doubles.hpp"

using namespace cmtest;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<llm::LlmClient> exchange_client(const std::string& spec, llm::ProviderOptions po = {}) {
  llm::ClientOptions o;
  o.llm = spec;
  o.provider = po;
  auto c = llm::LlmClient::create(o);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
  return c.ok() ? std::move(c).value() : nullptr;
}

llm::ChatRequest named(const std::string& user, const std::string& name = "run1-t-fp32-step0003-coder") {
  llm::ChatRequest r = simple_request(user);
  r.context.name = name;
  r.context.fields = {{"run", "1"}, {"task", "t"}, {"agent", "coder"}, {"step", "3"}};
  return r;
}

json request_file(const std::string& path) { return json::parse(read_file(path)); }

}  // namespace

TEST(LlmExchange, SpecTakesAFolderAndAnOptionalLabel) {
  auto s = llm::parse_provider_spec("exchange:/tmp/ex:qwen2.5-coder:32b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, llm::ProviderKind::Exchange);
  EXPECT_EQ(s->path, "/tmp/ex");
  EXPECT_EQ(s->model, "qwen2.5-coder:32b");
  s = llm::parse_provider_spec("exchange:answers");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->path, "answers");
  EXPECT_EQ(s->model, "");
  auto bad = llm::parse_provider_spec("exchange:");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("empty exchange folder"), std::string::npos) << bad.error().describe();
}

TEST(LlmExchange, WritesTheRequestWaitsAndReadsTheReply) {
  TempDir dir;
  auto client = exchange_client("exchange:" + dir.file("ex") + ":my-model");
  ASSERT_TRUE(client);
  const auto first = client->complete(named("write a kernel"));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().kind, llm::LlmErrorKind::AwaitingReply);
  const std::string req_path = dir.file("ex/run1-t-fp32-step0003-coder.request.json");
  EXPECT_EQ(first.error().pending, req_path);
  EXPECT_NE(first.error().describe().find("no reply yet: answer " + req_path), std::string::npos) << first.error().describe();
  const json req = request_file(req_path);
  EXPECT_EQ(req["exchange"], 1);
  EXPECT_EQ(req["model"], "my-model");
  EXPECT_EQ(req["reply_file"], "run1-t-fp32-step0003-coder.reply.json");
  EXPECT_EQ(req["context"]["agent"], "coder");
  EXPECT_EQ(req["limits"]["max_tokens"], 256);
  EXPECT_EQ(req["request"]["messages"][1]["content"], "write a kernel");
  const std::string id = req["id"];
  EXPECT_EQ(id.rfind("run1-t-fp32-step0003-coder-", 0), 0u) << id;

  // Asking again (a resumed run) keeps the file and its id; another question at the same place gets another id.
  ASSERT_FALSE(client->complete(named("write a kernel")).ok());
  EXPECT_EQ(request_file(req_path)["id"], id);

  write_file(dir.file("ex/run1-t-fp32-step0003-coder.reply.json"),
             json{{"id", id}, {"text", "here it is"}, {"usage", {{"input_tokens", 10}, {"output_tokens", 4}}}, {"cost_usd", 0.5}}.dump());
  const auto r = client->complete(named("write a kernel"));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->text, "here it is");
  EXPECT_EQ(r->provider, "exchange");
  EXPECT_EQ(r->model, "my-model");
  EXPECT_EQ(r->id, id);
  EXPECT_EQ(r->finish_reason, llm::FinishReason::Stop);
  EXPECT_EQ(r->usage.input_tokens, 10);
  EXPECT_EQ(r->usage.output_tokens, 4);
  ASSERT_TRUE(r->cost_usd);  // the reply's own cost (the label has no price)
  EXPECT_DOUBLE_EQ(*r->cost_usd, 0.5);
  EXPECT_EQ(r->endpoint, req_path);
  EXPECT_NE(r->raw_response.find("here it is"), std::string::npos);

  const auto other = client->complete(named("something else"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind, llm::LlmErrorKind::StaleReply) << other.error().describe();
  EXPECT_NE(request_file(req_path)["id"], id);
  EXPECT_TRUE(fs::exists(dir.file("ex/run1-t-fp32-step0003-coder.reply.rejected.json")));
  EXPECT_FALSE(fs::exists(dir.file("ex/run1-t-fp32-step0003-coder.reply.json")));
}

TEST(LlmExchange, BadRepliesAreTypedErrorsAndAreMovedAside) {
  TempDir dir;
  llm::ProviderOptions po;
  po.http.max_reply_bytes = 200;
  auto client = exchange_client("exchange:" + dir.file("ex"), po);
  ASSERT_TRUE(client);
  ASSERT_FALSE(client->complete(named("q")).ok());
  const std::string id = request_file(dir.file("ex/run1-t-fp32-step0003-coder.request.json"))["id"];
  const std::string reply = dir.file("ex/run1-t-fp32-step0003-coder.reply.json");
  struct Case {
    std::string body;
    llm::LlmErrorKind kind;
    const char* says;
  };
  for (const Case& c : {Case{"{\"id\": \"" + id + "\", \"text\": \"trunc", llm::LlmErrorKind::MalformedResponse, "not a JSON object"},
                        Case{"[1,2]", llm::LlmErrorKind::MalformedResponse, "not a JSON object"},
                        Case{json{{"text", "x"}}.dump(), llm::LlmErrorKind::MalformedResponse, "no string 'id'"},
                        Case{json{{"id", id}, {"text", "  \n"}}.dump(), llm::LlmErrorKind::MalformedResponse, "empty 'text'"},
                        Case{json{{"id", id}, {"text", 5}}.dump(), llm::LlmErrorKind::MalformedResponse, "no string 'text'"},
                        Case{json{{"id", id}, {"text", "x"}, {"cost_usd", -1}}.dump(), llm::LlmErrorKind::MalformedResponse, "cost_usd"},
                        Case{json{{"id", "run0-other"}, {"text", "x"}}.dump(), llm::LlmErrorKind::StaleReply, "for 'run0-other', not 'run1-t-fp32-step0003-coder-"},
                        Case{json{{"id", id}, {"text", std::string(400, 'x')}}.dump(), llm::LlmErrorKind::ReplyTooLarge, "bytes"}}) {
    SCOPED_TRACE(c.body.substr(0, 60));
    write_file(reply, c.body);
    const auto r = client->complete(named("q"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, c.kind) << r.error().describe();
    const std::string line = r.error().describe();
    EXPECT_NE(line.find(c.says), std::string::npos) << line;
    EXPECT_NE(line.find("moved aside to run1-t-fp32-step0003-coder.reply.rejected.json"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_FALSE(fs::exists(reply));
    EXPECT_EQ(read_file(dir.file("ex/run1-t-fp32-step0003-coder.reply.rejected.json")), c.body);
    // The request waits again.
    const auto again = client->complete(named("q"));
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().kind, llm::LlmErrorKind::AwaitingReply);
  }
}

TEST(LlmExchange, AReplyThatIsALinkIsNotFollowed) {
  TempDir dir;
  auto client = exchange_client("exchange:" + dir.file("ex"));
  ASSERT_TRUE(client);
  ASSERT_FALSE(client->complete(named("q")).ok());
  write_file(dir.file("secret"), "not for the store");
  fs::create_symlink(dir.file("secret"), dir.file("ex/run1-t-fp32-step0003-coder.reply.json"));
  const auto r = client->complete(named("q"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::MalformedResponse);
  EXPECT_NE(r.error().describe().find("not a regular file"), std::string::npos) << r.error().describe();
  EXPECT_EQ(r.error().describe().find("not for the store"), std::string::npos);
}

TEST(LlmExchange, WaitPollsUntilTheReplyArrivesOrTheWaitIsCancelled) {
  TempDir dir;
  std::atomic<bool> cancel{false};
  llm::ProviderOptions po;
  po.exchange_wait = std::chrono::milliseconds(20000);
  po.exchange_cancel = &cancel;
  auto client = exchange_client("exchange:" + dir.file("ex"), po);
  ASSERT_TRUE(client);
  const std::string req_path = dir.file("ex/run1-t-fp32-step0003-coder.request.json");
  std::thread answerer([&] {
    for (int i = 0; i < 2000 && !fs::exists(req_path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::string id = request_file(req_path)["id"];
    write_file(req_path + ".answer.tmp", json{{"id", id}, {"text", "live answer"}}.dump());
    fs::rename(req_path + ".answer.tmp", dir.file("ex/run1-t-fp32-step0003-coder.reply.json"));
  });
  const auto start = std::chrono::steady_clock::now();
  const auto r = client->complete(named("q"));
  answerer.join();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->text, "live answer");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  cancel.store(true);  // Ctrl-C: the wait ends at once, the job can stop to wait
  const auto w = client->complete(named("q2", "run1-t-fp32-step0005-debug"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, llm::LlmErrorKind::AwaitingReply);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

TEST(LlmExchange, UnwritableFolderFailsAtCreation) {
  TempDir dir;
  write_file(dir.file("plain"), "a file, not a folder");
  llm::ClientOptions o;
  o.llm = "exchange:" + dir.file("plain");
  auto c = llm::LlmClient::create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, llm::LlmErrorKind::Io);
  EXPECT_NE(c.error().describe().find("cannot create the exchange folder"), std::string::npos) << c.error().describe();
}

// exchange:DIR[:LABEL]: a provider that hands each prompt to an outside answerer through files.
//
// A call writes DIR/<name>.request.json (atomically: a temporary file renamed) and looks for
// DIR/<name>.reply.json. <name> is the caller's CallContext::name (stable across resumes of a
// run: the run, task, precision, journal step and agent), so a resumed run asks for the same file
// again. The request carries an id: <name>-<16 hex digits of the request's hash>; a reply must
// repeat it, or it answers some other request (stale). Without a reply the call fails with
// AwaitingReply (after polling ProviderOptions::exchange_wait). A bad reply (not JSON, no text,
// empty, over max_reply_bytes, another id) is a typed error and is moved aside to
// <name>.reply.rejected.json, so the request waits for a new answer. A reply is only ever read as
// text: nothing in it is run or followed (no paths, no URLs).
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cudamaster/llm/serialize.hpp"
#include "json_util.hpp"
#include "providers.hpp"
#include "text_util.hpp"

namespace fs = std::filesystem;

namespace cudamaster::llm::detail {

using nlohmann::json;

namespace {

constexpr const char* kName = "exchange";

// FNV-1a, 64 bits: the request's fingerprint in its id (a staleness check, not a security one).
std::string fingerprint(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

// File names keep to [A-Za-z0-9._-].
std::string safe_name(const std::string& s) {
  std::string out;
  for (const char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  return out;
}

// The answerer's text inside a message: JSON's string escapes (a newline shows as \n), no quotes.
std::string escaped(const std::string& s) {
  const std::string q = dump_json(json(s));
  return q.substr(1, q.size() - 2);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::string> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Milliseconds since the epoch of a file's last change (0 when unknown).
std::int64_t mtime_ms(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

class ExchangeProvider final : public Provider {
 public:
  ExchangeProvider(fs::path dir, std::string label, const ProviderOptions& options)
      : dir_(std::move(dir)), label_(std::move(label)), wait_(options.exchange_wait), cancel_(options.exchange_cancel),
        max_bytes_(options.http.max_reply_bytes) {}

  std::string name() const override { return kName; }
  std::string model() const override { return label_; }
  std::string endpoint() const override { return dir_.string(); }

  Result<ChatResponse> complete(const ChatRequest& request) override {
    const auto started = std::chrono::steady_clock::now();
    const json body = to_json(request);
    const std::string digest = fingerprint(dump_json(body) + "\n" + label_);
    const std::string stem = request.context.name.empty() ? "call-" + digest : safe_name(request.context.name);
    const std::string id = request.context.name.empty() ? stem : stem + "-" + digest;
    const fs::path req_path = dir_ / (stem + ".request.json");
    const fs::path reply_path = dir_ / (stem + ".reply.json");

    json context = json::object();
    for (const auto& [k, v] : request.context.fields) context[k] = v;
    const json req = {{"exchange", 1},
                      {"id", id},
                      {"reply_file", reply_path.filename().string()},
                      {"model", label_},
                      {"context", context},
                      {"limits", {{"max_tokens", request.params.max_tokens}, {"max_reply_bytes", max_bytes_}}},
                      {"request", body},
                      {"created_at", utc_now()}};
    std::string raw_request;
    if (auto written = write_request(req_path, id, req, raw_request); !written) return written.error();

    const auto deadline = started + wait_;
    std::error_code ec;
    while (!fs::exists(reply_path, ec)) {
      const bool cancelled = cancel_ != nullptr && cancel_->load();
      if (cancelled || std::chrono::steady_clock::now() >= deadline) {
        LlmError e = make_error(LlmErrorKind::AwaitingReply, kName,
                                fmt::format("no reply yet: answer {} with {}", req_path.string(), reply_path.filename().string()));
        e.pending = req_path.string();
        return e;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    Result<ChatResponse> r = read_reply(reply_path, id);
    if (!r) {
      LlmError e = std::move(r).error();
      const fs::path aside = dir_ / (stem + ".reply.rejected.json");
      fs::rename(reply_path, aside, ec);
      e.message += ec ? fmt::format(" (could not move it aside: {})", ec.message())
                      : fmt::format(" (moved aside to {}; the request waits again)", aside.filename().string());
      e.pending = req_path.string();
      return e;
    }
    ChatResponse& resp = r.value();
    resp.endpoint = req_path.string();
    resp.raw_request = raw_request;
    const std::int64_t asked = mtime_ms(req_path), answered = mtime_ms(reply_path);
    resp.latency = std::chrono::milliseconds{answered > asked ? answered - asked : 0};
    resp.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return r;
  }

 private:
  // Writes the request unless the file already holds this id (a resumed run asks again: the
  // file, and so its time, stays as first written).
  Result<void> write_request(const fs::path& path, const std::string& id, const json& req, std::string& raw) {
    if (auto existing = read_all(path)) {
      const json old = json::parse(*existing, nullptr, false);
      if (!old.is_discarded() && old.is_object() && old.value("id", "") == id) {
        raw = *existing;
        return {};
      }
    }
    raw = req.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    const fs::path tmp = path.string() + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << raw;
      out.flush();
      if (!out) return make_error(LlmErrorKind::Io, kName, fmt::format("cannot write {}", tmp.string()));
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) return make_error(LlmErrorKind::Io, kName, fmt::format("cannot write {}: {}", path.string(), ec.message()));
    return {};
  }

  Result<ChatResponse> read_reply(const fs::path& path, const std::string& id) const {
    const std::string where = path.filename().string();
    auto bad = [&](const std::string& why) { return make_error(LlmErrorKind::MalformedResponse, kName, where + ": " + why); };
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(path, ec))) return bad("not a regular file (a link or a folder is not read)");
    const auto size = fs::file_size(path, ec);
    if (ec) return make_error(LlmErrorKind::Io, kName, fmt::format("cannot read {}: {}", where, ec.message()));
    if (size > max_bytes_) {
      LlmError e = make_error(LlmErrorKind::ReplyTooLarge, kName,
                              fmt::format("{}: {} bytes, more than the largest reply read ({} bytes, --max-reply-bytes)", where,
                                          size, max_bytes_));
      return e;
    }
    const auto text = read_all(path);
    if (!text) return make_error(LlmErrorKind::Io, kName, "cannot read " + where);
    const json j = json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return bad("not a JSON object (write a reply to a temporary name, then rename it)");
    const auto reply_id = get_string(j, "id");
    if (!reply_id) return bad("no string 'id' (copy the request's id)");
    if (*reply_id != id)
      return make_error(LlmErrorKind::StaleReply, kName,
                        fmt::format("{}: for '{}', not '{}' (an answer to another request)", where, escaped(*reply_id), id));
    const auto reply_text = get_string(j, "text");
    if (!reply_text) return bad("no string 'text'");
    if (trim(*reply_text).empty()) return bad("empty 'text'");
    ChatResponse r;
    r.provider = kName;
    r.model = label_;
    r.response_model = get_string(j, "model").value_or(label_);
    r.id = id;
    r.text = *reply_text;
    const std::string finish = get_string(j, "finish_reason").value_or("stop");
    r.finish_reason = finish_reason_from_string(finish);
    r.finish_reason_raw = finish;
    if (const json* usage = member(j, "usage")) {
      auto u = usage_from_json(*usage);
      if (!u) return bad(u.error().message);
      if (u->input_tokens < 0 || u->output_tokens < 0 || u->cached_input_tokens < 0 || u->reasoning_tokens < 0)
        return bad("negative token counts in 'usage'");
      r.usage = *u;
    }
    if (const json* cost = member(j, "cost_usd"); cost != nullptr && !cost->is_null()) {
      if (!cost->is_number() || cost->get<double>() < 0) return bad("'cost_usd' is not a number >= 0");
      r.cost_usd = cost->get<double>();
    }
    r.raw_response = *text;
    return r;
  }

  fs::path dir_;
  std::string label_;
  std::chrono::milliseconds wait_;
  const std::atomic<bool>* cancel_;
  std::size_t max_bytes_;
};

}  // namespace

Result<std::unique_ptr<Provider>> make_exchange_provider(const std::string& dir, const std::string& label,
                                                         const ProviderOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    return make_error(LlmErrorKind::Io, kName, fmt::format("cannot create the exchange folder '{}'", dir));
  return std::unique_ptr<Provider>(std::make_unique<ExchangeProvider>(fs::path(dir), label, options));
}

}  // namespace cudamaster::llm::detail

#include "cudamaster/agents/prompt.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace cudamaster::agents {

namespace {

using Node = PromptTemplate::Node;

bool is_name(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

std::string trim(const std::string& s) { return mskb::trim(s, " \t"); }

struct Token {
  char sigil = 0;  // 0: text, 'v': variable, '#', '^', '/'
  std::string text;
  int line = 1;
};

std::vector<Token> tokenize(const std::string& src, const std::string& name) {
  std::vector<Token> out;
  std::size_t pos = 0;
  int line = 1;
  auto count_lines = [](const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); };
  std::string pending;  // literal text not yet emitted
  while (pos < src.size()) {
    const std::size_t open = src.find("{{", pos);
    if (open == std::string::npos) {
      pending += src.substr(pos);
      break;
    }
    const std::size_t close = src.find("}}", open + 2);
    const int tag_line = line + count_lines(src.substr(pos, open - pos));
    if (close == std::string::npos)
      throw PromptError("prompt '" + name + "' line " + std::to_string(tag_line) + ": '{{' without '}}'");
    std::string inner = trim(src.substr(open + 2, close - open - 2));
    char sigil = 'v';
    if (!inner.empty() && (inner[0] == '#' || inner[0] == '^' || inner[0] == '/')) {
      sigil = inner[0];
      inner = trim(inner.substr(1));
    }
    if (!is_name(inner))
      throw PromptError("prompt '" + name + "' line " + std::to_string(tag_line) + ": bad tag '{{" +
                        src.substr(open + 2, close - open - 2) + "}}'");
    std::string before = src.substr(pos, open - pos);
    std::size_t next = close + 2;
    // A section tag alone on its line takes the line (indentation and newline) with it.
    if (sigil != 'v') {
      const std::size_t line_start = open == 0 ? 0 : src.rfind('\n', open - 1);
      const std::size_t indent_from = line_start == std::string::npos ? 0 : (open == 0 ? 0 : line_start + 1);
      const bool blank_before = trim(src.substr(indent_from, open - indent_from)).empty();
      std::size_t eol = next;
      while (eol < src.size() && (src[eol] == ' ' || src[eol] == '\t' || src[eol] == '\r')) ++eol;
      if (blank_before && (eol == src.size() || src[eol] == '\n')) {
        // Drop the indentation before the tag (plain text since the line began) and the rest of its line.
        std::string so_far = pending + before;
        so_far.resize(so_far.size() - (open - indent_from));
        pending = std::move(so_far);
        before.clear();
        next = eol == src.size() ? eol : eol + 1;
      }
    }
    pending += before;
    if (!pending.empty()) out.push_back({0, pending, line});
    pending.clear();
    out.push_back({sigil, inner, tag_line});
    line += count_lines(src.substr(pos, next - pos));
    pos = next;
  }
  if (!pending.empty()) out.push_back({0, pending, line});
  return out;
}

void render_nodes(const std::vector<Node>& nodes, const PromptVars& vars, const std::string& name, std::string& out) {
  auto lookup = [&](const std::string& key) -> const std::string& {
    auto it = vars.find(key);
    if (it == vars.end()) throw PromptError("prompt '" + name + "': no value for {{" + key + "}}");
    return it->second;
  };
  for (const Node& n : nodes) {
    switch (n.kind) {
      case Node::Kind::text: out += n.text; break;
      case Node::Kind::var: out += lookup(n.text); break;
      case Node::Kind::section:
        if (!lookup(n.text).empty()) render_nodes(n.children, vars, name, out);
        break;
      case Node::Kind::inverted:
        if (lookup(n.text).empty()) render_nodes(n.children, vars, name, out);
        break;
    }
  }
}

void collect(const std::vector<Node>& nodes, std::set<std::string>& names) {
  for (const Node& n : nodes) {
    if (n.kind != Node::Kind::text) names.insert(n.text);
    collect(n.children, names);
  }
}

std::string read_file(const fs::path& p) {
  try {
    return mskb::read_text(p.string());
  } catch (const std::runtime_error&) {
    throw PromptError("cannot read prompt template '" + p.string() + "'");
  }
}

}  // namespace

PromptTemplate PromptTemplate::parse(const std::string& text, const std::string& name) {
  PromptTemplate t;
  t.name_ = name;
  struct Frame {
    Node node;
    int line;
  };
  std::vector<Frame> stack;
  std::vector<Node> root;
  auto sink = [&]() -> std::vector<Node>& { return stack.empty() ? root : stack.back().node.children; };
  for (const Token& tok : tokenize(text, name)) {
    switch (tok.sigil) {
      case 0: sink().push_back({Node::Kind::text, tok.text, {}}); break;
      case 'v': sink().push_back({Node::Kind::var, tok.text, {}}); break;
      case '#':
      case '^':
        stack.push_back({{tok.sigil == '#' ? Node::Kind::section : Node::Kind::inverted, tok.text, {}}, tok.line});
        break;
      case '/': {
        if (stack.empty() || stack.back().node.text != tok.text)
          throw PromptError("prompt '" + name + "' line " + std::to_string(tok.line) + ": {{/" + tok.text + "}} closes " +
                            (stack.empty() ? std::string("nothing") : "{{#" + stack.back().node.text + "}}"));
        Node done = std::move(stack.back().node);
        stack.pop_back();
        sink().push_back(std::move(done));
        break;
      }
      default: break;
    }
  }
  if (!stack.empty())
    throw PromptError("prompt '" + name + "' line " + std::to_string(stack.back().line) + ": {{#" +
                      stack.back().node.text + "}} is never closed");
  t.nodes_ = std::move(root);
  return t;
}

std::string PromptTemplate::render(const PromptVars& vars) const {
  std::string out;
  render_nodes(nodes_, vars, name_, out);
  return out;
}

std::vector<std::string> PromptTemplate::variables() const {
  std::set<std::string> names;
  collect(nodes_, names);
  return {names.begin(), names.end()};
}

PromptLibrary::PromptLibrary(std::string dir) : dir_(std::move(dir)) {}

const PromptTemplate& PromptLibrary::get(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;
  const fs::path p = fs::path(dir_) / (name + ".md");
  return cache_.emplace(name, PromptTemplate::parse(read_file(p), name)).first->second;
}

std::string PromptLibrary::fingerprint() const {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  mskb::Sha256 h;
  for (const auto& f : files) h.update(f.filename().string() + "\n").update(read_file(f)).update("\n");
  return h.hex().substr(0, 16);
}

std::string default_prompts_dir() {
  if (const char* d = std::getenv("CM_PROMPTS_DIR"); d != nullptr && *d != '\0') return d;
  return (fs::path(mskb::source_root()) / "prompts").string();
}

}  // namespace cudamaster::agents

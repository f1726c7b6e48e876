#include "cudamaster/agents/code_answer.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cudamaster/agents/source_text.hpp"
#include "mskb/util/text.hpp"

namespace cudamaster::agents {

using mskb::join;

namespace {

struct Block {
  std::string lang;
  std::string code;
  bool closed = true;
  int first_line = 0;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  return lines;
}

// A fence opens or closes with 3+ backticks or tildes after at most 3 spaces.
bool fence(const std::string& line, char& ch, std::size_t& len, std::string& info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  ch = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == ch) ++j;
  len = j - i;
  if (len < 3) return false;
  info = line.substr(j);
  info.erase(0, info.find_first_not_of(" \t"));
  info.erase(info.find_last_not_of(" \t") + 1 == 0 ? 0 : info.find_last_not_of(" \t") + 1);
  return ch != '`' || info.find('`') == std::string::npos;
}

std::vector<Block> fenced_blocks(const std::vector<std::string>& lines) {
  std::vector<Block> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    char ch = 0;
    std::size_t len = 0;
    std::string info;
    if (!fence(lines[i], ch, len, info)) continue;
    Block b;
    b.lang = lower(info.substr(0, info.find_first_of(" \t{")));
    b.first_line = static_cast<int>(i) + 2;
    b.closed = false;
    std::size_t k = i + 1;
    for (; k < lines.size(); ++k) {
      char ch2 = 0;
      std::size_t len2 = 0;
      std::string info2;
      if (fence(lines[k], ch2, len2, info2) && ch2 == ch && len2 >= len && info2.empty()) {
        b.closed = true;
        break;
      }
      b.code += lines[k];
      b.code += '\n';
    }
    out.push_back(std::move(b));
    i = k;
  }
  return out;
}

bool code_language(const std::string& lang) {
  static const char* const kCode[] = {"", "cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp"};
  return std::any_of(std::begin(kCode), std::end(kCode), [&](const char* k) { return lang == k; });
}

bool defines(const std::string& code, const std::string& symbol) {
  for (const FunctionDecl& f : host_functions(code))
    if (f.name == symbol && f.definition) return true;
  return false;
}

// Kernels that `code` launches (name<<<...>>> or name<T><<<...>>>) but does not define.
std::vector<std::string> undefined_launches(const std::string& code) {
  const std::string blank = blank_comments_and_literals(code);
  static const std::regex launch(R"(\b([A-Za-z_]\w*)\s*(<[^<>;]*>)?\s*<<<)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(blank.begin(), blank.end(), launch); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str();
    const std::regex def("__global__[^;{]*\\b" + name + "\\s*[(<]");
    if (!std::regex_search(blank, def) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

bool looks_like_code_line(const std::string& line) {
  static const char* const kStarts[] = {"#include", "#define", "#pragma", "__global__", "extern \"C\"", "template",
                                        "static ", "namespace", "constexpr", "__device__", "// ", "/*"};
  std::string t = line;
  t.erase(0, t.find_first_not_of(" \t"));
  return std::any_of(std::begin(kStarts), std::end(kStarts), [&](const char* k) { return t.rfind(k, 0) == 0; });
}

std::string last_code_line(const std::string& code) {
  const auto lines = split_lines(code);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string t = *it;
    t.erase(0, t.find_first_not_of(" \t"));
    if (!t.empty()) return t.size() > 80 ? t.substr(0, 80) + "..." : t;
  }
  return "";
}

void check_entry(const std::string& code, const EntryPoint& entry, CodeAnswer& a) {
  const std::vector<FunctionDecl> fns = host_functions(code);
  const FunctionDecl* def = nullptr;
  bool c_declared = false;
  std::vector<const FunctionDecl*> other_c;
  for (const FunctionDecl& f : fns) {
    if (f.name == entry.symbol && f.definition) def = &f;
    if (f.name == entry.symbol && !f.definition && f.extern_c) c_declared = true;
    if (f.name != entry.symbol && f.extern_c && f.definition) other_c.push_back(&f);
  }
  if (def == nullptr) {
    bool declared = false;
    for (const FunctionDecl& f : fns) declared |= f.name == entry.symbol;
    if (declared) {
      a.problems.push_back(fmt::format("the file declares `{}` but never defines it (no function body); the harness calls `{}`",
                                       entry.symbol, entry.signature));
    } else if (!other_c.empty()) {
      std::vector<std::string> names;
      for (const auto* f : other_c) names.push_back("`" + f->name + "` (line " + std::to_string(f->line) + ")");
      a.problems.push_back(fmt::format(
          "wrong entry-point name: the file exports extern \"C\" {} but the harness calls `{}`; the entry point must be "
          "exactly `extern \"C\" {}`",
          join(names, ", "), entry.symbol, entry.signature));
    } else {
      a.problems.push_back(fmt::format("the file does not define the entry point: expected `extern \"C\" {}`", entry.signature));
    }
    return;
  }
  if (!def->extern_c && !c_declared)
    a.problems.push_back(fmt::format(
        "`{}` (line {}) is not extern \"C\": C++ name mangling hides it from the harness; define it as `extern \"C\" {}`",
        entry.symbol, def->line, entry.signature));
  if (def->params.size() != entry.pointer_params.size()) {
    a.problems.push_back(fmt::format("`{}` (line {}) takes {} parameter{}, the harness passes {}: `{}`", entry.symbol,
                                     def->line, def->params.size(), def->params.size() == 1 ? "" : "s",
                                     entry.pointer_params.size(), entry.signature));
    return;
  }
  for (std::size_t i = 0; i < def->params.size(); ++i) {
    const bool is_ptr = def->params[i].find('*') != std::string::npos || def->params[i].find('[') != std::string::npos;
    if (is_ptr != entry.pointer_params[i])
      a.problems.push_back(fmt::format("parameter {} of `{}` is `{}` but must be {} (expected signature `{}`)", i + 1,
                                       entry.symbol, def->params[i], entry.pointer_params[i] ? "a device pointer" : "a scalar passed by value",
                                       entry.signature));
  }
}

// No code block: a problem when there are other blocks, else the text from the first line that
// looks like code. False (with a problem) when there is no code to take.
bool take_unfenced_code(const std::vector<std::string>& lines, const std::string& answer, const std::vector<Block>& all,
                        CodeAnswer& a) {
  if (!all.empty()) {
    std::vector<std::string> langs;
    for (const Block& b : all) langs.push_back(b.lang.empty() ? "untagged" : b.lang);
    a.problems.push_back(fmt::format("no CUDA code block in the answer ({} block{} tagged {}); put the whole .cu file in one ```cuda block",
                                     all.size(), all.size() == 1 ? "" : "s", join(langs, ", ")));
    return false;
  }
  // No fences at all: take the text from the first line that looks like code.
  std::size_t first = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (looks_like_code_line(lines[i])) {
      first = i;
      break;
    }
  if (first == lines.size() || answer.find("__global__") == std::string::npos) {
    a.problems.push_back("no code in the answer: expected the whole .cu file in one ```cuda block");
    return false;
  }
  for (std::size_t i = first; i < lines.size(); ++i) a.code += lines[i] + "\n";
  a.notes.push_back(fmt::format("the answer had no code fence; took lines {}-{} as the file", first + 1, lines.size()));
  return true;
}

// The file from the code blocks: the one defining the entry point, all of them joined when the
// file was split up, else the largest. Returns whether the block used is never closed.
bool take_block_code(const std::vector<const Block*>& code_blocks, const EntryPoint& entry, CodeAnswer& a) {
  std::vector<const Block*> defining;
  for (const Block* b : code_blocks)
    if (defines(b->code, entry.symbol)) defining.push_back(b);
  std::string joined;
  for (const Block* b : code_blocks) joined += b->code;
  if (!defining.empty() && code_blocks.size() > 1 && !undefined_launches(defining.back()->code).empty() &&
      undefined_launches(joined).empty()) {
    // The entry point launches kernels written in other blocks: the file was split up.
    a.code = joined;
    a.notes.push_back(fmt::format("joined {} code blocks into one file (the entry point launches kernels defined in other blocks)",
                                  code_blocks.size()));
    return !code_blocks.back()->closed;
  }
  if (!defining.empty()) {
    const Block* b = defining.back();
    a.code = b->code;
    if (code_blocks.size() > 1)
      a.notes.push_back(fmt::format("{} code blocks; used the one at line {}{}", code_blocks.size(), b->first_line,
                                    defining.size() > 1 ? " (the last of several that define " + entry.symbol + ")"
                                                        : " (the one that defines " + entry.symbol + ")"));
    return !b->closed;
  }
  if (code_blocks.size() > 1) {
    if (defines(joined, entry.symbol)) {
      a.code = joined;
      a.notes.push_back(fmt::format("joined {} code blocks into one file", code_blocks.size()));
      return !code_blocks.back()->closed;
    }
    const Block* largest = *std::max_element(code_blocks.begin(), code_blocks.end(),
                                             [](const Block* x, const Block* y) { return x->code.size() < y->code.size(); });
    a.code = largest->code;
    a.notes.push_back(fmt::format("{} code blocks and none defines {}; used the largest (line {})", code_blocks.size(),
                                  entry.symbol, largest->first_line));
    return !largest->closed;
  }
  a.code = code_blocks.front()->code;
  return !code_blocks.front()->closed;
}

// Cut-off code (open braces, comment or literal; an unclosed block at the token limit) is a problem.
void check_complete(CodeAnswer& a, bool finish_truncated, bool block_unclosed) {
  const int open_braces = unclosed_braces(a.code);
  const bool open_comment = ends_inside_comment_or_literal(a.code);
  if (open_braces > 0 || open_comment || (finish_truncated && block_unclosed)) {
    a.truncated = true;
    std::vector<std::string> why;
    if (finish_truncated) why.push_back("the model stopped at its token limit");
    if (block_unclosed) why.push_back("the code block is never closed");
    if (open_braces > 0) why.push_back(fmt::format("{} '{{' never closed", open_braces));
    if (open_comment) why.push_back("a comment or raw string is never closed");
    a.problems.push_back(fmt::format("the code is cut off ({}); it ends with `{}`", join(why, ", "), last_code_line(a.code)));
  } else if (open_braces < 0) {
    a.problems.push_back(fmt::format("the code has {} more '}}' than '{{'", -open_braces));
  } else if (block_unclosed) {
    a.notes.push_back("the closing ``` is missing but the code is complete");
  } else if (finish_truncated) {
    a.notes.push_back("the model stopped at its token limit after a complete code block");
  }
}

}  // namespace

std::string CodeAnswer::describe() const { return join(problems, "; "); }

CodeAnswer parse_code_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated) {
  CodeAnswer a;
  const std::vector<std::string> lines = split_lines(answer);
  const std::vector<Block> all = fenced_blocks(lines);
  a.blocks = static_cast<int>(all.size());
  std::vector<const Block*> code_blocks;
  for (const Block& b : all)
    if (code_language(b.lang) && b.code.find_first_not_of(" \t\n") != std::string::npos) code_blocks.push_back(&b);

  bool block_unclosed = false;
  if (code_blocks.empty()) {
    if (!take_unfenced_code(lines, answer, all, a)) return a;
  } else {
    block_unclosed = take_block_code(code_blocks, entry, a);
  }
  check_complete(a, finish_truncated, block_unclosed);

  for (const FunctionDecl& f : host_functions(a.code))
    if (f.name == "main" && f.definition)
      a.problems.push_back(fmt::format("the file defines main() (line {}): it must be a library that exports the entry point, not a program", f.line));
  if (!a.truncated) check_entry(a.code, entry, a);
  a.ok = a.problems.empty() && !a.code.empty();
  return a;
}

}  // namespace cudamaster::agents

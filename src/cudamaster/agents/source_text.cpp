#include "cudamaster/agents/source_text.hpp"

#include <cctype>
#include <regex>

namespace cudamaster::agents {

namespace {

enum class LexState { code, line_comment, block_comment, string, character, raw_string };

struct Lexed {
  std::string text;
  LexState end_state = LexState::code;
};

// Blanks comments and literal contents in `o` (a copy of `s`), one state at a time.
struct Lexer {
  const std::string& s;
  std::string& o;
  LexState st = LexState::code;
  std::string raw_end;  // )delim"

  Lexer(const std::string& source, std::string& text) : s(source), o(text) {}

  void blank(std::size_t k) {
    if (o[k] != '\n') o[k] = ' ';
  }

  void code(std::size_t& i, char c, char n) {
    if (c == '/' && n == '/') {
      st = LexState::line_comment;
      blank(i);
      blank(i + 1);
      ++i;
    } else if (c == '/' && n == '*') {
      st = LexState::block_comment;
      blank(i);
      blank(i + 1);
      ++i;
    } else if (c == 'R' && n == '"' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      const std::size_t paren = s.find('(', i + 2);
      if (paren == std::string::npos || paren - (i + 2) > 16) return;
      raw_end = ")" + s.substr(i + 2, paren - (i + 2)) + "\"";
      st = LexState::raw_string;
      for (std::size_t k = i + 2; k <= paren; ++k) blank(k);
      i = paren;
    } else if (c == '"') {
      st = LexState::string;
    } else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) && std::isxdigit(static_cast<unsigned char>(n)))) {
      // (a quote between hex digits is a C++14 digit separator: 1'000'000)
      st = LexState::character;
    }
  }

  void line_comment(std::size_t i, char c) {
    if (c == '\n') {
      st = LexState::code;
    } else {
      blank(i);
    }
  }

  void block_comment(std::size_t& i, char c, char n) {
    if (c == '*' && n == '/') {
      blank(i);
      blank(i + 1);
      ++i;
      st = LexState::code;
    } else {
      blank(i);
    }
  }

  void literal(std::size_t& i, char c) {
    const char quote = st == LexState::string ? '"' : '\'';
    if (c == '\\' && i + 1 < s.size()) {
      blank(i);
      blank(i + 1);
      ++i;
    } else if (c == quote) {
      st = LexState::code;
    } else if (c == '\n') {
      st = LexState::code;  // unterminated literal: stop at the line end, as compilers do
    } else {
      blank(i);
    }
  }

  void raw_string(std::size_t& i) {
    if (s.compare(i, raw_end.size(), raw_end) == 0) {
      for (std::size_t k = i; k + 1 < i + raw_end.size(); ++k) blank(k);
      i += raw_end.size() - 1;
      st = LexState::code;
    } else {
      blank(i);
    }
  }
};

Lexed lex(const std::string& s) {
  Lexed out;
  out.text = s;
  Lexer lx(s, out.text);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char n = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (lx.st) {
      case LexState::code:
        lx.code(i, c, n);
        break;
      case LexState::line_comment:
        lx.line_comment(i, c);
        break;
      case LexState::block_comment:
        lx.block_comment(i, c, n);
        break;
      case LexState::string:
      case LexState::character:
        lx.literal(i, c);
        break;
      case LexState::raw_string:
        lx.raw_string(i);
        break;
    }
  }
  out.end_state = lx.st;
  return out;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool has_word(const std::string& s, const char* word) {
  const std::regex re(std::string("\\b") + word + "\\b");
  return std::regex_search(s, re);
}

}  // namespace

std::string blank_comments_and_literals(const std::string& source) { return lex(source).text; }

bool ends_inside_comment_or_literal(const std::string& source) {
  const LexState st = lex(source).end_state;
  return st == LexState::block_comment || st == LexState::raw_string;
}

int unclosed_braces(const std::string& source) {
  int depth = 0;
  for (char c : lex(source).text) {
    if (c == '{') ++depth;
    if (c == '}') --depth;
  }
  return depth;
}

std::vector<std::string> split_params(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(collapse_whitespace(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  const std::string last = collapse_whitespace(cur);
  if (!last.empty() || !out.empty()) out.push_back(last);
  if (out.size() == 1 && (out[0].empty() || out[0] == "void")) out.clear();
  return out;
}

bool skip_preprocessor_line(const std::string& s, std::size_t& i, int& line) {
  std::size_t k = i;
  while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t')) --k;
  if (k != 0 && s[k - 1] != '\n') return false;
  while (i < s.size()) {
    if (s[i] == '\n') {
      ++line;
      if (s[i - 1] != '\\') break;
    }
    ++i;
  }
  return true;
}

namespace {

struct Scope {
  enum Kind { ns, function, other } kind;
  bool extern_c;
};

bool at_ns_scope(const std::vector<Scope>& scopes) {
  for (const Scope& sc : scopes)
    if (sc.kind != Scope::ns) return false;
  return true;
}

bool in_extern_c(const std::vector<Scope>& scopes) {
  for (const Scope& sc : scopes)
    if (sc.extern_c) return true;
  return false;
}

// The last top-level (...) group of a statement and the identifier before it.
bool function_head(const std::string& st, const std::vector<Scope>& scopes, FunctionDecl& fd) {
  int depth = 0;
  std::size_t open = std::string::npos, close = std::string::npos;
  bool eq_outside = false;
  for (std::size_t i = 0; i < st.size(); ++i) {
    const char c = st[i];
    if (c == '(') {
      if (depth == 0) open = i;
      ++depth;
    } else if (c == ')') {
      --depth;
      if (depth == 0) close = i;
    } else if (c == '=' && depth == 0 && open == std::string::npos) {
      eq_outside = true;
    }
  }
  if (open == std::string::npos || close == std::string::npos || close < open || eq_outside) return false;
  std::size_t e = open;
  while (e > 0 && std::isspace(static_cast<unsigned char>(st[e - 1]))) --e;
  std::size_t b = e;
  while (b > 0 && is_ident_char(st[b - 1])) --b;
  if (b == e) return false;
  fd.name = st.substr(b, e - b);
  static const char* const kNotFunctions[] = {"if", "for", "while", "switch", "return", "sizeof", "decltype",
                                              "__launch_bounds__", "alignas", "static_assert", "__attribute__"};
  for (const char* k : kNotFunctions)
    if (fd.name == k) return false;
  const std::string head = st.substr(0, b);
  if (has_word(head, "__global__") || (has_word(head, "__device__") && !has_word(head, "__host__"))) return false;
  if (has_word(head, "typedef") || has_word(head, "using")) return false;
  fd.params = split_params(st.substr(open + 1, close - open - 1));
  fd.extern_c = in_extern_c(scopes) || std::regex_search(head, std::regex(R"(\bextern\s*"\s*")"));
  return true;
}

// The scope a `{` opens after `stmt`; a host function definition there is added to `out`.
Scope open_scope(const std::string& stmt, int stmt_line, const std::vector<Scope>& scopes, std::vector<FunctionDecl>& out) {
  static const std::regex extern_c_block(R"(^\s*extern\s*"\s*"\s*$)");
  static const std::regex namespace_head(R"(^\s*(inline\s+)?namespace\b[^=]*$)");
  Scope sc{Scope::other, false};
  FunctionDecl fd;
  if (std::regex_match(stmt, extern_c_block)) {
    sc = {Scope::ns, true};
  } else if (std::regex_match(stmt, namespace_head)) {
    sc = {Scope::ns, false};
  } else if (at_ns_scope(scopes) && !has_word(stmt, "struct") && !has_word(stmt, "class") && !has_word(stmt, "union") &&
             !has_word(stmt, "enum") && function_head(stmt, scopes, fd)) {
    fd.definition = true;
    fd.line = stmt_line;
    out.push_back(fd);
    sc = {Scope::function, false};
  } else if (at_ns_scope(scopes)) {
    FunctionDecl dummy;
    // A kernel or device function body, or an initializer / type body.
    sc = {function_head(stmt, scopes, dummy) || stmt.find(')') != std::string::npos ? Scope::function : Scope::other, false};
  }
  return sc;
}

// A statement ended by `;`: a host function declaration there is added to `out`.
void end_statement(const std::string& stmt, int stmt_line, const std::vector<Scope>& scopes, std::vector<FunctionDecl>& out) {
  FunctionDecl fd;
  if (at_ns_scope(scopes) && !has_word(stmt, "struct") && !has_word(stmt, "class") && function_head(stmt, scopes, fd)) {
    fd.definition = false;
    fd.line = stmt_line;
    out.push_back(fd);
  }
}

}  // namespace

std::vector<FunctionDecl> host_functions(const std::string& source) {
  const std::string s = lex(source).text;
  std::vector<Scope> scopes;
  std::vector<FunctionDecl> out;
  std::string stmt;
  int stmt_line = 0;
  int line = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') ++line;
    // Preprocessor lines (with continuations) are not statements.
    if (c == '#' && skip_preprocessor_line(s, i, line)) continue;
    if (c == '{') {
      scopes.push_back(open_scope(stmt, stmt_line, scopes, out));
      stmt.clear();
      continue;
    }
    if (c == '}') {
      if (!scopes.empty()) scopes.pop_back();
      stmt.clear();
      continue;
    }
    if (c == ';') {
      end_statement(stmt, stmt_line, scopes, out);
      stmt.clear();
      continue;
    }
    if (stmt.empty() && std::isspace(static_cast<unsigned char>(c))) continue;
    if (stmt.empty()) stmt_line = line;
    stmt += c;
  }
  return out;
}

}  // namespace cudamaster::agents

// Owns the light lexical view of C++/CUDA source the agents' parsers and the integrity screen
// share: comments and literal contents blanked out (line structure kept), brace balance, and the
// extern "C" functions a file defines with their parameter lists. Not a compiler: it answers the
// questions a reviewer asks of a kernel file before it is built.
#pragma once

#include <string>
#include <vector>

#include "mskb/util/text.hpp"

namespace cudamaster::agents {

// Comments become spaces and the contents of string and character literals become spaces (the
// quotes stay, so `extern "C"` reads `extern " "`), newlines are kept: line numbers and columns
// of the result match the input.
std::string blank_comments_and_literals(const std::string& source);

// Unclosed '{' minus stray '}' over code with comments and literals blanked; > 0 means the file
// ends inside a block (typically a truncated answer).
int unclosed_braces(const std::string& source);
// Whether a comment or literal is still open at the end (e.g. an unterminated /* ... ).
bool ends_inside_comment_or_literal(const std::string& source);

struct FunctionDecl {
  std::string name;
  std::vector<std::string> params;  // each parameter's text, whitespace-normalised
  bool extern_c = false;            // declared inside extern "C" { } or with an extern "C" prefix
  bool definition = false;          // followed by a body
  int line = 0;                     // 1-based
};

// Host-visible functions (not __global__ / __device__-only) defined or declared at file or
// namespace scope, with their parameters.
std::vector<FunctionDecl> host_functions(const std::string& source);

// When s[i] is the '#' of a preprocessor line (only blanks before it on its line), moves i to the
// newline that ends the directive (continuation lines included), counting the newlines passed in
// `line`, and returns true; otherwise changes nothing and returns false.
bool skip_preprocessor_line(const std::string& s, std::size_t& i, int& line);

// A model's words on one line: trimmed, each run of whitespace and control characters one space.
using mskb::collapse_whitespace;

// Splits "a, b<c, d>, e(f, g)" on top-level commas; each piece trimmed with inner runs of
// whitespace collapsed to one space.
std::vector<std::string> split_params(const std::string& text);

}  // namespace cudamaster::agents

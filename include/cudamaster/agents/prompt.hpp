// Owns prompt templates: files under prompts/ (never C++ string literals), loaded at run time and
// rendered with named variables. Syntax (a small Mustache subset):
//   {{name}}               the variable's text
//   {{#name}} ... {{/name}}  the block when the variable is non-empty
//   {{^name}} ... {{/name}}  the block when the variable is empty
// A tag alone on its line takes its line with it. A variable the template uses but the caller did
// not supply is an error (a typo must not silently render nothing); so is a malformed tag.
#pragma once

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudamaster::agents {

class PromptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using PromptVars = std::map<std::string, std::string>;

class PromptTemplate {
 public:
  // Throws PromptError naming `name` and the line of a malformed or unbalanced tag.
  static PromptTemplate parse(const std::string& text, const std::string& name);

  // Throws PromptError when a used variable is missing from `vars`.
  std::string render(const PromptVars& vars) const;
  // Every variable the template refers to, sorted.
  std::vector<std::string> variables() const;
  const std::string& name() const { return name_; }

  struct Node {
    enum class Kind { text, var, section, inverted } kind = Kind::text;
    std::string text;  // literal text, or the variable name
    std::vector<Node> children;
  };

 private:
  std::string name_;
  std::vector<Node> nodes_;
};

// The prompts folder: `<name>.md` files. Thread-safe; templates are parsed once.
class PromptLibrary {
 public:
  explicit PromptLibrary(std::string dir);
  const std::string& dir() const { return dir_; }
  // Throws PromptError when the file is missing or malformed.
  const PromptTemplate& get(const std::string& name);
  std::string render(const std::string& name, const PromptVars& vars) { return get(name).render(vars); }
  // SHA-256 over the names and texts of every *.md file in the folder (recorded with a run).
  std::string fingerprint() const;

 private:
  std::string dir_;
  std::mutex mutex_;
  std::map<std::string, PromptTemplate> cache_;
};

// $CM_PROMPTS_DIR, else <source root>/prompts (the source root honours MSKB_ROOT).
std::string default_prompts_dir();

}  // namespace cudamaster::agents

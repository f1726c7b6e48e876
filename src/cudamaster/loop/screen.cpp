#include "cudamaster/loop/screen.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cudamaster/agents/source_text.hpp"
#include "mskb/util/text.hpp"

namespace cudamaster::loop {

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// A source line as a finding quotes it: trimmed, at most 100 characters.
std::string quoted_line(const std::string& s) {
  std::string t = mskb::trim(s, " \t\r");
  return t.size() > 100 ? t.substr(0, 97) + "..." : t;
}

struct Rule {
  const char* id;
  std::regex pattern;
  const char* message;
};

struct Statement {
  std::string text;
  int line = 0;
  enum Scope { file, function, type } scope = file;
};

bool has_word(const std::string& s, const char* w) { return std::regex_search(s, std::regex(std::string("\\b") + w + "\\b")); }

// Statements of the blanked source with the kind of scope they sit in. Preprocessor lines are
// skipped; a statement ends at ';' or '{' or '}'.
std::vector<Statement> statements(const std::string& s) {
  std::vector<Statement> out;
  std::vector<Statement::Scope> scopes;  // file (namespace / extern "C"), function, type
  auto current = [&] { return scopes.empty() ? Statement::file : scopes.back(); };
  std::string stmt;
  int stmt_line = 0, line = 1;
  static const std::regex ns_head(R"(^\s*((inline\s+)?namespace\b[^=]*|extern\s*"\s*"\s*)$)");
  static const std::regex type_head(R"(\b(struct|class|union|enum)\b[^()=]*$)");
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') ++line;
    if (c == '#' && agents::skip_preprocessor_line(s, i, line)) continue;
    if (c == '{' || c == ';' || c == '}') {
      if (!stmt.empty()) out.push_back({stmt, stmt_line, current()});
      if (c == '{') {
        Statement::Scope next = Statement::function;
        if (current() == Statement::file && std::regex_match(stmt, ns_head)) next = Statement::file;
        else if (current() != Statement::function && std::regex_search(stmt, type_head)) next = Statement::type;
        else if (current() == Statement::file && stmt.find('=') != std::string::npos && stmt.find('(') == std::string::npos)
          next = Statement::type;  // a brace initializer of a file-scope variable: not a body
        scopes.push_back(next);
      } else if (c == '}') {
        if (!scopes.empty()) scopes.pop_back();
      }
      stmt.clear();
      continue;
    }
    if (stmt.empty() && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) continue;
    if (stmt.empty()) stmt_line = line;
    stmt += c;
  }
  return out;
}

// A file-scope statement that defines a mutable variable.
bool mutable_file_variable(const std::string& st) {
  static const std::regex not_variable(
      R"(^\s*(typedef|using|template|static_assert|namespace|struct|class|union|enum|friend|return)\b)");
  if (std::regex_search(st, not_variable)) return false;
  if (has_word(st, "const") || has_word(st, "constexpr") || has_word(st, "__constant__")) return false;
  if (std::regex_search(st, std::regex(R"(\bextern\b)")) && !std::regex_search(st, std::regex(R"(=)"))) return false;
  // A function declaration: an identifier followed by a parameter list, with no '=' before it.
  const std::size_t eq = st.find('=');
  const std::size_t paren = st.find('(');
  if (paren != std::string::npos && (eq == std::string::npos || paren < eq)) {
    // `__device__ float table[4] __attribute__((aligned(16)));` is rare; treat (...) as a function.
    return false;
  }
  // Needs a declarator: at least two words (type and name), or a type with '*'.
  static const std::regex decl(R"([A-Za-z_][\w:<>,\s\*&]*[\s\*&]\s*[A-Za-z_]\w*\s*(\[[^\]]*\]\s*)*(=.*)?$)");
  return std::regex_search(st, decl);
}

std::string first_word_after_type(const std::string& st) {
  const std::string head = st.substr(0, st.find('='));
  std::string best;
  static const std::regex ident(R"([A-Za-z_]\w*)");
  for (auto it = std::sregex_iterator(head.begin(), head.end(), ident); it != std::sregex_iterator(); ++it)
    best = it->str();
  return best;
}

// Vendor-library uses, checked unless the run allows libraries.
const std::vector<Rule>& library_rules() {
  static const std::vector<Rule> kLibraryRules = {
      {"vendor_library", std::regex(R"(\b(cublas|cublasLt|cusparse|cufft|cudnn|curand|cusolver|cusolverDn|cutensor|nvjpeg)[A-Z]\w*)"),
       "calls a vendor library; write the kernel yourself (vendor libraries are not allowed in this run)"},
      {"vendor_library", std::regex(R"(\bnpp[a-z]\w*\s*\()"), "calls NPP; write the kernel yourself"},
      {"vendor_library", std::regex(R"(\bcub\s*::\s*Device\w*)"),
       "uses a CUB device-wide algorithm (the vendor contender's building block); CUB block/warp primitives are fine"},
      {"vendor_library", std::regex(R"(\bthrust\s*::)"), "uses Thrust; write the kernel yourself"},
  };
  return kLibraryRules;
}

// Streams, host threads, files, environment, network, kept state: checked on every line.
const std::vector<Rule>& source_rules() {
  static const std::vector<Rule> kRules = {
      {"extra_stream", std::regex(R"(\bcudaStreamCreate\w*\s*\()"),
       "creates a stream; launch everything on the default stream (the harness only waits for that one)"},
      {"extra_stream", std::regex(R"(\bcudaStreamPerThread\b)"), "uses the per-thread default stream; use the legacy default stream (0)"},
      {"extra_stream", std::regex(R"(\b(cudaStreamBeginCapture|cudaGraphLaunch|cudaGraphCreate|cudaGraphInstantiate)\b)"),
       "builds or launches CUDA graphs; launch kernels directly on the default stream"},
      {"extra_stream", std::regex(R"(\b(cudaLaunchHostFunc|cudaStreamAddCallback)\b)"), "enqueues host callbacks; do all work in the entry point"},
      {"host_thread", std::regex(R"(\bstd\s*::\s*(thread|jthread|async)\b)"), "starts host threads; the entry point must run on the caller's thread"},
      {"host_thread", std::regex(R"(\b(pthread_create|fork|vfork|clone)\s*\()"), "starts threads or processes"},
      {"host_thread", std::regex(R"(^\s*#\s*pragma\s+omp\b)"), "uses OpenMP host threads"},
      {"file_access", std::regex(R"(\b(fopen|freopen|fdopen|tmpfile|tmpnam|unlink|rmdir|mkdir|opendir|readdir)\s*\()"),
       "accesses files; a kernel must not read or write files"},
      {"file_access", std::regex(R"((^|[^.\w>:])(open|creat|mmap|remove|rename)\s*\()"), "accesses files; a kernel must not read or write files"},
      {"file_access", std::regex(R"(\bstd\s*::\s*(ifstream|ofstream|fstream|filesystem)\b|\bFILE\s*\*)"),
       "accesses files; a kernel must not read or write files"},
      {"env_access", std::regex(R"(\b(getenv|secure_getenv|setenv|unsetenv|putenv|system|popen|execl|execlp|execle|execv|execvp|execve)\s*\()"),
       "reads the environment or runs commands; the entry point must depend only on its arguments"},
      {"env_access", std::regex(R"(\benviron\b)"), "reads the environment"},
      {"network_access", std::regex(R"((^|[^.\w>:])(socket|connect|bind|listen|accept|gethostbyname|getaddrinfo|dlopen|dlsym)\s*\()"),
       "uses the network or loads code at run time"},
      {"network_access", std::regex(R"(\bcurl_\w+\s*\()"), "uses the network"},
      {"kept_state", std::regex(R"(\bthread_local\b)"), "keeps thread-local state across calls"},
      {"kept_state", std::regex(R"(\b__managed__\b)"), "declares a __managed__ variable, which keeps state across calls"},
  };
  return kRules;
}

struct HeaderRule {
  const char* id;
  std::regex header;
  const char* message;
  bool library;
};

// Headers whose inclusion is a violation (library ones unless the run allows libraries).
const std::vector<HeaderRule>& header_rules() {
  static const std::vector<HeaderRule> kHeaders = {
      {"vendor_library", std::regex(R"(^(cublas|cublasLt|cusparse|cufft|cudnn|curand|cusolver|cutensor|npp|nvjpeg)\w*(\.h)?$|^(thrust|cub/device)/)"),
       "includes a vendor library header", true},
      {"host_thread", std::regex(R"(^(thread|future|pthread\.h|omp\.h)$)"), "includes a threading header", false},
      {"file_access", std::regex(R"(^(fstream|filesystem|fcntl\.h|sys/mman\.h|dirent\.h|sys/stat\.h)$)"), "includes a file-access header", false},
      {"network_access", std::regex(R"(^(sys/socket\.h|netinet/.*|arpa/inet\.h|netdb\.h|curl/curl\.h|dlfcn\.h)$)"),
       "includes a network or dynamic-loading header", false},
  };
  return kHeaders;
}

}  // namespace

std::string ScreenResult::describe() const {
  if (ok) return "";
  std::string out = "rejected_static: ";
  for (std::size_t i = 0; i < violations.size(); ++i) {
    const ScreenViolation& v = violations[i];
    out += fmt::format("{}line {} ({}): {}", i ? "; " : "", v.line, v.rule, v.message);
  }
  return out;
}

ScreenResult screen_source(const std::string& source, const ScreenOptions& options) {
  ScreenResult r;
  const std::string blank = agents::blank_comments_and_literals(source);
  const std::vector<std::string> raw_lines = lines_of(source);
  const std::vector<std::string> lines = lines_of(blank);
  auto add = [&](const char* rule, int line, const std::string& message) {
    const std::string excerpt = line >= 1 && static_cast<std::size_t>(line) <= raw_lines.size() ? quoted_line(raw_lines[line - 1]) : "";
    for (const ScreenViolation& v : r.violations)
      if (v.rule == rule && v.line == line) return;
    r.violations.push_back({rule, line, excerpt, message});
  };

  const std::vector<Rule>& kLibraryRules = library_rules();
  const std::vector<Rule>& kRules = source_rules();
  const std::vector<HeaderRule>& kHeaders = header_rules();

  static const std::regex include_line(R"(^\s*#\s*include\b)");
  static const std::regex include_name(R"(#\s*include\s*[<"]([^>"]+)[>"])");
  static const std::regex link_line(R"(//\s*mskb-link:)");
  static const std::regex launch(R"(<<<(.*?)>>>)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const std::string& l = lines[i];
    const std::string& raw = i < raw_lines.size() ? raw_lines[i] : l;
    if (std::regex_search(l, include_line)) {
      std::smatch m;
      if (std::regex_search(raw, m, include_name)) {
        const std::string h = m[1].str();
        for (const HeaderRule& hr : kHeaders)
          if ((!hr.library || !options.allow_libraries) && std::regex_search(h, hr.header))
            add(hr.id, ln, std::string(hr.message) + " <" + h + ">");
      }
    }
    if (!options.allow_libraries && std::regex_search(raw, link_line))
      add("vendor_library", ln, "asks to link a vendor library (// mskb-link:) but libraries are not allowed in this run");
    if (!options.allow_libraries)
      for (const Rule& rule : kLibraryRules)
        if (std::regex_search(l, rule.pattern)) add(rule.id, ln, rule.message);
    for (const Rule& rule : kRules)
      if (std::regex_search(l, rule.pattern)) add(rule.id, ln, rule.message);
    for (auto it = std::sregex_iterator(l.begin(), l.end(), launch); it != std::sregex_iterator(); ++it) {
      const std::vector<std::string> cfg = agents::split_params((*it)[1].str());
      if (cfg.size() < 4) continue;
      static const std::regex default_stream(R"(^(0|0x0|nullptr|NULL|cudaStreamLegacy|\(cudaStream_t\)\s*0|cudaStream_t\(0\)|cudaStream_t\{\})$)");
      if (!std::regex_match(cfg[3], default_stream))
        add("extra_stream", ln, "launches on stream `" + cfg[3] + "`; launch on the default stream (omit the stream argument)");
    }
  }

  // State kept across calls: static locals, and mutable variables at file scope.
  static const std::regex static_local(R"(^\s*(\w+\s+)*static\b)");
  for (const Statement& st : statements(blank)) {
    if (st.scope == Statement::function) {
      if (std::regex_search(st.text, static_local) && !has_word(st.text, "const") && !has_word(st.text, "constexpr"))
        add("kept_state", st.line,
            "a static local variable keeps state from one call to the next; compute everything inside each call");
    } else if (st.scope == Statement::file && mutable_file_variable(st.text)) {
      const std::string name = first_word_after_type(st.text);
      const bool device = has_word(st.text, "__device__");
      add("kept_state", st.line,
          fmt::format("{} variable `{}` at file scope survives between calls; {}", device ? "__device__" : "global", name,
                      device ? "allocate scratch inside the call (cudaMalloc/cudaMallocAsync) and reset it there, or make it const"
                             : "keep per-call data in local variables"));
    }
  }
  std::sort(r.violations.begin(), r.violations.end(),
            [](const ScreenViolation& a, const ScreenViolation& b) { return a.line < b.line; });
  r.ok = r.violations.empty();
  return r;
}

}  // namespace cudamaster::loop

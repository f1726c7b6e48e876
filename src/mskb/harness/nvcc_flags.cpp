// The extra nvcc flags a kernel build takes (mskb/harness/compiler.hpp, check_flag): an allowlist
// of forms. A build is confined (build_sandbox.hpp: it reads the kernel's folder, kernels/include
// and the toolkit, and writes a private folder), screened (no absolute or `..` includes), cached by
// a key that covers the source, its local headers and the command, and its object is screened by
// the binary policy. A flag that could reach around any of these - a folder to read, a file to
// include or write, another compiler or linker, a library - is refused, with the reason.
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/text.hpp"

namespace mskb {

namespace {

// One nvcc argument, whole: the forms that change code generation, diagnostics or reports only.
const std::regex& nvcc_forms() {
  static const std::regex r(
      R"(^(-O[0-3]|--?use_fast_math|-lineinfo|--generate-line-info|-G|--device-debug|--?res-usage|--resource-usage|)"
      R"(--?maxrregcount=[0-9]+|--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|--?dopt=(on|off)|)"
      R"(--?expt-relaxed-constexpr|--?expt-extended-lambda|--?extended-lambda|--?restrict|--?extra-device-vectorization|)"
      R"(-std=c\+\+(17|20)|--std=c\+\+(17|20)|)"
      R"(-D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+\-]*)?|-U[A-Za-z_][A-Za-z0-9_]*|)"
      R"(-w|--disable-warnings|--?display-error-number|--?no-display-error-number|)"
      R"(--?diag-(suppress|warn|error)=[A-Za-z0-9_\-]+(,[A-Za-z0-9_\-]+)*|)"
      R"(-Werror=(all-warnings|cross-execution-space-call|reorder|default-stream-launch|missing-launch-bounds|)"
      R"(ext-lambda-captures-this|deprecated-declarations)(,[a-z\-]+)*|)"
      R"(-W(no-)?(reorder|default-stream-launch|missing-launch-bounds|ext-lambda-captures-this|deprecated-gpu-targets|)"
      R"(deprecated-declarations))$)");
  return r;
}

// One option inside -Xptxas=... (comma-separated).
const std::regex& ptxas_forms() {
  static const std::regex r(
      R"(^(-v|--verbose|-O[0-3]|--opt-level=[0-3]|--?dlcm=(ca|cg|cs|lu|cv)|--?dscm=(wb|cg|cs|wt)|)"
      R"(--def-load-cache=(ca|cg|cs|lu|cv)|--def-store-cache=(wb|cg|cs|wt)|)"
      R"(-warn-spills|--warn-on-spills|-warn-lmem-usage|--warn-on-local-memory-usage|-warn-double-usage|)"
      R"(--warn-on-double-precision-use|--?maxrregcount=[0-9]+|--?allow-expensive-optimizations=(true|false)|)"
      R"(-Werror|--warning-as-error|--?fmad=(true|false)|--?disable-optimizer-constants|--?device-debug|-g|-lineinfo|)"
      R"(--generate-line-info)$)");
  return r;
}

// One option inside -Xcompiler=... (the host compiler): warnings and the optimization level only.
const std::regex& host_forms() {
  static const std::regex r(R"(^(-O[0-3s]|-Wall|-Wextra|-Wpedantic|-Werror|-W(no-)?[a-z][a-z0-9\-]*(=[0-9a-z]+)?)$)");
  return r;
}

// One option inside -Xcudafe=... (the CUDA frontend): diagnostics only.
const std::regex& cudafe_forms() {
  static const std::regex r(R"(^(--display_error_number|--no_display_error_number|--diag_(suppress|warning|error|remark)=[A-Za-z0-9_]+)$)");
  return r;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The value of a `NAME=VALUE` form for one of `names`, or false.
bool value_of(const std::string& f, const std::vector<std::string>& names, std::string& value) {
  for (const std::string& n : names)
    if (starts_with(f, n + "=")) {
      value = f.substr(n.size() + 1);
      return true;
    }
  return false;
}

bool every_item(const std::string& list, const std::regex& form, std::string& bad) {
  for (const std::string& item : split(list, ',', true))
    if (!std::regex_match(item, form)) {
      bad = item;
      return false;
    }
  return !list.empty();
}

// Why a flag outside the allowlist is refused, by family. A long name matches itself and NAME=...;
// the one-letter forms (-I, -L, -l, -o, -M...) their glued values too (-I/usr, -lcublas).
std::string refusal_reason(const std::string& f) {
  auto named = [&f](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (f == n || starts_with(f, std::string(n) + "=")) return true;
    return false;
  };
  auto glued = [&f](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (starts_with(f, n)) return true;
    return false;
  };
  if (glued({"-I", "-isystem", "-idirafter", "-iquote", "-imacros", "-include"}) ||
      named({"--include-path", "--system-include", "--pre-include"}))
    return "include folders and forced includes are refused: a kernel's build reads only its own folder and kernels/include "
           "(the build sandbox), and the cache key covers only their headers";
  if (glued({"-o", "-M"}) ||
      named({"--output-file", "--output-directory", "-odir", "-keep", "--keep", "-keep-dir", "--keep-dir", "--dependency-output",
             "--generate-dependencies", "--generate-nonsystem-dependencies", "-save-temps", "--save-temps", "-dryrun", "--dryrun", "-E",
             "--preprocess", "-c", "--compile", "-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-run", "--run",
             "-optf", "--options-file", "-lib", "--lib", "-link", "--link", "-dc", "--device-c", "-dw", "--device-w", "-dlink",
             "--device-link", "-shared", "--shared"}))
    return "it chooses the build's outputs, stages or inputs, which the harness sets";
  if (glued({"-l", "-L"}) ||
      named({"-ccbin", "--compiler-bindir", "-Xlinker", "--linker-options", "-Xnvlink", "--nvlink-options", "-Xarchive",
             "--archive-options", "--library", "--library-path", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt", "-rdc",
             "--relocatable-device-code", "-Xfatbin", "--fatbin-options", "-Xnvvm", "--nvvm-options", "--compiler-options",
             "--ptxas-options", "--cudafe-options"}))
    return "it changes the toolchain or what is linked (a vendor library: a `// mskb-link:` line and --allow-libraries)";
  if (named({"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code"}))
    return "the target is --arch's (e.g. --arch 90a)";
  if (named({"-default-stream", "--default-stream"}))
    return "it changes where a launch without a stream goes (the harness reads outputs once the default stream is idle)";
  return "allowed: -O0..3, -use_fast_math, -lineinfo, -G, -maxrregcount=N, -DNAME[=VALUE], -UNAME, -ftz/-prec-div/-prec-sqrt/"
         "-fmad=true|false, -std=c++17|20, --expt-relaxed-constexpr, --extended-lambda, --restrict, -res-usage, -w, "
         "-diag-suppress=N, -Xptxas=-v,..., -Xcompiler=-Wall,..., -Xcudafe=--display_error_number (docs/harness.md section 1)";
}

}  // namespace

void check_flag(const std::string& f) {
  const std::string refused = "nvcc flag '" + f + "' is not on the whitelist: ";
  if (f.find_first_of(" \t\n") != std::string::npos)
    throw std::invalid_argument(refused + "one nvcc argument per flag (write '-Xptxas -v' as -Xptxas=-v)");
  if (std::regex_match(f, nvcc_forms())) return;
  std::string list, bad;
  if (value_of(f, {"-Xptxas", "--ptxas-options"}, list)) {
    if (every_item(list, ptxas_forms(), bad)) return;
    throw std::invalid_argument(refused + "ptxas option '" + bad + "' is not allowed (-v, -O0..3, -dlcm=, -warn-spills, "
                                "-warn-lmem-usage, -maxrregcount=N, -Werror, ...: docs/harness.md section 1)");
  }
  if (value_of(f, {"-Xcompiler", "--compiler-options"}, list)) {
    for (const std::string& item : split(list, ',', true))
      if (item == "-Wl" || item == "-Wa" || item == "-Wp")
        throw std::invalid_argument(refused + "host compiler option '" + item + "' passes options to the linker, assembler or preprocessor");
    if (every_item(list, host_forms(), bad)) return;
    throw std::invalid_argument(refused + "host compiler option '" + bad + "' is not allowed (-Xcompiler takes -O0..3, -Wall, -Wextra, -Werror, -Wno-NAME)");
  }
  if (value_of(f, {"-Xcudafe", "--cudafe-options"}, list)) {
    if (every_item(list, cudafe_forms(), bad)) return;
    throw std::invalid_argument(refused + "frontend option '" + bad + "' is not allowed (-Xcudafe takes --display_error_number, --diag_suppress=N)");
  }
  if (f == "-Xptxas" || f == "-Xcompiler" || f == "-Xcudafe" || f == "-maxrregcount")
    throw std::invalid_argument(refused + "give its value after '=', e.g. " + f + (f == "-maxrregcount" ? "=64" : f == "-Xptxas" ? "=-v" : "=-Wall"));
  throw std::invalid_argument(refused + refusal_reason(f));
}

}  // namespace mskb

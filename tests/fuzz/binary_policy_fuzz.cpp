// mskb::check_binary_policy and mskb::exported_functions (the binary policy reads the shared object
// built from an untrusted kernel): any bytes give a verdict, never a crash or an exception from
// check_binary_policy; a refusal names at least one violation and every violation is one line
// (symbol and library names come from the file); exported_functions throws only a one-line
// std::runtime_error.
#include <stdexcept>

#include "fuzz_support.hpp"
#include "mskb/harness/binary_policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file("kernel.so");
  const std::string& path = file.write(data, size);
  for (const bool cublas : {false, true}) {
    mskb::PolicyOptions o;
    if (cublas) o.libraries = {"cublas"};
    mskb::PolicyVerdict v;
    try {
      v = mskb::check_binary_policy(path, o);
    } catch (const std::exception& e) {
      fuzz::undocumented(e, "check_binary_policy");
    }
    FUZZ_REQUIRE(v.ok == v.violations.empty(), "ok disagrees with the violations");
    for (const auto& x : v.violations) fuzz::require_one_line(x.describe(), "PolicyViolation::describe");
    if (!v.ok) fuzz::require_one_line(v.describe(), "PolicyVerdict::describe");
  }
  try {
    for (const auto& name : mskb::exported_functions(path)) FUZZ_REQUIRE(!name.empty(), "an exported function without a name");
  } catch (const std::runtime_error& e) {
    fuzz::require_one_line(e.what(), "exported_functions");
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "exported_functions");
  }
  return 0;
}

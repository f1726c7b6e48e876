// Included first in every translation unit of the project (the top-level CMakeLists.txt passes it
// with -include, to the host compiler and to nvcc alike, so every unit sees one definition): how
// nlohmann/json checks its preconditions. By default they are assert(), compiled out in release
// builds, and what they guard is then undefined behaviour: operator[] of a const object with a key
// it lacks reads past the map (a report, cassette, store row or message that lacks a field; found by
// tests/fuzz). Here a failed check throws, so a document that a reader did not validate in full is
// a one-line error ("mskb: error: ..."), never a read of freed memory.
#pragma once

#include <stdexcept>

namespace mskb {
// A JSON document without a field or element its reader needs (what the checks below throw; an
// std::invalid_argument, so callers that catch those see it too).
class MalformedJson : public std::invalid_argument {
 public:
  MalformedJson() : std::invalid_argument("malformed JSON document: a field or element it needs is missing") {}
};
}  // namespace mskb

namespace mskb::json_detail {
// Out of line from the macro: some checks sit in noexcept functions (the library's own invariants,
// which hold), where a throw written in place would be a compile-time warning.
[[noreturn]] inline void precondition_failed() {
  throw ::mskb::MalformedJson();
}
}  // namespace mskb::json_detail

#define JSON_ASSERT(x) ((x) ? static_cast<void>(0) : ::mskb::json_detail::precondition_failed())

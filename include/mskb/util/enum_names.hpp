// Owns the pattern every vocabulary (an enum whose string forms are a JSON, CLI or database
// contract) follows: one table of (value, string) pairs per enum, to_string next to the enum, and
// from_string<E> (std::nullopt for an unknown string) / parse_enum<E> (std::invalid_argument with
// a one-line message naming the bad value and the valid ones) specialized for it.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mskb/util/text.hpp"

namespace mskb {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// Specialized (declared next to each enum, defined with its table); the primary templates are
// never defined.
template <class E>
std::optional<E> from_string(std::string_view s);
template <class E>
E parse_enum(std::string_view s);

namespace util {

template <class E, std::size_t N>
const char* enum_name(const EnumName<E> (&table)[N], E e) {
  for (const EnumName<E>& n : table)
    if (n.value == e) return n.name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> enum_find(const EnumName<E> (&table)[N], std::string_view s) {
  for (const EnumName<E>& n : table)
    if (s == n.name) return n.value;
  return std::nullopt;
}

// "unknown <kind> 'x' (valid: a, b, c)" unless `s` is one of the table's strings; `s` as
// mskb::printable writes it (a value read from a damaged file may hold a newline).
template <class E, std::size_t N>
E enum_parse(const EnumName<E> (&table)[N], std::string_view s, const char* kind) {
  if (const std::optional<E> e = enum_find(table, s)) return *e;
  std::string valid;
  for (const EnumName<E>& n : table) valid += (valid.empty() ? "" : ", ") + std::string(n.name);
  throw std::invalid_argument("unknown " + std::string(kind) + " '" + printable(s, 80) + "' (valid: " + valid + ")");
}

}  // namespace util
}  // namespace mskb

// Declares from_string<E> and parse_enum<E> of enum `E` (a fully qualified name; used at global
// scope, after the enum and its to_string).
#define MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(E)              \
  namespace mskb {                                              \
  template <>                                                   \
  std::optional<E> from_string<E>(std::string_view s);          \
  template <>                                                   \
  E parse_enum<E>(std::string_view s);                          \
  }

// Defines the two (at global scope) from a table `names` (EnumName<E>[]) and a kind name for messages.
#define MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(E, names, kind)                                        \
  namespace mskb {                                                                                  \
  template <>                                                                                       \
  std::optional<E> from_string<E>(std::string_view s) { return util::enum_find(names, s); }        \
  template <>                                                                                       \
  E parse_enum<E>(std::string_view s) { return util::enum_parse(names, s, kind); }                 \
  }

#include "mskb/protocol/vocabulary.hpp"

#include <ostream>

#include <nlohmann/json.hpp>

namespace mskb {

namespace {

constexpr EnumName<Disposition> kDispositions[] = {
    {Disposition::passed, "passed"},
    {Disposition::compile_error, "compile_error"},
    {Disposition::missing_entry, "missing_entry"},
    {Disposition::launch_error, "launch_error"},
    {Disposition::out_of_memory, "out_of_memory"},
    {Disposition::crashed, "crashed"},
    {Disposition::timeout, "timeout"},
    {Disposition::wrong_result, "wrong_result"},
    {Disposition::unwritten_output, "unwritten_output"},
    {Disposition::input_mutated, "input_mutated"},
    {Disposition::out_of_bounds, "out_of_bounds"},
    {Disposition::unsynced, "unsynced"},
    {Disposition::rejected_static, "rejected_static"},
    {Disposition::too_fast, "too_fast"},
    {Disposition::noisy, "noisy"},
    {Disposition::no_device, "no_device"},
    {Disposition::harness_error, "harness_error"},
    {Disposition::sanitizer_error, "sanitizer_error"},
    {Disposition::sandbox_violation, "sandbox_violation"},
    {Disposition::sandbox_setup_failed, "sandbox_setup_failed"},
    {Disposition::not_run, "not_run"},
};

constexpr EnumName<Sweep> kSweeps[] = {
    {Sweep::paper, "paper"}, {Sweep::heldout, "heldout"}, {Sweep::random, "random"}, {Sweep::large, "large"}, {Sweep::matrix, "matrix"},
    {Sweep::custom, "custom"},
};

constexpr EnumName<ContenderKind> kContenderKinds[] = {
    {ContenderKind::baseline, "baseline"}, {ContenderKind::vendor, "vendor"},           {ContenderKind::candidate, "candidate"},
    {ContenderKind::wrong, "wrong"},       {ContenderKind::adversarial, "adversarial"},
};

constexpr EnumName<Part> kParts[] = {{Part::all, "all"}, {Part::checks, "checks"}, {Part::timing, "timing"}};

constexpr EnumName<RunMode> kRunModes[] = {
    {RunMode::evaluate, "evaluate"}, {RunMode::device, "device"}, {RunMode::identify, "identify"}, {RunMode::profile, "profile"},
};

constexpr EnumName<SanitizerTool> kSanitizerTools[] = {{SanitizerTool::memcheck, "memcheck"}, {SanitizerTool::racecheck, "racecheck"}};

template <class E>
void enum_from_json(const nlohmann::json& j, E& e) {
  e = parse_enum<E>(j.get<std::string>());
}

}  // namespace

std::string to_string(Disposition d) { return util::enum_name(kDispositions, d); }
std::string to_string(Sweep s) { return util::enum_name(kSweeps, s); }
std::string to_string(ContenderKind k) { return util::enum_name(kContenderKinds, k); }
std::string to_string(Part p) { return util::enum_name(kParts, p); }
std::string to_string(RunMode m) { return util::enum_name(kRunModes, m); }
std::string to_string(SanitizerTool t) { return util::enum_name(kSanitizerTools, t); }

bool is_correct(Disposition d) { return d == Disposition::passed || d == Disposition::noisy; }

std::vector<Sweep> sweeps_named(const std::string& selector) {
  if (selector == "all") return {Sweep::paper, Sweep::heldout, Sweep::random, Sweep::large};
  return {util::enum_parse(kSweeps, selector, "sweep")};
}

ContenderKind contender_kind(const std::string& contender) {
  const std::optional<ContenderKind> k = util::enum_find(kContenderKinds, contender.substr(0, contender.find('/')));
  return k ? *k : ContenderKind::candidate;
}

std::ostream& operator<<(std::ostream& os, Disposition d) { return os << to_string(d); }
std::ostream& operator<<(std::ostream& os, Sweep s) { return os << to_string(s); }
std::ostream& operator<<(std::ostream& os, ContenderKind k) { return os << to_string(k); }
std::ostream& operator<<(std::ostream& os, Part p) { return os << to_string(p); }
std::ostream& operator<<(std::ostream& os, RunMode m) { return os << to_string(m); }
std::ostream& operator<<(std::ostream& os, SanitizerTool t) { return os << to_string(t); }

void to_json(nlohmann::json& j, Disposition d) { j = to_string(d); }
void from_json(const nlohmann::json& j, Disposition& d) { enum_from_json(j, d); }
void to_json(nlohmann::json& j, Sweep s) { j = to_string(s); }
void from_json(const nlohmann::json& j, Sweep& s) { enum_from_json(j, s); }
void to_json(nlohmann::json& j, RunMode m) { j = to_string(m); }
void from_json(const nlohmann::json& j, RunMode& m) { enum_from_json(j, m); }

}  // namespace mskb

MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::Disposition, mskb::kDispositions, "disposition")
MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::Sweep, mskb::kSweeps, "sweep")
MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::ContenderKind, mskb::kContenderKinds, "contender kind")
MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::Part, mskb::kParts, "evaluation part")
MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::RunMode, mskb::kRunModes, "runner mode")
MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(mskb::SanitizerTool, mskb::kSanitizerTools, "sanitizer tool")

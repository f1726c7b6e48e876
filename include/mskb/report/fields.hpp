// The fields of an `mskb run` / `mskb check` JSON report that `mskb report` cannot render without:
// a report that lacks one, or holds one of another type (a hand edit, a tool that rewrote it, a
// file cut short and mended), is refused before anything is written, with the entries and fields
// named ("results[3] (dot_product fp32 baseline paper): no \"precision\""), instead of failing
// half-way through a rendering with no word of which field. The list is what the renderers read
// without a default (tests/mskb/report/fields_test.cpp deletes every field of committed reports and
// checks that each deletion the renderers cannot take is named here).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// What `run` lacks for `mskb report` (empty: nothing), in document order, at most `max` of them
// (then a last item "N more"). Each item names where: "results[3] (TASK PRECISION CONTENDER
// SWEEP): no \"time_us\"" or "scores[0].P: a string, not a number". A number may also be null
// where the report writes null for "none" (a ratio without a vendor, a P without a baseline).
std::vector<std::string> report_field_problems(const nlohmann::json& run, std::size_t max = 4);

}  // namespace mskb

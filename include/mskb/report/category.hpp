// Owns how a report groups tasks into categories: the registry's category of a task, or a
// caller's mapping (tests, reports from another version of the suite).
#pragma once

#include <functional>
#include <string>

namespace mskb {

// The category of a task: the registry's, "other" for a name the registry does not know (a
// report from another version of the suite).
std::string registry_category(const std::string& task);
using CategoryOf = std::function<std::string(const std::string& task)>;

}  // namespace mskb

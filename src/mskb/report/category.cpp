#include "mskb/report/category.hpp"

#include "mskb/core/registry.hpp"

namespace mskb {

std::string registry_category(const std::string& task) {
  const TaskSpec* t = find_task(task);
  return t != nullptr ? t->category : "other";
}

}  // namespace mskb

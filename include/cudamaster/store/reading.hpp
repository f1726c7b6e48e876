// Reading a run store names the store in every error its contents cause: a damaged file (SQLite's
// "database disk image is malformed"), a value no cudamaster wrote (an unknown status), or stored
// JSON of another shape than the readers expect (nlohmann's type errors, a missing field) all end
// as one StoreError "run store 'DB': ...". Used by the commands that read a store (runs, show,
// report, compare: exit code 1) and by a resume reading the run's recorded configuration.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"
#include "mskb/util/json_config.hpp"
#include "mskb/util/text.hpp"

namespace cudamaster::store {

template <class F>
void reading_store(const std::string& db, F&& body) {
  const std::string where = "run store '" + db + "'";
  try {
    std::forward<F>(body)();
  } catch (const StoreError& e) {
    std::string what = e.what();
    if (what.find(where) != std::string::npos) throw;
    if (mskb::starts_with(what, "run store: ")) what.erase(0, 11);
    throw StoreError(where + ": " + what);
  } catch (const nlohmann::json::exception& e) {
    throw StoreError(where + ": a stored record is not as cudamaster writes it (" + mskb::one_line(e.what()) + ")");
  } catch (const mskb::MalformedJson& e) {  // a stored document that lacks a field (mskb/util/json_config.hpp)
    throw StoreError(where + ": a stored record is not as cudamaster writes it (" + e.what() + ")");
  }
}

}  // namespace cudamaster::store

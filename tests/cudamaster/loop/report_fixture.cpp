// cm_report_fixture DB: writes report_fixture.hpp's store (runs 1 and 2) to DB, a new file.
#include <cstdio>
#include <filesystem>

#include "report_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 2 || std::filesystem::exists(argv[1])) {
    std::fprintf(stderr, "usage: cm_report_fixture NEW_DB\n");
    return 2;
  }
  auto store = cudamaster::store::RunStore::open(argv[1]);
  cmtest::report_fixture::build_store(*store);
  return 0;
}

# Third-party dependencies. Debian 12 (CI) and Ubuntu 24.04 (GPU machine) provide them as system
# packages; components whose headers are missing on a machine are switched off, never faked.
find_package(CUDAToolkit REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()

# cuDNN: /usr/local/cuda on Debian's CUDA install, the system multiarch dirs on Ubuntu.
find_path(CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include/x86_64-linux-gnu /usr/include)
find_library(CUDNN_LIBRARY cudnn
  HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)

# SQLite (the run store) and cpp-httplib (loopback test servers) may be absent on the GPU machine;
# MSKB_PREFIX lets a private prefix of unpacked .deb files supply them.
if(DEFINED ENV{MSKB_PREFIX})
  list(APPEND CMAKE_PREFIX_PATH $ENV{MSKB_PREFIX}/usr)
  include_directories(SYSTEM $ENV{MSKB_PREFIX}/usr/include)
endif()
find_package(SQLite3 QUIET)
# CMake 4's FindSQLite3 names the target SQLite3::SQLite3 (SQLite::SQLite3 deprecated, a warning per
# use); CMake 3.25 (Debian 12) has only SQLite::SQLite3.
if(TARGET SQLite3::SQLite3)
  set(MSKB_SQLITE_TARGET SQLite3::SQLite3)
else()
  set(MSKB_SQLITE_TARGET SQLite::SQLite3)
endif()
find_path(HTTPLIB_INCLUDE_DIR httplib.h)
find_package(CURL QUIET)
find_package(GTest QUIET)

# toml++ (task files, mskb/core/task_file.hpp): header-only, used as such (TOML_HEADER_ONLY=1, so
# no runtime library is needed where only the -dev .deb is unpacked). Debian 12 ships
# toml++/toml.h, newer releases toml++/toml.hpp. Without it `--task-file` is switched off.
find_path(TOMLPP_INCLUDE_DIR NAMES toml++/toml.hpp toml++/toml.h
  HINTS $ENV{MSKB_PREFIX}/usr/include)
if(TOMLPP_INCLUDE_DIR)
  add_library(mskb_tomlplusplus INTERFACE IMPORTED)
  target_include_directories(mskb_tomlplusplus SYSTEM INTERFACE ${TOMLPP_INCLUDE_DIR})
  target_compile_definitions(mskb_tomlplusplus INTERFACE MSKB_HAVE_TOMLPP=1 TOML_HEADER_ONLY=1)
endif()

message(STATUS "cuDNN: ${CUDNN_INCLUDE_DIR} ${CUDNN_LIBRARY}")
message(STATUS "SQLite3: ${SQLite3_FOUND}  cpp-httplib: ${HTTPLIB_INCLUDE_DIR}  libcurl: ${CURL_FOUND}  GTest: ${GTest_FOUND}")
message(STATUS "toml++: ${TOMLPP_INCLUDE_DIR}")

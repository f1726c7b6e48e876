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
find_path(HTTPLIB_INCLUDE_DIR httplib.h)
find_package(CURL QUIET)
find_package(GTest QUIET)

message(STATUS "cuDNN: ${CUDNN_INCLUDE_DIR} ${CUDNN_LIBRARY}")
message(STATUS "SQLite3: ${SQLite3_FOUND}  cpp-httplib: ${HTTPLIB_INCLUDE_DIR}  libcurl: ${CURL_FOUND}  GTest: ${GTest_FOUND}")
